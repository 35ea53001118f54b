import { expect } from 'chai';
import { cypherGraph as graph } from '../../helpers/cypher-graph.js';
import neo4j from 'neo4j-driver';
import { CypherError } from '../../../query/cypher/errors.js';
import { parseLuceneQuery } from '../../../query/cypher/fulltext/parser.js';
import { editDistance } from '../../../query/cypher/fulltext/edit-distance.js';
import { normLength } from '../../../query/cypher/fulltext/scorer.js';
import { LuceneSyntaxError, LuceneUnsupportedError } from '../../../query/cypher/fulltext/syntax-error.js';
import { useTestServer } from '../../helpers/http.js';


/*
 * Four films. Field statistics the expectations below are worked from by hand:
 *   title:   4 documents, lengths 2, 3, 3, 2 (average 2.5); "matrix" and "the" in 3, "reloaded", "gun" in 1.
 *   tagline: 4 documents, lengths 5, 3, 8, 8 (average 6); "the" in 2 (once in film 1, twice in film 4).
 * BM25 (Lucene 9): idf = ln(1 + (N − df + 0.5) / (df + 0.5)); score = idf · tf / (tf + 1.2 · (0.25 + 0.75 · dl / avgdl)),
 * so the length term 1.2 · (0.25 + 0.75 · dl / avgdl) is 1.02 for a 2-word title, 1.38 for a 3-word one,
 * 1.05 for the 5-word tagline and 1.5 for an 8-word one.
 */
const MOVIES = `CREATE (:Movie {title: 'The Matrix', tagline: 'Welcome to the Real World'}),
  (:Movie {title: 'The Matrix Reloaded', tagline: 'Free your mind'}),
  (:Movie {title: 'The Matrix Revolutions', tagline: 'Everything that has a beginning has an end'}),
  (:Movie {title: 'Top Gun', tagline: 'I feel the need, the need for speed'})`;
const IDF_3_OF_4 = Math.log(1 + 1.5 / 3.5);
const IDF_2_OF_4 = Math.log(2);
const IDF_1_OF_4 = Math.log(1 + 3.5 / 1.5);

function movies() {
  const g = graph();
  g.run(MOVIES);
  g.run('CREATE FULLTEXT INDEX movieText FOR (m:Movie) ON EACH [m.title, m.tagline]');
  const search = (query: string, options: Record<string, unknown> = {}) =>
    g.rows('CALL db.index.fulltext.queryNodes($index, $query, $options) YIELD node, score RETURN node.title, score', { index: 'movieText', query, options }) as [string, number][];
  const titles = (query: string) => search(query).map((r) => r[0]);
  return { ...g, search, titles };
}

/** Rows of [title, score] compared with expected scores to 1e-9. */
function expectRanked(rows: [string, number][], expected: [string, number][]) {
  expect(rows.map((r) => r[0])).to.deep.equal(expected.map((e) => e[0]));
  rows.forEach((r, i) => expect(r[1], r[0]).to.be.closeTo(expected[i]![1], 1e-9));
}

function parseError(query: string): string {
  try {
    parseLuceneQuery(query);
  } catch (err) {
    if (err instanceof LuceneSyntaxError || err instanceof LuceneUnsupportedError) return err.message;
    throw err;
  }
  return expect.fail(`'${query}' parsed`);
}

describe('query/cypher/fulltext: Lucene query syntax for db.index.fulltext.queryNodes', () => {
  describe('parser', () => {
    it('names the offending token and its 0-based column, as Lucene ParseException does', () => {
      expect(parseError('matrix AND')).to.equal(`Cannot parse 'matrix AND': Encountered "<EOF>" at line 1, column 10. Was expecting a term, a "quoted phrase", a range or "(".`);
      expect(parseError('(matrix')).to.include('Encountered "<EOF>" at line 1, column 7. Was expecting ")"');
      expect(parseError('matrix )')).to.include('Encountered ")" at line 1, column 7.');
      expect(parseError('AND matrix')).to.include('Encountered "AND" at line 1, column 0.');
      expect(parseError('matrix || || gun')).to.include('Encountered "||" at line 1, column 10.');
      expect(parseError('matrix!')).to.include('Encountered "<EOF>" at line 1, column 7.');
      expect(parseError('title:')).to.include('at line 1, column 6.');
      expect(parseError('matrix^')).to.include('Was expecting a number after "^"');
      expect(parseError('[a')).to.include('Encountered "<EOF>" at line 1, column 2. Was expecting "TO"');
      expect(parseError('[a TO')).to.include('Encountered "<EOF>" at line 1, column 5. Was expecting a range bound');
      expect(parseError('')).to.include(`Cannot parse '': Encountered "<EOF>" at line 1, column 0.`);
      expect(parseError('"the matrix')).to.equal(`Cannot parse '"the matrix': Lexical error at line 1, column 11.  Encountered: <EOF> after : ""the matrix"`);
      expect(parseError('matrix\\')).to.include('Lexical error at line 1, column 7.');
      expect(parseError('x~1.5')).to.include('Fractional edit distances are not allowed!');
      expect(parseError('/ma.*x/')).to.include('regular expression queries (/ma.*x/ at column 0) are not supported');
      expect(parseError(`${'('.repeat(5000)}a${')'.repeat(5000)}`)).to.include('nests parentheses more than 200 levels deep (at column 200)');
      expect(parseLuceneQuery(`${'('.repeat(200)}a${')'.repeat(200)}`)).to.deep.include({ kind: 'term', text: 'a' });
    });

    it('builds clauses with the classic parser rules: OR by default, AND makes both sides required, NOT and - prohibit, + requires', () => {
      const occurs = (q: string) => {
        const tree = parseLuceneQuery(q)!;
        return tree.kind === 'boolean' ? tree.clauses.map((c) => `${c.occur}:${c.query.kind === 'term' ? c.query.text : c.query.kind}`) : [tree.kind];
      };
      expect(occurs('a b')).to.deep.equal(['should:a', 'should:b']);
      expect(occurs('a AND b')).to.deep.equal(['must:a', 'must:b']);
      expect(occurs('a && b')).to.deep.equal(['must:a', 'must:b']);
      expect(occurs('a OR b AND c')).to.deep.equal(['should:a', 'must:b', 'must:c']);
      expect(occurs('a AND NOT b')).to.deep.equal(['must:a', 'must_not:b']);
      expect(occurs('-a AND b')).to.deep.equal(['must_not:a', 'must:b']);
      expect(occurs('a !b +c -d')).to.deep.equal(['should:a', 'must_not:b', 'must:c', 'must_not:d']);
      expect(occurs('a')).to.deep.equal(['term']);
      expect(occurs('-a')).to.deep.equal(['must_not:a']);
      expect(occurs('a (b c)')).to.deep.equal(['should:a', 'should:boolean']);
    });

    it('reads fields, boosts, phrases with slop, prefixes, wildcards, fuzzy edits, ranges and escapes', () => {
      expect(parseLuceneQuery('title:(a b)^2')).to.deep.include({ kind: 'boolean', boost: 2 });
      expect(parseLuceneQuery('title:Matrix^1.5')).to.deep.equal({ kind: 'term', field: 'title', text: 'Matrix', boost: 1.5 });
      expect(parseLuceneQuery('"The Matrix"~2^3')).to.deep.equal({ kind: 'phrase', field: null, text: 'The Matrix', slop: 2, boost: 3 });
      expect(parseLuceneQuery('Matri*')).to.deep.equal({ kind: 'prefix', field: null, prefix: 'matri', boost: 1 });
      expect(parseLuceneQuery('matri~')).to.deep.equal({ kind: 'fuzzy', field: null, term: 'matri', maxEdits: 2, boost: 1 });
      expect(parseLuceneQuery('matri~1')).to.deep.include({ maxEdits: 1 });
      expect(parseLuceneQuery('matri~5')).to.deep.include({ maxEdits: 2 });
      // The old minimum-similarity form, in Java's float arithmetic: (1 − 0.7f) × 5 characters = 1.49… edits, so 1; 0.5 gives 2.
      expect(parseLuceneQuery('matri~0.7')).to.deep.include({ maxEdits: 1 });
      expect(parseLuceneQuery('matri~0.5')).to.deep.include({ maxEdits: 2 });
      expect(parseLuceneQuery('title:[a TO *}')).to.deep.equal({ kind: 'range', field: 'title', lower: 'a', upper: null, includeLower: true, includeUpper: false, boost: 1 });
      expect(parseLuceneQuery('nils-erik')).to.deep.equal({ kind: 'term', field: null, text: 'nils-erik', boost: 1 });
      expect(parseLuceneQuery('a\\:b\\!')).to.deep.equal({ kind: 'term', field: null, text: 'a:b!', boost: 1 });
      expect(parseLuceneQuery('*:*')).to.deep.equal({ kind: 'all', boost: 1 });
      const wild = parseLuceneQuery('M?tr*x');
      expect(wild?.kind).to.equal('wildcard');
      if (wild?.kind === 'wildcard') {
        expect(['matrix', 'mtrx', 'metrox'].map((t) => wild.pattern.test(t))).to.deep.equal([true, false, true]);
      }
      const literal = parseLuceneQuery('a\\*b*');
      expect(literal).to.deep.include({ kind: 'prefix', prefix: 'a*b' });
    });

    it('counts Damerau-Levenshtein edits (a swap of neighbours is one) and keeps long field lengths as Lucene norms do', () => {
      const d = (a: string, b: string) => editDistance([...a], [...b], 2);
      expect([d('matrix', 'matrix'), d('matri', 'matrix'), d('amtrix', 'matrix'), d('mtarix', 'matrix'), d('mat', 'matrix')]).to.deep.equal([0, 1, 1, 1, 3]);
      expect([normLength(5), normLength(23), normLength(31), normLength(40), normLength(41), normLength(100)]).to.deep.equal([5, 23, 31, 40, 40, 96]);
    });
  });

  describe('matching and ranking', () => {
    it('scores each property as its own field: a shorter title ranks higher, and a word in two properties adds both', () => {
      const { search } = movies();
      expectRanked(search('matrix'), [
        ['The Matrix', IDF_3_OF_4 / 2.02],
        ['The Matrix Reloaded', IDF_3_OF_4 / 2.38],
        ['The Matrix Revolutions', IDF_3_OF_4 / 2.38],
      ]);
      expectRanked(search('the'), [
        ['The Matrix', IDF_3_OF_4 / 2.02 + IDF_2_OF_4 / 2.05],
        ['Top Gun', (IDF_2_OF_4 * 2) / 3.5],
        ['The Matrix Reloaded', IDF_3_OF_4 / 2.38],
        ['The Matrix Revolutions', IDF_3_OF_4 / 2.38],
      ]);
      expectRanked(search('the matrix'), [
        ['The Matrix', (2 * IDF_3_OF_4) / 2.02 + IDF_2_OF_4 / 2.05],
        ['Top Gun', (IDF_2_OF_4 * 2) / 3.5],
        ['The Matrix Reloaded', (2 * IDF_3_OF_4) / 2.38],
        ['The Matrix Revolutions', (2 * IDF_3_OF_4) / 2.38],
      ]);
    });

    it('AND, OR, NOT, &&, ||, !, + and - decide which films match; the score sums the matching clauses', () => {
      const { search, titles } = movies();
      expectRanked(search('matrix AND reloaded'), [['The Matrix Reloaded', (IDF_3_OF_4 + IDF_1_OF_4) / 2.38]]);
      expect(titles('+matrix +reloaded')).to.deep.equal(['The Matrix Reloaded']);
      expect(titles('matrix && reloaded')).to.deep.equal(['The Matrix Reloaded']);
      for (const q of ['matrix -reloaded', 'matrix NOT reloaded', 'matrix && !reloaded', '+matrix -reloaded']) expect(titles(q), q).to.deep.equal(['The Matrix', 'The Matrix Revolutions']);
      expect(titles('reloaded OR gun')).to.deep.equal(['Top Gun', 'The Matrix Reloaded']);
      expect(titles('reloaded || gun')).to.deep.equal(['Top Gun', 'The Matrix Reloaded']);
      // A required clause makes the optional ones add score only.
      expectRanked(search('+gun matrix'), [['Top Gun', IDF_1_OF_4 / 2.02]]);
      expect(titles('NOT matrix')).to.deep.equal([]);
      expect(titles('-matrix')).to.deep.equal([]);
      expect(titles('(reloaded OR revolutions) AND matrix')).to.deep.equal(['The Matrix Reloaded', 'The Matrix Revolutions']);
      expect(titles('matrix AND (gun OR nothing)')).to.deep.equal([]);
    });

    it('phrases need their words in order and next to each other; a slop lets them move', () => {
      const { search, titles } = movies();
      expectRanked(search('"the matrix"'), [
        ['The Matrix', (2 * IDF_3_OF_4) / 2.02],
        ['The Matrix Reloaded', (2 * IDF_3_OF_4) / 2.38],
        ['The Matrix Revolutions', (2 * IDF_3_OF_4) / 2.38],
      ]);
      expect(titles('"matrix the"')).to.deep.equal([]);
      expect(titles('"the reloaded"')).to.deep.equal([]);
      expect(titles('"the reloaded"~1')).to.deep.equal(['The Matrix Reloaded']);
      expect(titles('"matrix the"~1')).to.deep.equal([]);
      // Swapped words are two moves apart; a sloppy match counts 1 / (1 + moves) = 1/3.
      expectRanked(search('"matrix the"~2', { limit: 1 }), [['The Matrix', (2 * IDF_3_OF_4 * (1 / 3)) / (1 / 3 + 1.02)]]);
      expect(titles('"need the need"')).to.deep.equal(['Top Gun']);
      // A phrase of one word is that word; of none, nothing.
      expect(search('"Matrix"')).to.deep.equal(search('matrix'));
      expect(titles('"!!"')).to.deep.equal([]);
    });

    it('prefixes and wildcards (a leading one too, as Neo4j allows) score their boost for each field they match', () => {
      const { search, titles } = movies();
      for (const q of ['matri*', 'Matri*', 'm?trix', 'ma*x', '*trix', '*atri?']) {
        expectRanked(search(q), [
          ['The Matrix', 1],
          ['The Matrix Reloaded', 1],
          ['The Matrix Revolutions', 1],
        ]);
      }
      // "the" is in film 1's title and tagline, in the other titles, and in Top Gun's tagline.
      expectRanked(search('the*'), [
        ['The Matrix', 2],
        ['The Matrix Reloaded', 1],
        ['The Matrix Revolutions', 1],
        ['Top Gun', 1],
      ]);
      expect(titles('matrix?')).to.deep.equal([]);
      expect(titles('xyz*')).to.deep.equal([]);
      expectRanked(search('title:*'), [
        ['The Matrix', 1],
        ['The Matrix Reloaded', 1],
        ['The Matrix Revolutions', 1],
        ['Top Gun', 1],
      ]);
      expect(search('*:*').map((r) => r[1])).to.deep.equal([1, 1, 1, 1]);
      expectRanked(search('title:[reloaded TO revolutions]^2'), [
        ['The Matrix Reloaded', 2],
        ['The Matrix Revolutions', 2],
      ]);
      expect(titles('title:{reloaded TO revolutions]')).to.deep.equal(['The Matrix Revolutions']);
    });

    it('fuzzy terms match within their edits, weighted by similarity, transpositions counting once', () => {
      const { search, titles } = movies();
      // "matri" is 1 edit from "matrix": similarity 1 − 1/5.
      expectRanked(search('matri~'), [
        ['The Matrix', (0.8 * IDF_3_OF_4) / 2.02],
        ['The Matrix Reloaded', (0.8 * IDF_3_OF_4) / 2.38],
        ['The Matrix Revolutions', (0.8 * IDF_3_OF_4) / 2.38],
      ]);
      expect(titles('amtrix~1')).to.deep.equal(['The Matrix', 'The Matrix Reloaded', 'The Matrix Revolutions']);
      expect(titles('mtrx~1')).to.deep.equal([]);
      expect(titles('mtrx~2')).to.deep.equal(['The Matrix', 'The Matrix Reloaded', 'The Matrix Revolutions']);
      expect(titles('matrix~0')).to.deep.equal(['The Matrix', 'The Matrix Reloaded', 'The Matrix Revolutions']);
      expect(titles('matrx~0')).to.deep.equal([]);
    });

    it('a fuzzy term scores every term it expands to with their largest document frequency (Lucene blends them)', () => {
      const g = graph();
      g.run("UNWIND ['colour', 'color', 'color', 'paint'] AS t CREATE (:Doc {text: t})");
      g.run('CREATE FULLTEXT INDEX docs FOR (d:Doc) ON EACH [d.text]');
      // One-word fields of average length 1: tf / (tf + 1.2) = 1/2.2; "color" is in 2 of 4 documents.
      const rows = g.rows("CALL db.index.fulltext.queryNodes('docs', 'colour~1') YIELD node, score RETURN node.text, score") as [string, number][];
      expectRanked(rows, [
        ['colour', IDF_2_OF_4 / 2.2],
        ['color', (0.8 * IDF_2_OF_4) / 2.2],
        ['color', (0.8 * IDF_2_OF_4) / 2.2],
      ]);
    });

    it('indexes a list of strings as one field holding all its strings (Neo4j indexes STRING and LIST<STRING>)', () => {
      const g = graph();
      g.run(`CREATE (:Employee {name: 'Nils-Erik Karlsson', team: 'Kernel', peerReviews: ['Nils-Erik is difficult to work with.', 'Nils-Erik is often late for work.']}),
        (:Employee {name: 'Nils Johansson', team: 'Operations', peerReviews: [1, 2]}), (:Employee {name: 'Maya Tanaka', team: 'Operations'})`);
      g.run('CREATE FULLTEXT INDEX people FOR (n:Employee) ON EACH [n.name, n.team, n.peerReviews]');
      const search = (query: string) => g.rows('CALL db.index.fulltext.queryNodes("people", $query) YIELD node, score RETURN node.name, score', { query }) as [string, number][];
      // One document has the field (a list of numbers is not indexed), 14 tokens long: the average, so the length term is 1.2.
      expectRanked(search('late'), [['Nils-Erik Karlsson', Math.log(1 + 0.5 / 1.5) / 2.2]]);
      expect(search('peerReviews:(difficult AND late)').map((r) => r[0])).to.deep.equal(['Nils-Erik Karlsson']);
      expect(search('peerReviews:1')).to.deep.equal([]);
      // "nils" in a longer name, but also twice in the reviews: the two fields add up.
      expect(search('nils').map((r) => r[0])).to.deep.equal(['Nils-Erik Karlsson', 'Nils Johansson']);
    });

    it('a field name restricts a clause to that property; a name the index does not have matches nothing', () => {
      const { search, titles } = movies();
      expect(search('title:matrix')).to.deep.equal(search('matrix'));
      expectRanked(search('tagline:the'), [
        ['Top Gun', (IDF_2_OF_4 * 2) / 3.5],
        ['The Matrix', IDF_2_OF_4 / 2.05],
      ]);
      expect(titles('tagline:matrix')).to.deep.equal([]);
      expect(titles('year:matrix')).to.deep.equal([]);
      expect(titles('matrix AND year:1999')).to.deep.equal([]);
      expect(titles('matrix OR year:1999')).to.have.length(3);
      expect(titles('title:(reloaded OR gun)')).to.deep.equal(['Top Gun', 'The Matrix Reloaded']);
      expect(titles('tagline:"the need"')).to.deep.equal(['Top Gun']);
    });

    it('boosts multiply a clause or a group, and escaped special characters are plain text', () => {
      const { search, titles } = movies();
      expectRanked(search('matrix gun^3'), [
        ['Top Gun', (3 * IDF_1_OF_4) / 2.02],
        ['The Matrix', IDF_3_OF_4 / 2.02],
        ['The Matrix Reloaded', IDF_3_OF_4 / 2.38],
        ['The Matrix Revolutions', IDF_3_OF_4 / 2.38],
      ]);
      expectRanked(search('(reloaded gun)^2', { limit: 1 }), [['Top Gun', (2 * IDF_1_OF_4) / 2.02]]);
      expect(titles('reloaded\\!')).to.deep.equal(['The Matrix Reloaded']);
      expect(titles('\\(reloaded\\)')).to.deep.equal(['The Matrix Reloaded']);
      expect(titles('world\\:real')).to.deep.equal(['The Matrix']);
      expect(titles('&')).to.deep.equal([]);
      expect(titles('reloaded - gun')).to.deep.equal(['Top Gun', 'The Matrix Reloaded']);
    });

    it('keeps limit and skip, and refuses a syntax error as ProcedureCallFailed with the ParseException message', () => {
      const { search, run } = movies();
      expect(search('the', { skip: 1, limit: 2 }).map((r) => r[0])).to.deep.equal(['Top Gun', 'The Matrix Reloaded']);
      for (const q of ['matrix AND', '"the matrix', '(matrix', 'matrix)', 'OR']) {
        let caught: unknown = null;
        try {
          run('CALL db.index.fulltext.queryNodes($index, $query) YIELD node RETURN node', { index: 'movieText', query: q });
        } catch (err) {
          caught = err;
        }
        expect(caught, q).to.be.instanceOf(CypherError);
        expect((caught as CypherError).detail).to.equal('ProcedureCallFailed');
        expect((caught as CypherError).message, q).to.include(`org.apache.lucene.queryparser.classic.ParseException: Cannot parse '${q}'`);
      }
    });
  });

  describe('over Bolt with neo4j-driver', () => {
    const server = useTestServer({}, 'all');

    it('ranks, combines and refuses as Neo4j does', async () => {
      const driver = neo4j.driver(`bolt://127.0.0.1:${server.service.boltPort}`, neo4j.auth.basic('neo4j', 'any'));
      try {
        await driver.executeQuery(MOVIES);
        await driver.executeQuery('CREATE FULLTEXT INDEX movieText FOR (m:Movie) ON EACH [m.title, m.tagline]');
        const search = async (query: string) =>
          (await driver.executeQuery('CALL db.index.fulltext.queryNodes("movieText", $query) YIELD node, score RETURN node.title AS title, score', { query })).records.map(
            (r) => [r.get('title'), r.get('score')] as [string, number],
          );
        expectRanked(await search('matrix'), [
          ['The Matrix', IDF_3_OF_4 / 2.02],
          ['The Matrix Reloaded', IDF_3_OF_4 / 2.38],
          ['The Matrix Revolutions', IDF_3_OF_4 / 2.38],
        ]);
        expect((await search('matrix AND reloaded')).map((r) => r[0])).to.deep.equal(['The Matrix Reloaded']);
        expect(await search('matri*')).to.have.length(3);
        expect(await search('matri~')).to.have.length(3);
        const failure = await search('matrix AND').then(
          () => null,
          (e: { code: string; message: string }) => e,
        );
        expect(failure?.code).to.equal('Neo.ClientError.Procedure.ProcedureCallFailed');
        expect(failure?.message).to.include(`Cannot parse 'matrix AND': Encountered "<EOF>" at line 1, column 10.`);
      } finally {
        await driver.close();
      }
    });
  });
});
