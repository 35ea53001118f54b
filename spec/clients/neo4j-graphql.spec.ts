import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { Neo4jGraphQL } from '@neo4j/graphql';
import { graphql, type GraphQLSchema } from 'graphql';
import neo4j, { type Driver } from 'neo4j-driver';
import { useTestServer } from '../helpers/http.js';

// The Neo4j GraphQL Library writes every query itself: `CYPHER 5` in front, CALL subqueries,
// apoc.util.validate and validatePredicate for its rules, apoc.date.convertFormat for DateTimes.
const typeDefs = `#graphql
  type JWT @jwt { roles: [String!]! }
  type Movie @node {
    title: String!
    released: Int
    premiere: DateTime
    actors: [Person!]! @relationship(type: "ACTED_IN", direction: IN, properties: "ActedIn")
    words: Int @cypher(statement: "RETURN size(split(this.title, ' ')) AS n", columnName: "n")
  }
  type Person @node { name: String!, movies: [Movie!]! @relationship(type: "ACTED_IN", direction: OUT, properties: "ActedIn") }
  type ActedIn @relationshipProperties { roles: [String!] }
  type Secret @node @authorization(validate: [{ where: { node: { owner: { eq: "$jwt.sub" } } } }]) { text: String!, owner: String! }
`;

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
function token(sub: string): string {
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub, roles: [] })}`;
  return `${head}.${createHmac('sha256', 'secret').update(head).digest('base64url')}`;
}

describe('clients: the Neo4j GraphQL Library (@neo4j/graphql 7) over Bolt, changing nothing but the URL', function () {
  this.timeout(60_000);
  // One server for the suite: each test writes nodes of its own (the DateTime test filters on a property only it sets).
  const s = useTestServer();
  let driver: Driver;
  let neoSchema: Neo4jGraphQL;
  let schema: GraphQLSchema;

  before(async () => {
    driver = neo4j.driver(`bolt://127.0.0.1:${s.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
    neoSchema = new Neo4jGraphQL({ typeDefs, driver, features: { authorization: { key: 'secret' } } });
    schema = await neoSchema.getSchema();
  });
  after(() => driver.close());

  async function run(source: string, who = 'alice'): Promise<Record<string, unknown>> {
    const result = await graphql({ schema, source, contextValue: { token: token(who) } });
    expect(result.errors?.map((e) => e.message), source).to.equal(undefined);
    return result.data as Record<string, unknown>;
  }

  it('checkNeo4jCompat finds the version and the APOC functions it needs', async () => {
    await neoSchema.checkNeo4jCompat();
  });

  it('creates, reads with filters, sorts, pages, aggregates, updates with arithmetic and deletes', async () => {
    await run(`mutation { createMovies(input: [
      { title: "The Matrix", released: 1999, actors: { create: [{ node: { name: "Keanu" }, edge: { roles: ["Neo"] } }, { node: { name: "Carrie" }, edge: { roles: ["Trinity"] } }] } },
      { title: "John Wick", released: 2014, actors: { connect: [{ where: { node: { name: { eq: "Keanu" } } }, edge: { roles: ["John"] } }] } }
    ]) { movies { title } } }`);
    expect(await run('{ movies(sort: [{ released: DESC }]) { title words actorsConnection { edges { properties { roles } node { name } } } } }')).to.deep.equal({
      movies: [
        { title: 'John Wick', words: 2, actorsConnection: { edges: [{ properties: { roles: ['John'] }, node: { name: 'Keanu' } }] } },
        {
          title: 'The Matrix',
          words: 2,
          actorsConnection: { edges: [{ properties: { roles: ['Neo'] }, node: { name: 'Keanu' } }, { properties: { roles: ['Trinity'] }, node: { name: 'Carrie' } }] },
        },
      ],
    });
    expect(await run('{ people(where: { movies: { some: { released: { gt: 2000 } } } }) { name } }')).to.deep.equal({ people: [{ name: 'Keanu' }] });
    expect(await run('{ moviesConnection(first: 1, sort: [{ title: ASC }]) { totalCount edges { node { title } } pageInfo { hasNextPage } } }')).to.deep.equal({
      moviesConnection: { totalCount: 2, edges: [{ node: { title: 'John Wick' } }], pageInfo: { hasNextPage: true } },
    });
    expect(await run('{ moviesConnection { aggregate { node { released { min max average } } } } }')).to.deep.equal({
      moviesConnection: { aggregate: { node: { released: { min: 1999, max: 2014, average: 2006.5 } } } },
    });
    // `add` is guarded by apoc.util.validate (an overflow check).
    expect(await run('mutation { updateMovies(where: { title: { eq: "John Wick" } }, update: { released: { add: 1 } }) { movies { released } } }')).to.deep.equal({
      updateMovies: { movies: [{ released: 2015 }] },
    });
    expect(await run('mutation { deleteMovies(where: { title: { eq: "John Wick" } }) { nodesDeleted relationshipsDeleted } }')).to.deep.equal({
      deleteMovies: { nodesDeleted: 1, relationshipsDeleted: 1 },
    });
  });

  it('writes and reads DateTimes through apoc.date.convertFormat, the offset kept', async () => {
    await run('mutation { createMovies(input: [{ title: "Speed", premiere: "1994-06-10T10:00:00.5+02:00" }]) { movies { title } } }');
    expect(await run('{ movies(where: { premiere: { gt: "1994-06-10T07:59:59Z" } }) { premiere } }')).to.deep.equal({ movies: [{ premiere: '1994-06-10T08:00:00.500Z' }] });
    expect(await run('{ movies(where: { premiere: { gt: "1994-06-10T08:00:01Z" } }) { premiere } }')).to.deep.equal({ movies: [] });
    const session = driver.session();
    try {
      const stored = await session.run('MATCH (m:Movie {title: "Speed"}) RETURN toString(m.premiere) AS text');
      expect(stored.records[0]!.get('text')).to.equal('1994-06-10T10:00:00.500+02:00');
    } finally {
      await session.close();
    }
  });

  it('refuses a read its @authorization rule does not allow with Forbidden, read from apoc.util.validatePredicate\'s failure', async () => {
    await run('mutation { createSecrets(input: [{ text: "s", owner: "bob" }]) { secrets { text } } }', 'bob');
    expect(await run('{ secrets { text } }', 'bob')).to.deep.equal({ secrets: [{ text: 's' }] });
    const denied = await graphql({ schema, source: '{ secrets { text } }', contextValue: { token: token('alice') } });
    expect(denied.errors?.map((e) => e.message)).to.deep.equal(['Forbidden']);
  });
});
