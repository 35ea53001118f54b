import { expect } from 'chai';
import { parseUpsertBody, parseUpsertBodyInSlices } from '../../../query/api/points-body.js';
import { DbError } from '../../../storage/errors.js';
import { rejection } from '../../helpers/rejection.js';

const DIM = 4;

/** A valid upsert of `n` points: integer ids and UUIDs (upper case, made canonical), payloads, labels, named vectors, packed ones. */
function body(n: number): { points: Record<string, unknown>[] } {
  return {
    points: Array.from({ length: n }, (_, i) => ({
      id: i % 5 === 0 ? `${String(i).padStart(8, '0')}-AAAA-4BBB-8CCC-DDDDEEEEFFFF` : i,
      vector: i % 7 === 0 ? { text: Float64Array.from({ length: DIM }, (_, d) => i + d) } : Array.from({ length: DIM }, (_, d) => i * d),
      payload: i % 3 === 0 ? { n: i, tags: ['a', String(i)] } : null,
      ...(i % 4 === 0 ? { labels: ['L'] } : {}),
    })),
  };
}

/** The 400's message a check fails with; a failed assertion when it accepts the body. */
async function refusal(parsing: Promise<unknown>): Promise<string> {
  const err = await rejection(parsing);
  expect(err).to.be.instanceOf(DbError);
  expect(err.code).to.equal(400);
  return err.message;
}

/** The whole body's check's refusal. */
const whole = (raw: unknown): Promise<string> => refusal((async () => parseUpsertBody(raw))());

describe('query/api: a large upsert checked a slice at a time on the request thread', () => {
  it('answers what the whole body\'s check answers, pausing between slices', async () => {
    let pauses = 0;
    const pause = async () => void pauses++;
    for (const n of [1, 64, 65, 1000]) {
      const raw = body(n);
      const sliced = await parseUpsertBodyInSlices(raw, 0, pause);
      expect(sliced).to.deep.equal(parseUpsertBody(raw));
      expect(sliced).to.have.length(n);
    }
    // 65 points: two slices; 1,000: sixteen (a slice of 0 ms pauses after each); 1 and 64: checked whole.
    expect(pauses).to.equal(2 + 16);
    expect((await parseUpsertBodyInSlices(body(10), 0, pause))[5]!.id).to.equal('00000005-aaaa-4bbb-8ccc-ddddeeeeffff');
  });

  it('refuses a bad point anywhere with the whole check\'s message, naming its place in the whole list', async () => {
    const never = async () => undefined;
    const cases: [string, (points: Record<string, unknown>[]) => void][] = [
      ['a bad number in the 700th point', (p) => ((p[700]!.vector as number[])[2] = 'x' as never)],
      ['a bad id in the 130th', (p) => (p[130]!.id = -3)],
      ['an unknown field in the 999th', (p) => (p[999]!.colour = 'red')],
      ['a payload that is no object in the 64th', (p) => (p[64]!.payload = 5)],
      ['a point that is no object', (p) => (p[200] = 7 as never)],
    ];
    for (const [what, spoil] of cases) {
      const raw = body(1000);
      spoil(raw.points);
      const message = await whole(raw);
      expect(await refusal(parseUpsertBodyInSlices(raw, 0, never)), what).to.equal(message);
    }
    expect(await whole(Object.assign(body(1000), { extra: 1 }))).to.match(/^unknown field "extra"/);
    expect(await refusal(parseUpsertBodyInSlices(Object.assign(body(1000), { extra: 1 }), 0, never))).to.equal(await whole(Object.assign(body(1000), { extra: 1 })));
    // Both: the point's problem first, as the whole body's check names it.
    const both = Object.assign(body(1000), { extra: 1 });
    (both.points[302]!.vector as number[])[0] = null as never;
    expect(await refusal(parseUpsertBodyInSlices(both, 0, never))).to.equal(await whole(both)).and.match(/^point 302: vector\[0\]/);
  });

  it('leaves the columnar form, and a list of a few points, to the whole check', async () => {
    let pauses = 0;
    const pause = async () => void pauses++;
    const columns = { batch: { ids: Array.from({ length: 500 }, (_, i) => i), vectors: Array.from({ length: 500 }, () => [1, 2, 3, 4]) } };
    expect(await parseUpsertBodyInSlices(columns, 0, pause)).to.deep.equal(parseUpsertBody(columns));
    expect(await refusal(parseUpsertBodyInSlices({ points: [] }, 0, pause))).to.equal(await whole({ points: [] }));
    expect(await refusal(parseUpsertBodyInSlices({ points: 'x' }, 0, pause))).to.equal(await whole({ points: 'x' }));
    expect(pauses).to.equal(0);
  });
});
