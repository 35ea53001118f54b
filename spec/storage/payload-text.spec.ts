import { expect } from 'chai';
import { parsePayloadText, payloadText } from '../../storage/codec/payload-text.js';
import { CorruptDataError } from '../../storage/errors.js';
import { propertyTypesOf, setPropertyTypes } from '../../storage/property-types.js';

describe('storage/codec payload text', () => {
  it('is plain JSON for a payload without property types, as older entries have it', () => {
    expect(payloadText({ a: 1, b: ['x'] })).to.equal('{"a":1,"b":["x"]}');
    const p = parsePayloadText('{"a":1}', 'p');
    expect(p).to.deep.equal({ a: 1 });
    expect(propertyTypesOf(p)).to.equal(undefined);
  });

  it('round-trips the types after a NUL, invisible to JSON and to key listings', () => {
    const p = setPropertyTypes({ d: '2024-02-29', f: 1, s: 'x\u0000y' }, { d: 'date', f: 'float' });
    const text = payloadText(p);
    expect(text).to.equal('{"d":"2024-02-29","f":1,"s":"x\\u0000y"}\u0000{"d":"date","f":"float"}');
    const back = parsePayloadText(text, 'p');
    expect(Object.fromEntries(Object.entries(back))).to.deep.equal({ d: '2024-02-29', f: 1, s: 'x\u0000y' });
    expect(Object.keys(back)).to.deep.equal(['d', 'f', 's']);
    expect(propertyTypesOf(back)).to.deep.equal({ d: 'date', f: 'float' });
    expect(propertyTypesOf({ ...back }), 'a spread copy keeps them').to.deep.equal({ d: 'date', f: 'float' });
  });

  it('refuses damaged text, an unknown type and a type for a key the payload lacks, naming the payload', () => {
    for (const [text, message] of [
      ['{"a":', 'payload of point 7 is not valid JSON'],
      ['{"a":1}\u0000{"a":"money"}', 'unknown property type "money"'],
      ['{"a":1}\u0000{"b":"date"}', 'types a property it does not hold ("b")'],
      ['{"a":1}\u0000nope', 'payload of point 7 is not valid JSON'],
    ]) {
      expect(() => parsePayloadText(text!, 'the payload of point 7'), text).to.throw(CorruptDataError, message!);
    }
  });
});
