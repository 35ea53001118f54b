import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { temporalComponent } from '../../../query/cypher/temporal/accessors.js';
import { addDuration, addDurations, divideDuration, multiplyDuration, negate, subtractDuration } from '../../../query/cypher/temporal/arithmetic.js';
import { durationBetween, type BetweenUnit } from '../../../query/cypher/temporal/between.js';
import { compareTemporal, temporalEquals } from '../../../query/cypher/temporal/compare.js';
import { convertTemporal, dateTimeFromEpoch, dateTimeFromEpochMillis, temporalFromMap, type TargetKind } from '../../../query/cypher/temporal/construct.js';
import { durationOf } from '../../../query/cypher/temporal/duration.js';
import { formatTemporal } from '../../../query/cypher/temporal/format.js';
import { parseDate, parseDateTime, parseDuration, parseLocalDateTime, parseLocalTime, parseTime } from '../../../query/cypher/temporal/parse.js';
import { truncateTemporal } from '../../../query/cypher/temporal/truncate.js';
import type { CypherDuration, Temporal, TemporalOrDuration } from '../../../query/cypher/temporal/types.js';

/**
 * The temporal library against the openCypher TCK's own examples (../shared/tck/full, the
 * expressions/temporal features): each example's expressions are Cypher map and call syntax,
 * which is also JavaScript, so they are evaluated with the library's functions bound to the
 * Cypher names. The Cypher engine runs the same features end to end in spec/server/tck.spec.ts.
 */
const FEATURES = new URL('../../../../../shared/tck/full/expressions/temporal/', import.meta.url);

type Made = TemporalOrDuration;
const maker = (kind: TargetKind, parse: (s: string) => Temporal) =>
  Object.assign((x: string | Record<string, unknown> | Temporal) => (typeof x === 'string' ? parse(x) : 'kind' in x ? convertTemporal(kind, x as Temporal) : temporalFromMap(kind, x as Record<string, unknown>, 0)), {
    truncate: (unit: string, v: Temporal, map?: Record<string, unknown>) => truncateTemporal(kind, unit, v, map),
  });
const between = (unit: BetweenUnit) => (a: Temporal, b: Temporal) => durationBetween(a, b, unit);
const cypher = {
  date: maker('date', parseDate),
  localtime: maker('localtime', parseLocalTime),
  time: maker('time', (s) => parseTime(s)),
  localdatetime: maker('localdatetime', parseLocalDateTime),
  datetime: Object.assign(maker('datetime', (s) => parseDateTime(s)), { fromepoch: dateTimeFromEpoch, fromepochmillis: dateTimeFromEpochMillis }),
  duration: Object.assign((x: string | Record<string, number>) => (typeof x === 'string' ? parseDuration(x) : durationOf(x)), {
    between: between('all'),
    inMonths: between('months'),
    inDays: between('days'),
    inSeconds: between('seconds'),
  }),
};
const evaluate = (code: string): Made => new Function(...Object.keys(cypher), `return ${code}`)(...Object.values(cypher)) as Made;
const text = (v: Made): string => `'${formatTemporal(v)}'`;

interface Outline {
  name: string;
  query: string;
  rows: Record<string, string>[];
}

function outlines(feature: string): Outline[] {
  const source = readFileSync(new URL(`${feature}.feature`, FEATURES), 'utf8');
  return source
    .split(/\n {2}Scenario/)
    .slice(1)
    .map((block) => {
      const query = /"""\n([\s\S]*?)\n\s*"""\n\s*Then/.exec(block)?.[1]?.trim() ?? '';
      const table = (block.split('Examples:')[1] ?? '')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith('|'))
        .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
      const [head = [], ...data] = table;
      return { name: block.split('\n')[0]!.trim(), query, rows: data.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]!]))) };
    });
}

const fill = (template: string, row: Record<string, string>): string => template.replace(/<(\w+)>/g, (_, k: string) => row[k]!);

/** `WITH a AS x, b AS y RETURN expr AS result`, as JavaScript. */
function run(query: string): Made {
  const m = /^(?:WITH ([\s\S]*?)\n\s*)?RETURN ([\s\S]*) AS result$/.exec(query)!;
  let code = '';
  for (const a of (m[1] ?? '').matchAll(/\s*,?\s*([\s\S]*?[)\w]) AS (\w+)/g)) code += `const ${a[2]} = ${a[1]};`;
  return new Function(...Object.keys(cypher), `${code} return ${m[2]};`)(...Object.values(cypher)) as Made;
}

describe('query/cypher/temporal: the library against the TCK temporal examples', () => {
  for (const feature of ['Temporal1', 'Temporal2', 'Temporal3']) {
    it(`${feature}: builds each value from its map, string or other value and writes it as the TCK says`, () => {
      let n = 0;
      for (const o of outlines(feature)) {
        if (!/RETURN [\s\S]* AS result$/.test(o.query) && !o.query.includes('fromepoch')) continue;
        if (o.query.includes('fromepoch')) {
          expect(text(cypher.datetime.fromepoch(416779, 999999999))).to.equal("'1970-01-05T19:46:19.999999999Z'");
          expect(text(cypher.datetime.fromepochmillis(237821673987))).to.equal("'1977-07-15T13:34:33.987Z'");
          continue;
        }
        for (const row of o.rows) {
          expect(text(run(fill(o.query, row))), `${o.name}: ${fill(o.query, row)}`).to.equal(row.result);
          n++;
        }
      }
      expect(n).to.be.above(40);
    });
  }

  it('Temporal5: reads every component', () => {
    for (const block of readFileSync(new URL('Temporal5.feature', FEATURES), 'utf8').split(/\n {2}Scenario/).slice(1)) {
      const made = /CREATE \(:Val \{date: (.*)\}\)\n/.exec(block);
      const table = block.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('|'));
      if (!made || table.length < 2) continue;
      const v = evaluate(made[1]!);
      const [keys, values] = table.map((l) => l.split('|').slice(1, -1).map((c) => c.trim())) as [string[], string[]];
      keys.forEach((k, i) => {
        const got = temporalComponent(v, k.slice(2));
        expect(typeof got === 'string' ? `'${got}'` : String(got), `${made[1]}.${k}`).to.equal(values[i]);
      });
    }
  });

  it('Temporal6: writes durations as Neo4j does, and reads them back equal', () => {
    for (const o of outlines('Temporal6')) {
      for (const row of o.rows) {
        if (!row.map) continue;
        const d = cypher.duration(evaluate(`(${row.map})`) as unknown as Record<string, number>);
        expect(text(d)).to.equal(row.toString);
        expect(temporalEquals(parseDuration(formatTemporal(d)), d)).to.equal(true);
      }
    }
  });

  it('Temporal7: compares values of a kind, and durations for equality only', () => {
    for (const o of outlines('Temporal7')) {
      const kind = /WITH (\w+)\(<map>\) AS x/.exec(o.query)?.[1];
      for (const row of o.rows) {
        if (kind && row.map2) {
          const x = evaluate(`${kind}(${row.map})`);
          const d = evaluate(`${kind}(${row.map2})`);
          const c = compareTemporal(x, d)!;
          expect([c > 0, c < 0, c >= 0, c <= 0, temporalEquals(x, d)].map(String), `${kind} ${row.map} vs ${row.map2}`).to.deep.equal([row.gt, row.lt, row.ge, row.le, row.e]);
        } else if (row.other) {
          const x = evaluate('duration({years: 12, months: 5, days: 14, hours: 16, minutes: 12, seconds: 70})');
          expect(String(temporalEquals(x, evaluate(row.other))), row.other).to.equal(row.e);
        }
      }
    }
  });

  it('Temporal8: adds and subtracts durations, multiplies and divides them', () => {
    let n = 0;
    for (const o of outlines('Temporal8')) {
      const x = /WITH (.*) AS x/.exec(o.query)?.[1];
      for (const row of o.rows) {
        if (x) {
          const d = evaluate(`duration(${row.map})`) as CypherDuration;
          expect(text(addDuration(evaluate(x) as Temporal, d)), `${x} + ${row.map}`).to.equal(row.sum);
          expect(text(subtractDuration(evaluate(x) as Temporal, d)), `${x} - ${row.map}`).to.equal(row.diff);
        } else if (row.map1) {
          const a = evaluate(`duration(${row.map1})`) as CypherDuration;
          const b = evaluate(`duration(${row.map2})`) as CypherDuration;
          expect(text(addDurations(a, b))).to.equal(row.sum);
          expect(text(addDurations(a, negate(b)))).to.equal(row.diff);
        } else {
          const d = evaluate('duration({years: 12, months: 5, days: 14, hours: 16, minutes: 12, seconds: 70, nanoseconds: 1})') as CypherDuration;
          expect(text(multiplyDuration(d, Number(row.num1), !row.num1!.includes('.')))).to.equal(row.prod);
          expect(text(divideDuration(d, Number(row.num2)))).to.equal(row.div);
        }
        n++;
      }
    }
    expect(n).to.equal(27);
  });

  it('Temporal9: truncates to every unit, with the map set over it', () => {
    let n = 0;
    for (const o of outlines('Temporal9')) {
      for (const row of o.rows) {
        expect(text(run(fill(o.query, row))), fill(o.query, row)).to.equal(row.result);
        n++;
      }
    }
    expect(n).to.be.above(300);
  });

  it('Temporal10: computes durations between values, in every unit, across time zones and daylight saving', () => {
    let n = 0;
    for (const o of outlines('Temporal10')) {
      const call = /RETURN (duration\.\w+)\((<lhs>, <rhs>|localtime\(<lhs>\), localtime\(<rhs>\))\) AS (\w+)/.exec(o.query);
      const split = /WITH duration.between\(<d1>, <d2>\) AS dur/.test(o.query);
      for (const row of o.rows) {
        if (call) expect(text(evaluate(`${call[1]}(${fill(call[2]!, row)})`)), `${call[1]}(${fill(call[2]!, row)})`).to.equal(row.result ?? row.duration);
        else if (split) expect(text(evaluate(`duration.between(${row.d1}, ${row.d2})`))).to.equal(row.dur);
        else continue;
        n++;
      }
    }
    expect(n).to.be.above(100);
  });

  it('keeps a duration\'s seconds exact past 2^53, as a 64-bit integer (Temporal10 [10])', () => {
    const d = cypher.duration.inSeconds(parseLocalDateTime('-999999999-01-01'), parseLocalDateTime('+999999999-12-31T23:59:59'));
    expect(text(d)).to.equal("'PT17531639991215H59M59S'");
    expect(d.exactSeconds).to.equal(63_113_903_968_377_599n);
    expect(temporalComponent(d, 'seconds')).to.equal(63_113_903_968_377_599n);
    expect(temporalComponent(d, 'secondsOfMinute')).to.equal(59);
    expect(temporalComponent(d, 'hours')).to.equal(17_531_639_991_215);
    expect(() => temporalComponent(d, 'nanoseconds')).to.throw(/IntegerOverflow/);
    const back = negate(negate(d));
    expect(temporalEquals(back, d)).to.equal(true);
    expect(temporalEquals(addDurations(d, durationOf({ seconds: 1 })), d)).to.equal(false);
    expect(text(addDurations(d, durationOf({ seconds: 1 })))).to.equal("'PT17531639991216H'");
    expect(text(negate(d))).to.equal("'PT-17531639991215H-59M-59S'");
    expect(temporalEquals(parseDuration('PT17531639991215H59M59S'), d), 'read back from its text').to.equal(true);
  });

  it('reads nanoseconds of a duration past 2^53 nanoseconds exactly', () => {
    const d = durationOf({ hours: 5000, nanoseconds: 7 });
    expect(temporalComponent(d, 'nanoseconds')).to.equal(18_000_000_000_000_007n);
    expect(temporalComponent(d, 'milliseconds')).to.equal(18_000_000_000);
  });
});
