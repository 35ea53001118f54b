import { expect } from 'chai';
import { deletePayloadAt, setPayloadAt } from '../../storage/engine/payload-paths.js';
import { filterPayload, parseJsonPath, storedPath, valuesAtPath } from '../../storage/json-path.js';
import { PROPERTY_TYPES, propertyTypesOf, setPropertyTypes } from '../../storage/property-types.js';

const path = (text: string) => parseJsonPath(text)!;

describe('storage: Qdrant JSON paths into payloads', () => {
  it('parses keys, indexes, [] and quoted keys, and refuses what is not a path', () => {
    expect(parseJsonPath('a.b[2][].c-d_1."x.y[0]"')).to.deep.equal([{ key: 'a' }, { key: 'b' }, { index: 2 }, 'all', { key: 'c-d_1' }, { key: 'x.y[0]' }]);
    expect(parseJsonPath('städte[].name')).to.deep.equal([{ key: 'städte' }, 'all', { key: 'name' }]);
    for (const bad of ['', '.a', 'a.', 'a..b', 'a[x]', 'a[-1]', '[0]', 'my key', '"open', 'a b.c']) expect(parseJsonPath(bad), bad).to.equal(null);
    expect(storedPath('my key.x'), 'a key logged before paths: its dotted parts').to.deep.equal([{ key: 'my key' }, { key: 'x' }]);
  });

  it('reads values as Qdrant does: a key step does not look through an array, [] does, an index reads one element', () => {
    const p = { a: [{ b: 1 }, { b: [2, 3] }, { c: 4 }], n: { m: null } };
    expect(valuesAtPath(p, path('a.b'))).to.deep.equal([]);
    expect(valuesAtPath(p, path('a[].b'))).to.deep.equal([1, [2, 3]]);
    expect(valuesAtPath(p, path('a[1].b[0]'))).to.deep.equal([2]);
    expect(valuesAtPath(p, path('a[9]'))).to.deep.equal([]);
    expect(valuesAtPath(p, path('n.m'))).to.deep.equal([null]);
    expect(valuesAtPath(p, path('constructor'))).to.deep.equal([]);
  });

  it('sets at a path on copies: objects made, an index into an existing element only, [] into each', () => {
    const before = { a: 10, arr: [{ q: 1 }, 'x'], keep: { k: 1 } };
    const frozen = structuredClone(before);
    expect(setPayloadAt(before, { z: 1 }, 'a.b.c')).to.deep.equal({ ...before, a: { b: { c: { z: 1 } } } });
    expect(setPayloadAt(before, { z: 1 }, 'arr[0]')).to.deep.equal({ ...before, arr: [{ q: 1, z: 1 }, 'x'] });
    expect(setPayloadAt(before, { z: 1 }, 'arr[5]')).to.deep.equal(before);
    expect(setPayloadAt(before, { z: 1 }, 'arr[]')).to.deep.equal({ ...before, arr: [{ q: 1, z: 1 }, { z: 1 }] });
    expect(setPayloadAt(before, { z: 1 }, 'none[0]')).to.deep.equal({ ...before, none: [] });
    expect(before, 'the stored payload is not changed in place').to.deep.equal(frozen);
    const proto = setPayloadAt({}, { x: 1 }, '__proto__');
    expect(Object.getPrototypeOf(proto)).to.equal(Object.prototype);
    expect(Object.keys(proto)).to.deep.equal(['__proto__']);
  });

  it('deletes at a path: from each element with [], an emptied array for a trailing [], nothing for a trailing index', () => {
    const p = { arr: [{ q: 1, r: 2 }, { q: 3 }], list: [1, 2], n: { x: 1, y: 2 }, 'a.b': 1 };
    expect(deletePayloadAt(p, 'arr[].q')).to.deep.equal({ ...p, arr: [{ r: 2 }, {}] });
    expect(deletePayloadAt(p, 'list[]')).to.deep.equal({ ...p, list: [] });
    expect(deletePayloadAt(p, 'list[0]')).to.deep.equal(p);
    expect(deletePayloadAt(p, 'n.x')).to.deep.equal({ ...p, n: { y: 2 } });
    expect(deletePayloadAt(p, '"a.b"')).to.not.have.property('a.b');
    expect(deletePayloadAt(p, 'a.b'), 'a.b is the key b of a').to.deep.equal(p);
  });

  it('keeps the Cypher types of the top-level keys an edit does not change', () => {
    const typed = setPropertyTypes({ when: '2024-01-01', n: { x: 1 } }, { when: 'date', n: 'point' });
    expect(propertyTypesOf(setPayloadAt(typed, { y: 2 }, 'n'))).to.deep.equal({ when: 'date' });
    expect(propertyTypesOf(deletePayloadAt(typed, 'n.x'))).to.deep.equal({ when: 'date' });
    expect((typed as Record<symbol, unknown>)[PROPERTY_TYPES]).to.deep.equal({ when: 'date', n: 'point' });
  });

  it('includes and excludes by path prefixes, elements matched by []', () => {
    const p = { city: 'B', nested: { x: 1, y: 2 }, arr: [{ q: 1, r: 2 }, { q: 3 }], top: [1, 2] };
    expect(filterPayload(p, [path('nested.x'), path('city')], 'include')).to.deep.equal({ city: 'B', nested: { x: 1 } });
    expect(filterPayload(p, [path('nested.z')], 'include')).to.deep.equal({ nested: {} });
    expect(filterPayload(p, [path('arr[].q')], 'include')).to.deep.equal({ arr: [{ q: 1 }, { q: 3 }] });
    expect(filterPayload(p, [path('arr[0].q')], 'include')).to.deep.equal({ arr: [] });
    expect(filterPayload(p, [path('city.deeper')], 'include')).to.deep.equal({ city: 'B' });
    expect(filterPayload(p, [path('nested.x'), path('arr[].q'), path('top[]')], 'exclude')).to.deep.equal({ city: 'B', nested: { y: 2 }, arr: [{ r: 2 }, {}], top: [] });
    expect(filterPayload(p, [path('nested')], 'exclude')).to.deep.equal({ city: 'B', arr: p.arr, top: p.top });
  });
});
