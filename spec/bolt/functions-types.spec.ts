import { expect } from 'chai';
import neo4j, { type Driver } from 'neo4j-driver';
import { useTestServer } from '../helpers/http.js';

describe('bolt: Cypher functions answer Neo4j 5 types to neo4j-driver', () => {
  const server = useTestServer({}, 'each');
  let driver: Driver;
  beforeEach(() => {
    driver = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
  });
  afterEach(() => driver.close());

  it('sends percentileDisc of integers, size, char_length and timestamp as INTEGER, and round, percentileCont and toFloatList as FLOAT', async () => {
    const { records } = await driver.executeQuery(
      "UNWIND [10, 20, 30, 40] AS x RETURN percentileDisc(x, 0.5) AS disc, percentileCont(x, 0.5) AS cont, round(2, 1, 'HALF_EVEN') AS rounded, size('😀') AS size, char_length('a😀') AS chars, timestamp() AS ts, toFloatList([1]) AS floats",
    );
    const r = records[0]!;
    expect(neo4j.isInt(r.get('disc')), 'percentileDisc of integers is an INTEGER').to.equal(true);
    expect(r.get('disc').toNumber()).to.equal(20);
    expect(r.get('cont')).to.equal(25);
    expect(neo4j.isInt(r.get('cont'))).to.equal(false);
    expect(r.get('rounded')).to.equal(2);
    expect(neo4j.isInt(r.get('rounded')), 'round() answers a FLOAT').to.equal(false);
    expect(r.get('size').toNumber()).to.equal(1);
    expect(r.get('chars').toNumber()).to.equal(2);
    expect(neo4j.isInt(r.get('ts'))).to.equal(true);
    expect(neo4j.isInt(r.get('floats')[0])).to.equal(false);
  });

  it('answers sum() of durations as a Duration', async () => {
    const { records } = await driver.executeQuery("UNWIND [duration('P1D'), duration('PT36H')] AS d RETURN sum(d) AS total, avg(d) AS mean");
    expect(neo4j.isDuration(records[0]!.get('total'))).to.equal(true);
    expect(String(records[0]!.get('total')), 'days and seconds stay apart, as in Neo4j').to.equal('P1DT36H');
    expect(String(records[0]!.get('mean')), 'half a day carries into the seconds').to.equal('PT30H');
  });

  it('refuses LIMIT $l sent as a JavaScript number with ArgumentError, saying to send neo4j.int, and takes neo4j.int', async () => {
    const session = driver.session();
    try {
      const err = (await session.run('UNWIND [1, 2, 3] AS x RETURN x LIMIT $l', { l: 2 }).catch((e: unknown) => e)) as { code: string; message: string };
      expect(err.code).to.equal('Neo.ClientError.Statement.ArgumentError');
      expect(err.message).to.include("'2.0' is not a valid value").and.include('neo4j.int(2)');
      const { records } = await session.run('UNWIND [1, 2, 3] AS x RETURN x LIMIT $l', { l: neo4j.int(2) });
      expect(records.map((r) => r.get('x').toNumber())).to.deep.equal([1, 2]);
    } finally {
      await session.close();
    }
  });
});
