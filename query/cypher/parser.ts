import type { BinaryOp, Clause, CompareOp, Expr, NodePattern, PathSelector, PatternPart, Projection, ProjectionItem, ProjectionItemOf, Query, RelPattern, SetItem, SortItem, YieldItem } from './ast.js';
import { MAX_NESTING, nestingTooDeep } from './depth.js';
import { compileError, CypherError, unsupported, type Position } from './errors.js';
import { tokenize, type Token } from './lexer.js';
import { namesJoinedBy, type LabelExpr } from './label-expr.js';
import { CONSTRAINT_DEFAULT_COLUMNS, FUNCTION_DEFAULT_COLUMNS, INDEX_DEFAULT_COLUMNS, PROCEDURE_DEFAULT_COLUMNS } from './procedures/show-columns.js';

const UNSUPPORTED_CLAUSES = new Set(['LOAD', 'USE']);
/** Clause keywords: never read as a variable, so a missing expression is reported where it is. */
const RESERVED = new Set(['MATCH', 'OPTIONAL', 'RETURN', 'WITH', 'WHERE', 'CREATE', 'MERGE', 'UNION', 'DELETE', 'DETACH', 'SET', 'REMOVE', 'UNWIND', 'ORDER', 'SKIP', 'LIMIT', 'CALL', 'YIELD', 'FOREACH', ...UNSUPPORTED_CLAUSES]);
/** Clause words that open the body of EXISTS { } or COUNT { } written as a query. */
const SUBQUERY_STARTS = new Set(['MATCH', 'OPTIONAL', 'WITH', 'UNWIND', 'CALL', 'RETURN']);
const matchOf = (patterns: PatternPart[], where: Expr | null, pos: Position): Clause => ({ kind: 'match', optional: false, patterns, where, pos });
/** Words after CREATE that start a schema command rather than a pattern. */
const SCHEMA_WORDS = new Set(['INDEX', 'CONSTRAINT', 'VECTOR', 'RANGE', 'TEXT', 'POINT', 'FULLTEXT', 'LOOKUP', 'BTREE']);
const COMPARE_OPS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);
/** The versions `CYPHER n` may name: Neo4j 5's language, and Cypher 25 (read the same way here). */
const CYPHER_VERSIONS = ['5', '25'];
/** Neo4j 5's query options (`CYPHER runtime=slotted ...`) and their values, by lowercase name. */
const CYPHER_OPTIONS = new Map(
  Object.entries({
    planner: ['cost', 'idp', 'dp'],
    runtime: ['slotted', 'pipelined', 'parallel'],
    expressionEngine: ['default', 'interpreted', 'compiled'],
    operatorEngine: ['default', 'interpreted', 'compiled'],
    interpretedPipesFallback: ['default', 'disabled', 'whitelisted_plans_only', 'all'],
    replan: ['default', 'force', 'skip'],
    connectComponentsPlanner: ['greedy', 'idp'],
  }).map(([name, values]) => [name.toLowerCase(), { name, values }]),
);

/** The types a type predicate tests, by every name Neo4j gives them. */
const TYPE_NAMES = new Map([
  ['ANY', 'ANY'],
  ['NULL', 'NULL'],
  ['NOTHING', 'NOTHING'],
  ['BOOL', 'BOOLEAN'],
  ['BOOLEAN', 'BOOLEAN'],
  ['STRING', 'STRING'],
  ['VARCHAR', 'STRING'],
  ['INT', 'INTEGER'],
  ['INTEGER', 'INTEGER'],
  ['SIGNED INTEGER', 'INTEGER'],
  ['INT64', 'INTEGER'],
  ['FLOAT', 'FLOAT'],
  ['FLOAT64', 'FLOAT'],
  ['LIST', 'LIST'],
  ['MAP', 'MAP'],
  ['NODE', 'NODE'],
  ['ANY NODE', 'NODE'],
  ['VERTEX', 'NODE'],
  ['RELATIONSHIP', 'RELATIONSHIP'],
  ['ANY RELATIONSHIP', 'RELATIONSHIP'],
  ['EDGE', 'RELATIONSHIP'],
  ['PATH', 'PATH'],
  ['POINT', 'POINT'],
  ['DATE', 'DATE'],
  ['DURATION', 'DURATION'],
  ['LOCAL DATETIME', 'LOCAL DATETIME'],
  ['LOCAL TIME', 'LOCAL TIME'],
  ['ZONED DATETIME', 'ZONED DATETIME'],
  ['ZONED TIME', 'ZONED TIME'],
]);

const describe = (t: Token): string => (t.kind === 'eof' ? 'the end of the query' : `'${t.text}'`);

/** Recursive descent over the tokens, building the AST; each error names where and what was expected. */
class Parser {
  private i = 0;
  /** Whether `|` may join labels in an expression (`n:A|B`): not in a comprehension's WHERE, where it starts the mapping. */
  private labelBars = true;
  /** How many expressions the parser is inside (its recursion depth, bounded by MAX_NESTING). */
  private depth = 0;

  constructor(private readonly source: string, private readonly tokens: Token[]) {}

  private get tok(): Token {
    return this.tokens[this.i]!;
  }

  private peek(ahead = 1): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)]!;
  }

  private pos(t: Token = this.tok): Position {
    return { line: t.line, column: t.column };
  }

  private fail(expected: string, t: Token = this.tok): never {
    throw compileError('UnexpectedSyntax', `expected ${expected} but found ${describe(t)}`, this.pos(t));
  }

  private isOp(op: string, t: Token = this.tok): boolean {
    return t.kind === 'op' && t.value === op;
  }

  private isKeyword(word: string, t: Token = this.tok): boolean {
    return t.kind === 'ident' && !t.quoted && t.value.toUpperCase() === word;
  }

  private acceptOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.i++;
    return true;
  }

  private acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.i++;
    return true;
  }

  private expectOp(op: string): Token {
    if (!this.isOp(op)) this.fail(`'${op}'`);
    return this.tokens[this.i++]!;
  }

  private expectKeyword(word: string): void {
    if (!this.acceptKeyword(word)) this.fail(word);
  }

  /** A name: variable, label, type, property key, alias (keywords are allowed where a name is expected). */
  private name(what: string): string {
    if (this.tok.kind !== 'ident') this.fail(what);
    return this.tokens[this.i++]!.value;
  }

  private textFrom(start: Token): string {
    return this.source.slice(start.offset, this.tokens[this.i - 1]!.end);
  }

  query(): Query {
    const explain = this.queryOptions();
    const clauses = this.part();
    const unions: Query['unions'] = [];
    for (let pos = this.pos(); this.acceptKeyword('UNION'); pos = this.pos()) unions.push({ all: this.acceptKeyword('ALL'), clauses: this.part(), pos });
    this.acceptOp(';');
    if (this.tok.kind !== 'eof') this.fail('the end of the query');
    const only = clauses[0]!;
    if (clauses.length === 1 && unions.length === 0 && only.kind === 'procedure') only.standalone = true;
    return explain ? { explain, clauses, unions } : { clauses, unions };
  }

  /**
   * What Neo4j reads before the statement, in any order: `CYPHER [5 | 25] [option=value ...]` (the
   * version and the planner's and runtime's choices: one engine runs every query here, so a known
   * option changes nothing; an unknown one is refused by name) and one EXPLAIN or PROFILE.
   */
  private queryOptions(): Query['explain'] {
    let explain: Query['explain'];
    for (;;) {
      if (this.acceptKeyword('CYPHER')) this.cypherOptions();
      else if (!explain && this.acceptKeyword('EXPLAIN')) explain = 'explain';
      else if (!explain && this.acceptKeyword('PROFILE')) explain = 'profile';
      else return explain;
    }
  }

  private cypherOptions(): void {
    const version = this.tok;
    if (version.kind === 'int' || version.kind === 'float') {
      if (!CYPHER_VERSIONS.includes(version.text)) throw compileError('UnexpectedSyntax', `Cypher ${version.text} is not a version this server runs: write CYPHER 5 or CYPHER 25, or no version`, this.pos());
      this.i++;
    }
    while (this.tok.kind === 'ident' && this.isOp('=', this.peek())) {
      const option = this.tokens[this.i]!;
      const known = CYPHER_OPTIONS.get(option.value.toLowerCase());
      if (!known) throw compileError('UnexpectedSyntax', `Unsupported query option '${option.value}': the options are ${[...CYPHER_OPTIONS.values()].map((o) => o.name).join(', ')}`, this.pos(option));
      this.i += 2;
      const value = this.tok;
      if (value.kind !== 'ident' || !known.values.includes(value.value.toLowerCase())) {
        throw compileError('UnexpectedSyntax', `${known.name}=${value.text || 'nothing'} is not a value of that query option: it takes ${known.values.join(', ')}`, this.pos(value));
      }
      this.i++;
    }
  }

  /** The clauses of one part of a query, up to a UNION, the end, or the `}` closing a subquery. */
  private part(): Clause[] {
    const clauses: Clause[] = [];
    while (this.tok.kind !== 'eof' && !this.isOp(';') && !this.isOp('}') && !this.isKeyword('UNION')) clauses.push(this.clause());
    if (clauses.length === 0) this.fail('a clause such as MATCH, CREATE or RETURN');
    return clauses;
  }

  /** CALL [(imports)] { ... } [IN TRANSACTIONS [OF n ROWS]] or CALL name.space(args) [YIELD ...]. */
  private callClause(pos: Position): Clause {
    const imports = this.isOp('(') ? this.importList() : null;
    if (imports || this.acceptOp('{')) {
      // CALL (x, y) { ... } is CALL { WITH x, y ... } in each part; CALL () imports nothing, CALL (*) everything.
      const prefix = (): Clause[] => {
        if (imports === null || imports.star) return [];
        const items = imports.names.map(({ name, at }) => ({ expr: { kind: 'var', name, pos: at } as Expr, name, aliased: true }));
        return [{ kind: 'with', projection: { distinct: false, star: false, items, orderBy: [], skip: null, limit: null, pos }, where: null, pos }];
      };
      const body = [...prefix(), ...this.part()];
      const unions: Query['unions'] = [];
      for (let at = this.pos(); this.acceptKeyword('UNION'); at = this.pos()) unions.push({ all: this.acceptKeyword('ALL'), clauses: [...prefix(), ...this.part()], pos: at });
      this.expectOp('}');
      // Batches of a subquery in transactions are one transaction here: the whole query is one log entry.
      if (this.acceptKeyword('IN')) {
        this.expectKeyword('TRANSACTIONS');
        if (this.acceptKeyword('OF')) {
          this.expr();
          if (!this.acceptKeyword('ROWS')) this.expectKeyword('ROW');
        }
        if (this.isKeyword('ON') || this.isKeyword('REPORT')) throw unsupported(`${this.tok.value.toUpperCase()} in CALL { } IN TRANSACTIONS`, this.pos());
      }
      return { kind: 'subquery', body, unions, pos };
    }
    let name = this.name('a procedure name');
    while (this.acceptOp('.')) name += '.' + this.name('a procedure name');
    const args: Expr[] = [];
    if (this.acceptOp('(')) {
      if (!this.isOp(')')) {
        do args.push(this.expr());
        while (this.acceptOp(','));
      }
      this.expectOp(')');
    }
    return { kind: 'procedure', name: name.toLowerCase(), args, ...this.yieldPart(), standalone: false, pos };
  }

  /** `(x, y) {`, `() {` or `(*) {` after CALL: the variables a scoped subquery imports (its `{` read too). */
  private importList(): { star: boolean; names: { name: string; at: Position }[] } {
    this.expectOp('(');
    const names: { name: string; at: Position }[] = [];
    const star = this.acceptOp('*');
    if (!star && !this.isOp(')')) {
      do {
        const at = this.pos();
        names.push({ name: this.name('a variable to import'), at });
      } while (this.acceptOp(','));
    }
    this.expectOp(')');
    if (!this.isOp('{')) this.fail("'{' opening the subquery (CALL (x) { ... }); a procedure is called by its name, CALL db.labels()");
    this.i++;
    return { star, names };
  }

  /** YIELD * | YIELD a [AS b], ... [WHERE p]; nothing at all means every column. */
  private yieldPart(): { yields: YieldItem[] | null; where: Expr | null } {
    let yields: YieldItem[] | null = null;
    if (this.acceptKeyword('YIELD')) {
      if (!this.acceptOp('*')) {
        yields = [];
        do {
          const name = this.name('a column name after YIELD');
          yields.push({ name, alias: this.acceptKeyword('AS') ? this.name('a variable name after AS') : name });
        } while (this.acceptOp(','));
      }
    }
    const where = this.acceptKeyword('WHERE') ? this.expr() : null;
    return { yields, where };
  }

  /** SHOW [kind] INDEXES | CONSTRAINTS [YIELD ...] [WHERE ...]: a procedure listing the schema. */
  private showClause(pos: Position): Clause {
    const admin = this.administrationShow(pos);
    if (admin) return admin;
    let kind: string | null = null;
    const isSchemaWord = (t: Token) => ['INDEX', 'INDEXES', 'CONSTRAINT', 'CONSTRAINTS'].some((w) => this.isKeyword(w, t));
    if (!isSchemaWord(this.tok)) {
      // A word before INDEXES or CONSTRAINTS is their kind; followed by neither, it is a SHOW this server does not have.
      if (!isSchemaWord(this.peek())) this.fail('INDEXES, CONSTRAINTS, DATABASES, PROCEDURES, FUNCTIONS or CURRENT USER after SHOW');
      kind = this.name('INDEXES or CONSTRAINTS').toUpperCase();
    }
    const what = this.name('INDEXES or CONSTRAINTS').toUpperCase();
    const lit = (value: string | null): Expr => ({ kind: 'literal', value, pos });
    const procedure = what === 'INDEX' || what === 'INDEXES' ? '$show.indexes' : what === 'CONSTRAINT' || what === 'CONSTRAINTS' ? '$show.constraints' : this.fail('INDEXES or CONSTRAINTS', this.tokens[this.i - 1]);
    // Without YIELD, the default columns (YIELD * answers them all).
    const yielded = this.isKeyword('YIELD');
    const part = this.yieldPart();
    const defaults = procedure === '$show.indexes' ? INDEX_DEFAULT_COLUMNS : CONSTRAINT_DEFAULT_COLUMNS;
    const yields = yielded ? part.yields : defaults.map((name) => ({ name, alias: name }));
    return { kind: 'procedure', name: procedure, args: [lit(kind === 'ALL' ? null : kind)], yields, where: part.where, standalone: false, pos };
  }

  /**
   * SHOW DATABASE[S] [name], SHOW DEFAULT | HOME DATABASE, SHOW CURRENT USER, SHOW [ALL] PROCEDURE[S] | FUNCTION[S]
   * [YIELD ...] [WHERE ...]: the administration commands (null: another SHOW).
   */
  private administrationShow(pos: Position): Clause | null {
    const show = (name: string, args: Expr[]): Clause => ({ kind: 'procedure', name, args, ...this.yieldPart(), standalone: false, pos });
    if (this.acceptKeyword('DATABASES') || this.acceptKeyword('DATABASE')) {
      const named = this.tok.kind === 'ident' && !this.isKeyword('YIELD') && !this.isKeyword('WHERE');
      return show('$show.databases', [{ kind: 'literal', value: named ? this.name("a database's name") : null, pos }]);
    }
    if (this.isKeyword('CURRENT') && this.isKeyword('USER', this.peek())) {
      this.i += 2;
      return show('$show.current.user', []);
    }
    if ((this.isKeyword('DEFAULT') || this.isKeyword('HOME')) && this.isKeyword('DATABASE', this.peek())) {
      this.i += 2;
      return show('$show.default.database', []);
    }
    const all = this.isKeyword('ALL') && ['PROCEDURE', 'PROCEDURES', 'FUNCTION', 'FUNCTIONS'].some((w) => this.isKeyword(w, this.peek())) ? 1 : 0;
    const what = this.peek(all);
    if (this.isKeyword('PROCEDURE', what) || this.isKeyword('PROCEDURES', what) || this.isKeyword('FUNCTION', what) || this.isKeyword('FUNCTIONS', what)) {
      const procedures = this.isKeyword('PROCEDURE', what) || this.isKeyword('PROCEDURES', what);
      this.i += all + 1;
      // Without YIELD, the default columns (YIELD * answers them all).
      const yielded = this.isKeyword('YIELD');
      const part = this.yieldPart();
      const defaults = procedures ? PROCEDURE_DEFAULT_COLUMNS : FUNCTION_DEFAULT_COLUMNS;
      const yields = yielded ? part.yields : defaults.map((name) => ({ name, alias: name }));
      return { kind: 'procedure', name: procedures ? '$show.procedures' : '$show.functions', args: [], yields, where: part.where, standalone: false, pos };
    }
    return null;
  }

  /** DROP INDEX | CONSTRAINT name [IF EXISTS] */
  private dropClause(pos: Position): Clause {
    const what = this.name('INDEX or CONSTRAINT').toUpperCase();
    if (what !== 'INDEX' && what !== 'CONSTRAINT') this.fail('INDEX or CONSTRAINT', this.tokens[this.i - 1]);
    const name = this.name(`the ${what.toLowerCase()}'s name`);
    let ifExists = false;
    if (this.acceptKeyword('IF')) {
      this.expectKeyword('EXISTS');
      ifExists = true;
    }
    const args: Expr[] = [{ kind: 'literal', value: name, pos }, { kind: 'literal', value: ifExists, pos }];
    return { kind: 'procedure', name: what === 'INDEX' ? '$drop.index' : '$drop.constraint', args, yields: [], where: null, standalone: false, pos };
  }

  /**
   * CREATE [VECTOR | RANGE | TEXT | POINT] INDEX [name] [IF NOT EXISTS] FOR (n:L) ON (n.p, ...) [OPTIONS {...}],
   * CREATE FULLTEXT INDEX [name] [IF NOT EXISTS] FOR (n:L[|M...]) ON EACH [n.p, ...] [OPTIONS {...}]
   * or CREATE CONSTRAINT [name] [IF NOT EXISTS] FOR (n:L) REQUIRE n.p IS UNIQUE (or (n.a, n.b) IS NODE KEY, IS NOT NULL).
   */
  private createSchema(pos: Position): Clause {
    let kind = 'RANGE';
    if (!this.isKeyword('INDEX') && !this.isKeyword('CONSTRAINT')) kind = this.name('INDEX').toUpperCase();
    const what = this.name('INDEX or CONSTRAINT').toUpperCase();
    if (what !== 'INDEX' && what !== 'CONSTRAINT') this.fail('INDEX or CONSTRAINT', this.tokens[this.i - 1]);
    if (kind === 'LOOKUP') throw unsupported('LOOKUP indexes (every label is looked up by the label index already)', pos);
    let name: string | null = null;
    if (!this.isKeyword('FOR') && !this.isKeyword('IF') && !this.isKeyword('ON')) name = this.name(`the ${what.toLowerCase()}'s name`);
    let ifNotExists = false;
    if (this.acceptKeyword('IF')) {
      this.expectKeyword('NOT');
      this.expectKeyword('EXISTS');
      ifNotExists = true;
    }
    if (!this.acceptKeyword('FOR')) this.expectKeyword('ON');
    this.expectOp('(');
    if (this.isOp(')')) throw unsupported('indexes and constraints on relationships', pos);
    const variable = this.name('a variable');
    this.expectOp(':');
    const labels = [this.name('a label')];
    // A full-text index may cover several labels: FOR (n:A|B).
    while (kind === 'FULLTEXT' && what === 'INDEX' && this.acceptOp('|')) labels.push(this.name('a label after |'));
    this.expectOp(')');
    if (this.isOp('-') || this.isOp('<-')) throw unsupported('indexes and constraints on relationships', pos);
    const properties: string[] = [];
    const property = () => {
      const v = this.name('a variable');
      if (v !== variable) this.fail(`\`${variable}.\``, this.tokens[this.i - 1]);
      this.expectOp('.');
      properties.push(this.name('a property name'));
    };
    let rule = '';
    if (what === 'INDEX' && kind === 'FULLTEXT') {
      this.expectKeyword('ON');
      this.expectKeyword('EACH');
      this.expectOp('[');
      do property();
      while (this.acceptOp(','));
      this.expectOp(']');
    } else if (what === 'INDEX') {
      this.expectKeyword('ON');
      const wrapped = this.acceptOp('(');
      do property();
      while (wrapped && this.acceptOp(','));
      if (wrapped) this.expectOp(')');
    } else {
      this.expectKeyword('REQUIRE');
      const wrapped = this.acceptOp('(');
      do property();
      while (wrapped && this.acceptOp(','));
      if (wrapped) this.expectOp(')');
      this.expectKeyword('IS');
      if (this.acceptKeyword('UNIQUE')) rule = 'UNIQUENESS';
      else if (this.acceptKeyword('NODE')) {
        this.expectKeyword('KEY');
        rule = 'NODE_KEY';
      } else if (this.acceptKeyword('NOT')) {
        this.expectKeyword('NULL');
        rule = 'NODE_PROPERTY_EXISTENCE';
      } else this.fail('UNIQUE, NODE KEY or NOT NULL');
    }
    const options: Expr = this.acceptKeyword('OPTIONS') ? this.mapLiteral() : { kind: 'map', entries: [], pos };
    const lit = (value: string | boolean | null): Expr => ({ kind: 'literal', value, pos });
    const props: Expr = { kind: 'list', items: properties.map((p) => lit(p)), pos };
    const args = [lit(name), lit(what === 'INDEX' ? kind : rule), lit(labels[0]!), props, options, lit(ifNotExists)];
    if (labels.length > 1) args.push({ kind: 'list', items: labels.map((l) => lit(l)), pos });
    return { kind: 'procedure', name: what === 'INDEX' ? '$create.index' : '$create.constraint', args, yields: [], where: null, standalone: false, pos };
  }

  private clause(): Clause {
    const t = this.tok;
    const word = t.kind === 'ident' && !t.quoted ? t.value.toUpperCase() : '';
    const pos = this.pos();
    if (UNSUPPORTED_CLAUSES.has(word)) throw unsupported(word, pos);
    switch (word) {
      case 'MATCH':
        this.i++;
        return this.match(false, pos);
      case 'OPTIONAL':
        this.i++;
        this.expectKeyword('MATCH');
        return this.match(true, pos);
      case 'UNWIND': {
        this.i++;
        const expr = this.expr();
        this.expectKeyword('AS');
        return { kind: 'unwind', expr, alias: this.name('a variable name after AS'), pos };
      }
      case 'WITH': {
        this.i++;
        const projection = this.projection(pos);
        const where = this.acceptKeyword('WHERE') ? this.expr() : null;
        return { kind: 'with', projection, where, pos };
      }
      case 'RETURN':
        this.i++;
        return { kind: 'return', projection: this.projection(pos), pos };
      case 'CREATE':
        this.i++;
        if (this.tok.kind === 'ident' && !this.tok.quoted && SCHEMA_WORDS.has(this.tok.value.toUpperCase())) return this.createSchema(pos);
        return { kind: 'create', patterns: refuseInlineWhere(this.patternList(), 'CREATE'), pos };
      case 'CALL':
        this.i++;
        return this.callClause(pos);
      case 'FOREACH': {
        this.i++;
        this.expectOp('(');
        const variable = this.name('a variable');
        this.expectKeyword('IN');
        const list = this.expr();
        this.expectOp('|');
        const body: Clause[] = [];
        while (!this.isOp(')')) {
          if (this.tok.kind === 'eof') this.fail("')' closing FOREACH");
          body.push(this.clause());
        }
        this.i++;
        if (body.length === 0) this.fail('an updating clause (CREATE, MERGE, SET, REMOVE, DELETE or FOREACH)');
        return { kind: 'foreach', variable, list, body, pos };
      }
      case 'SHOW':
        this.i++;
        return this.showClause(pos);
      case 'DROP':
        this.i++;
        return this.dropClause(pos);
      case 'MERGE': {
        this.i++;
        const [pattern] = refuseInlineWhere([this.patternPart()], 'MERGE') as [PatternPart];
        const onCreate: SetItem[] = [];
        const onMatch: SetItem[] = [];
        while (this.acceptKeyword('ON')) {
          const when = this.acceptKeyword('CREATE') ? onCreate : (this.expectKeyword('MATCH'), onMatch);
          this.expectKeyword('SET');
          when.push(...this.setItems());
        }
        return { kind: 'merge', pattern, onCreate, onMatch, pos };
      }
      case 'SET':
        this.i++;
        return { kind: 'set', items: this.setItems(), pos };
      case 'REMOVE':
        this.i++;
        return { kind: 'remove', items: this.removeItems(), pos };
      case 'DETACH':
        this.i++;
        this.expectKeyword('DELETE');
        return { kind: 'delete', detach: true, exprs: this.exprList(), pos };
      case 'DELETE':
        this.i++;
        return { kind: 'delete', detach: false, exprs: this.exprList(), pos };
      default:
        return this.fail('a clause (MATCH, OPTIONAL MATCH, UNWIND, WITH, RETURN, CREATE, MERGE, SET, REMOVE, DELETE, CALL, SHOW, DROP)');
    }
  }

  private match(optional: boolean, pos: Position): Clause {
    const patterns = this.patternList();
    const where = hoistWheres(patterns, this.acceptKeyword('WHERE') ? this.expr() : null);
    return { kind: 'match', optional, patterns, where, pos };
  }

  private exprList(): Expr[] {
    const list = [this.expr()];
    while (this.acceptOp(',')) list.push(this.expr());
    return list;
  }

  private projection(pos: Position): Projection {
    const distinct = this.acceptKeyword('DISTINCT');
    let star = false;
    const items: ProjectionItem[] = [];
    if (this.acceptOp('*')) {
      star = true;
      if (this.acceptOp(',')) items.push(...this.projectionItems());
    } else {
      items.push(...this.projectionItems());
    }
    const orderBy: SortItem[] = [];
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY');
      do {
        const expr = this.expr();
        let descending = false;
        if (this.acceptKeyword('DESC') || this.acceptKeyword('DESCENDING')) descending = true;
        else if (!this.acceptKeyword('ASC')) this.acceptKeyword('ASCENDING');
        orderBy.push({ expr, descending });
      } while (this.acceptOp(','));
    }
    const skip = this.acceptKeyword('SKIP') ? this.expr() : null;
    const limit = this.acceptKeyword('LIMIT') ? this.expr() : null;
    return { distinct, star, items, orderBy, skip, limit, pos };
  }

  private projectionItems(): ProjectionItem[] {
    const items: ProjectionItem[] = [];
    do {
      const start = this.tok;
      const expr = this.expr();
      const text = this.textFrom(start);
      if (this.acceptKeyword('AS')) items.push({ expr, name: this.name('a column name after AS'), aliased: true });
      else items.push({ expr, name: text, aliased: false });
    } while (this.acceptOp(','));
    return items;
  }

  private setItems(): SetItem[] {
    const items: SetItem[] = [];
    do {
      const pos = this.pos();
      const target = this.atomWithPostfix();
      // `n:A:B` reads as a label test; here it names the labels to set.
      if (target.kind === 'hasLabels') {
        if (target.expr) throw compileError('InvalidLabelExpression', 'SET takes labels joined by : (n:A:B), not a label expression', target.pos);
        items.push({ kind: 'labels', target: target.arg, key: '', value: null, labels: target.labels, pos });
        continue;
      }
      if (target.kind !== 'prop') {
        if (this.acceptOp('=')) items.push({ kind: 'replace', target, key: '', value: this.expr(), labels: [], pos });
        else if (this.acceptOp('+=')) items.push({ kind: 'merge', target, key: '', value: this.expr(), labels: [], pos });
        else this.fail("'=', '+=' or labels after the variable");
        continue;
      }
      this.expectOp('=');
      items.push({ kind: 'property', target: target.object, key: target.key, value: this.expr(), labels: [], pos });
    } while (this.acceptOp(','));
    return items;
  }

  private removeItems(): SetItem[] {
    const items: SetItem[] = [];
    do {
      const pos = this.pos();
      const target = this.atomWithPostfix();
      if (target.kind === 'hasLabels' && target.expr) throw compileError('InvalidLabelExpression', 'REMOVE takes labels joined by : (n:A:B), not a label expression', target.pos);
      if (target.kind === 'hasLabels') items.push({ kind: 'labels', target: target.arg, key: '', value: null, labels: target.labels, pos });
      else if (target.kind === 'prop') items.push({ kind: 'property', target: target.object, key: target.key, value: null, labels: [], pos });
      else this.fail('a property (n.name) or labels (n:Label) to remove');
    } while (this.acceptOp(','));
    return items;
  }

  // ---- patterns ----

  private patternList(): PatternPart[] {
    const parts = [this.patternPart()];
    while (this.acceptOp(',')) parts.push(this.patternPart());
    return parts;
  }

  private patternPart(): PatternPart {
    const pos = this.pos();
    let pathVariable: string | null = null;
    if (this.tok.kind === 'ident' && this.isOp('=', this.peek())) {
      pathVariable = this.name('a path name');
      this.i++;
    }
    const word = this.tok.kind === 'ident' && !this.tok.quoted && this.isOp('(', this.peek()) ? this.tok.value.toLowerCase() : '';
    if (word === 'shortestpath' || word === 'allshortestpaths') {
      this.i += 2;
      const inner = this.patternPart();
      if (inner.pathVariable !== null || inner.shortest || inner.selector) this.fail("a pattern such as (a)-[*]-(b) inside the path function", this.tokens[this.i - 1]);
      this.expectOp(')');
      return { ...inner, pathVariable, shortest: word === 'shortestpath' ? 'one' : 'all', pos };
    }
    const selector = this.pathSelector();
    const whole = selector ? this.parenthesisedPath() : null;
    if (whole) {
      if (whole.pathVariable !== null && pathVariable !== null) throw compileError('InvalidPathPattern', `the path is named twice (${pathVariable} and ${whole.pathVariable}); keep one name`, whole.pos);
      const part: PatternPart = { pathVariable: pathVariable ?? whole.pathVariable, nodes: whole.nodes, rels: whole.rels, selector: selector!, pos };
      if (whole.where) part.where = whole.where;
      return part;
    }
    const { nodes, rels, written } = this.pathElements();
    if (written === 0 && rels.every((r) => r.length!.min === 0)) {
      throw compileError('InvalidPathPattern', 'a path pattern must match at least one element: a quantified path pattern on its own needs a lower bound of at least 1, e.g. ((a)-->(b)){1,10}, or a node pattern beside it', pos);
    }
    const part: PatternPart = { pathVariable, nodes, rels, pos };
    if (selector) part.selector = selector;
    return part;
  }

  /**
   * A path selector before a pattern (Neo4j 5): SHORTEST k [GROUPS], ALL SHORTEST, ANY
   * SHORTEST, ANY [k], each optionally followed by PATH or PATHS. ALL [PATHS] selects every path,
   * as no selector does: null.
   */
  private pathSelector(): PathSelector | null {
    const pos = this.pos();
    const one: Expr = { kind: 'literal', value: 1, pos };
    const count = (): Expr | null => {
      const t = this.tok;
      if (t.kind === 'int') {
        this.i++;
        return { kind: 'literal', value: t.big ?? t.num, pos: this.pos(t) };
      }
      if (t.kind === 'param') {
        this.i++;
        return { kind: 'param', name: t.value, pos: this.pos(t) };
      }
      return null;
    };
    const noise = () => this.acceptKeyword('PATH') || this.acceptKeyword('PATHS');
    if (this.acceptKeyword('ALL')) {
      const shortest = this.acceptKeyword('SHORTEST');
      noise();
      return shortest ? { kind: 'groups', count: one, pos } : null;
    }
    if (this.acceptKeyword('ANY')) {
      if (this.acceptKeyword('SHORTEST')) {
        noise();
        return { kind: 'shortest', count: one, pos };
      }
      const k = count();
      noise();
      return { kind: 'any', count: k ?? one, pos };
    }
    if (!this.acceptKeyword('SHORTEST')) return null;
    const k = count();
    noise();
    if (this.acceptKeyword('GROUP') || this.acceptKeyword('GROUPS')) return { kind: 'groups', count: k ?? one, pos };
    if (k === null) this.fail('the number of paths (SHORTEST 2) or GROUPS (SHORTEST 2 GROUPS) after SHORTEST');
    return { kind: 'shortest', count: k, pos };
  }

  /**
   * A whole path pattern in parentheses after a selector, `SHORTEST 1 (p = (a)-->+(b) WHERE
   * length(p) > 2)`; null (nothing read) when the parentheses open a quantified path pattern.
   */
  private parenthesisedPath(): Parenthesised | null {
    if (!this.opensParenthesised()) return null;
    const start = this.i;
    const whole = this.parenthesised();
    if (whole.quantifier) {
      this.i = start;
      return null;
    }
    if (this.isOp('(') || this.isOp('-') || this.isOp('<-')) throw compileError('InvalidPathPattern', 'a parenthesised path pattern without a quantifier must be the whole pattern, e.g. SHORTEST 1 ((a)-->+(b) WHERE ...)', this.pos());
    return whole;
  }

  /** Whether a parenthesised path starts here, `((` or `(p =`, rather than a node pattern. */
  private opensParenthesised(): boolean {
    return this.isOp('(') && (this.isOp('(', this.peek()) || (this.peek().kind === 'ident' && this.isOp('=', this.peek(2))));
  }

  /** `( [p =] pattern [WHERE e] )` and the quantifier after it, if any. */
  private parenthesised(): Parenthesised {
    const pos = this.pos();
    this.expectOp('(');
    let pathVariable: string | null = null;
    if (this.tok.kind === 'ident' && this.isOp('=', this.peek())) {
      pathVariable = this.name('a path name');
      this.i++;
    }
    const { nodes, rels } = this.nested(() => this.pathElements());
    const where = this.acceptKeyword('WHERE') ? this.expr() : null;
    this.expectOp(')');
    return { pathVariable, nodes, rels, where, pos, quantifier: this.relationshipQuantifier() };
  }

  /**
   * Node patterns joined by relationships, and quantified path patterns `((a)-->(b)){1,3}`
   * beside them. A node the text leaves out (before, between or after groups) is an anonymous
   * one, so that nodes.length === rels.length + 1 holds. `written`: node patterns in the text.
   */
  private pathElements(): { nodes: NodePattern[]; rels: RelPattern[]; written: number } {
    const nodes: NodePattern[] = [];
    const rels: RelPattern[] = [];
    let written = 0;
    const anonymous = (pos: Position): NodePattern => ({ variable: null, labels: [], properties: null, pos });
    for (;;) {
      if (this.opensParenthesised()) {
        const group = this.parenthesised();
        if (nodes.length === rels.length) nodes.push(anonymous(group.pos));
        rels.push(groupStep(group));
        continue;
      }
      if (nodes.length === rels.length) {
        if (rels.length > 0 && !this.isOp('(')) {
          if (this.isOp('-') || this.isOp('<-')) throw compileError('InvalidRelationshipPattern', 'a relationship after a quantified path pattern needs a node pattern before it, e.g. ((a)-->(b))+ (c)-[:T]->(d)', this.pos());
          break;
        }
        nodes.push(this.nodePattern());
        written++;
        continue;
      }
      if (this.isOp('-') || this.isOp('<-') || this.isOp('<->')) {
        rels.push(this.relPattern());
        nodes.push(this.nodePattern());
        written++;
        continue;
      }
      if (this.isOp('(')) throw compileError('InvalidPathPattern', 'two node patterns cannot stand side by side, e.g. (a)-->(b) (c)-->(d): join them with a relationship, or separate the patterns with a comma', this.pos());
      break;
    }
    if (nodes.length === rels.length) nodes.push(anonymous(this.pos()));
    return { nodes, rels, written };
  }

  /**
   * `:A:B`, `:A&B`, `:A|B`, `:!A`, `:%`, `:(A|B)&!C` after a node's variable or in an expression:
   * a conjunction of names comes back as `labels`, anything else as `expr`. `bars`: whether `|`
   * may join labels (not in the WHERE of a comprehension, where it starts the mapping).
   */
  private labelPart(bars: boolean): { labels: string[]; expr?: LabelExpr } {
    const parts: LabelExpr[] = [];
    while (this.acceptOp(':')) parts.push(this.labelExpression(bars));
    const whole: LabelExpr = parts.length === 1 ? parts[0]! : { kind: 'and', args: parts };
    if (parts.length === 0) return { labels: [] };
    const names = namesJoinedBy(whole, 'and');
    return names ? { labels: names } : { labels: [], expr: whole };
  }

  private labelExpression(bars: boolean): LabelExpr {
    return this.nested(() => {
      const args = [this.labelConjunction(bars)];
      // `:A|:B` is the older spelling of `:A|B`.
      while (bars && this.acceptOp('|')) {
        this.acceptOp(':');
        args.push(this.labelConjunction(bars));
      }
      return args.length === 1 ? args[0]! : { kind: 'or', args };
    });
  }

  private labelConjunction(bars: boolean): LabelExpr {
    const args = [this.labelFactor(bars)];
    while (this.acceptOp('&')) args.push(this.labelFactor(bars));
    return args.length === 1 ? args[0]! : { kind: 'and', args };
  }

  private labelFactor(bars: boolean): LabelExpr {
    if (this.acceptOp('!')) return { kind: 'not', arg: this.nested(() => this.labelFactor(bars)) };
    if (this.acceptOp('%')) return { kind: 'any' };
    if (this.acceptOp('(')) {
      const e = this.labelExpression(true);
      this.expectOp(')');
      return e;
    }
    return { kind: 'name', name: this.name('a label name, !, % or (') };
  }

  /** WHERE opening an element's inline predicate, rather than a variable named `where` (followed by `)`, `]`, `:`, `{`, `$`). */
  private startsInlineWhere(): boolean {
    return this.isKeyword('WHERE') && !(this.peek().kind === 'param' || [')', ']', ':', '{', '*'].some((op) => this.isOp(op, this.peek())));
  }

  private propertiesOrParam(): Expr | null {
    if (this.isOp('{')) return this.mapLiteral();
    if (this.tok.kind === 'param') {
      const t = this.tokens[this.i++]!;
      return { kind: 'param', name: t.value, pos: this.pos(t) };
    }
    return null;
  }

  private nodePattern(): NodePattern {
    const pos = this.pos();
    this.expectOp('(');
    const variable = this.tok.kind === 'ident' && !this.startsInlineWhere() ? this.name('a variable') : null;
    const { labels, expr } = this.labelPart(true);
    const properties = this.propertiesOrParam();
    const where = this.acceptKeyword('WHERE') ? this.expr() : null;
    if (!this.isOp(')')) {
      this.fail(variable === null && labels.length === 0 ? "a variable, a label, properties, WHERE or ')'" : "')'");
    }
    this.i++;
    const node: NodePattern = { variable, labels, properties, pos };
    if (expr) node.labelExpr = expr;
    if (where) node.where = where;
    return node;
  }

  private relPattern(): RelPattern {
    const pos = this.pos();
    if (this.isOp('<->')) this.fail("'<-' or '-' (a relationship pattern)");
    const left = this.isOp('<-');
    this.i++;
    let variable: string | null = null;
    let types: string[] = [];
    let properties: Expr | null = null;
    let length: RelPattern['length'] = null;
    let typeExpr: LabelExpr | null = null;
    let where: Expr | null = null;
    if (this.acceptOp('[')) {
      if (this.tok.kind === 'ident' && !this.startsInlineWhere()) variable = this.name('a variable');
      if (this.acceptOp(':')) {
        const expr = this.labelExpression(true);
        const names = namesJoinedBy(expr, 'or');
        if (names) types = names;
        else typeExpr = expr;
      }
      if (this.acceptOp('*')) length = this.lengthRange();
      else if (this.isOp('..') || this.tok.kind === 'int') {
        throw compileError('InvalidRelationshipPattern', "a variable length is written with '*', e.g. -[:T*1..3]->", this.pos());
      }
      properties = this.propertiesOrParam();
      if (this.acceptKeyword('WHERE')) {
        if (length) throw compileError('InvalidRelationshipPattern', 'a variable-length relationship cannot have a WHERE inside it; test its relationships in the MATCH\'s WHERE, e.g. all(x IN r WHERE ...)', this.pos(this.tokens[this.i - 1]));
        where = this.expr();
      }
      this.expectOp(']');
    }
    let right = false;
    if (this.acceptOp('->')) right = true;
    else this.expectOp('-');
    const quantified = this.relationshipQuantifier();
    if (quantified && length) throw compileError('InvalidRelationshipPattern', 'a relationship with a variable length (*) cannot also be quantified', quantified.at);
    const rel: RelPattern = { variable, types, properties, direction: left && !right ? 'in' : right && !left ? 'out' : 'both', length, pos };
    if (typeExpr) rel.typeExpr = typeExpr;
    if (!quantified) {
      if (where) rel.where = where;
      return rel;
    }
    const bounds = { min: quantified.min, max: quantified.max };
    if (!where) return { ...rel, length: bounds };
    // With a WHERE, which reads its variable as one relationship, it is the quantified path pattern it abbreviates: (()-[r WHERE ...]->())+.
    const anonymous = (): NodePattern => ({ variable: null, labels: [], properties: null, pos });
    return { variable: null, types: [], properties: null, direction: 'out', length: bounds, group: { nodes: [anonymous(), anonymous()], rels: [rel], where, pos }, pos };
  }

  /**
   * A quantifier after a relationship (Neo4j 5's quantified relationship): `{n}`, `{n,}`, `{,m}`,
   * `{n,m}`, `+` (1 or more) or `*` (0 or more). The relationship is then the variable-length
   * one it equals, `-[:T]->{1,3}` being `-[:T*1..3]->`.
   */
  private relationshipQuantifier(): { min: number; max: number; at: Position } | null {
    const at = this.pos();
    if (this.acceptOp('+')) return { min: 1, max: Infinity, at };
    if (this.acceptOp('*')) return { min: 0, max: Infinity, at };
    if (!this.acceptOp('{')) return null;
    const bound = (): number | null => (this.tok.kind === 'int' ? this.tokens[this.i++]!.num : null);
    const min = bound();
    const max = this.acceptOp(',') ? bound() : min;
    this.expectOp('}');
    if ((min === null && max === null) || (max !== null && min !== null && max < min)) throw compileError('InvalidRelationshipPattern', 'a quantifier takes bounds {n}, {n,}, {,m} or {n,m} with n <= m', at);
    if (max === 0) throw compileError('InvalidRelationshipPattern', 'a quantifier must allow at least one repetition', at);
    return { min: min ?? 0, max: max ?? Infinity, at };
  }

  private lengthRange(): { min: number; max: number } {
    const int = (): number | null => {
      if (this.isOp('-')) throw compileError('InvalidRelationshipPattern', 'the bounds of a variable length are whole numbers of at least 0', this.pos());
      if (this.tok.kind !== 'int') return null;
      return this.tokens[this.i++]!.num;
    };
    const low = int();
    if (this.acceptOp('..')) {
      const high = int();
      return { min: low ?? 1, max: high ?? Infinity };
    }
    return low === null ? { min: 1, max: Infinity } : { min: low, max: low };
  }

  // ---- expressions, loosest binding first ----

  expr(): Expr {
    return this.nested(() => this.or());
  }

  private nested<T>(parse: () => T): T {
    if (this.depth >= MAX_NESTING) throw nestingTooDeep(this.tok.line, this.tok.column);
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private withoutLabelBars<T>(parse: () => T): T {
    return this.withBars(false, parse);
  }

  private withLabelBars<T>(parse: () => T): T {
    return this.withBars(true, parse);
  }

  private withBars<T>(bars: boolean, parse: () => T): T {
    const was = this.labelBars;
    this.labelBars = bars;
    try {
      return parse();
    } finally {
      this.labelBars = was;
    }
  }

  private binaryChain(next: () => Expr, word: string, op: BinaryOp): Expr {
    let left = next();
    while (this.isKeyword(word)) {
      const pos = this.pos();
      this.i++;
      left = { kind: 'binary', op, left, right: next(), pos };
    }
    return left;
  }

  private or(): Expr {
    return this.binaryChain(() => this.xor(), 'OR', 'or');
  }

  private xor(): Expr {
    return this.binaryChain(() => this.and(), 'XOR', 'xor');
  }

  private and(): Expr {
    return this.binaryChain(() => this.not(), 'AND', 'and');
  }

  private not(): Expr {
    if (this.isKeyword('NOT')) {
      const pos = this.pos();
      this.i++;
      return { kind: 'unary', op: 'not', arg: this.nested(() => this.not()), pos };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const first = this.predicates();
    const ops: CompareOp[] = [];
    const args = [first];
    while (this.tok.kind === 'op' && COMPARE_OPS.has(this.tok.value)) {
      const v = this.tokens[this.i++]!.value;
      ops.push(v === '!=' ? '<>' : (v as CompareOp));
      args.push(this.predicates());
    }
    const compared: Expr = ops.length === 0 ? first : { kind: 'compare', ops, args, pos: first.pos };
    if (this.acceptOp('=~')) return { kind: 'binary', op: '=~', left: compared, right: this.predicates(), pos: first.pos };
    return compared;
  }

  /** STARTS WITH, ENDS WITH, CONTAINS, IN, IS [NOT] NULL (bind tighter than comparisons). */
  private predicates(): Expr {
    let left = this.additive();
    for (;;) {
      const pos = this.pos();
      if (this.isKeyword('STARTS') && this.isKeyword('WITH', this.peek())) {
        this.i += 2;
        left = { kind: 'binary', op: 'starts', left, right: this.additive(), pos };
      } else if (this.isKeyword('ENDS') && this.isKeyword('WITH', this.peek())) {
        this.i += 2;
        left = { kind: 'binary', op: 'ends', left, right: this.additive(), pos };
      } else if (this.acceptKeyword('CONTAINS')) {
        left = { kind: 'binary', op: 'contains', left, right: this.additive(), pos };
      } else if (this.acceptKeyword('IN')) {
        left = { kind: 'binary', op: 'in', left, right: this.additive(), pos };
      } else if (this.isKeyword('IS')) {
        this.i++;
        const negated = this.acceptKeyword('NOT');
        if (this.acceptOp('::') || this.acceptKeyword('TYPED')) left = { kind: 'isType', arg: left, negated, ...this.typeName(), pos };
        else {
          this.expectKeyword('NULL');
          left = { kind: 'isNull', arg: left, negated, pos };
        }
      } else if (this.acceptOp('::')) {
        left = { kind: 'isType', arg: left, negated: false, ...this.typeName(), pos };
      } else {
        return left;
      }
    }
  }

  /** A type after `IS ::` (Neo4j 5.9+): one of TYPE_NAMES, with NOT NULL or ! for a value that may not be null. */
  private typeName(): { type: string; notNull: boolean } {
    const at = this.tok;
    let words = this.name('a type name such as INTEGER or STRING').toUpperCase();
    while (this.tok.kind === 'ident' && !this.tok.quoted && TYPE_NAMES.has(`${words} ${this.tok.value.toUpperCase()}`)) words += ` ${this.tokens[this.i++]!.value.toUpperCase()}`;
    if (words === 'LIST' || words === 'ARRAY') {
      if (this.acceptOp('<')) {
        const inner = this.typeName();
        if (inner.type !== 'ANY' || inner.notNull) throw unsupported(`LIST<${inner.type}> in a type predicate (only LIST<ANY>, or LIST)`, this.pos(at));
        this.expectOp('>');
      }
      words = 'LIST';
    }
    const type = TYPE_NAMES.get(words);
    if (!type) throw compileError('UnexpectedSyntax', `unknown type ${words} after ::; this server tests ${[...new Set(TYPE_NAMES.values())].join(', ')}`, this.pos(at));
    let notNull = this.acceptOp('!');
    if (!notNull && this.isKeyword('NOT') && this.isKeyword('NULL', this.peek())) {
      this.i += 2;
      notNull = true;
    }
    return { type, notNull };
  }

  /** A left-associative chain of operands joined by any of the operator tokens `ops`. */
  private operatorChain(next: () => Expr, ops: readonly string[]): Expr {
    let left = next();
    while (this.tok.kind === 'op' && ops.includes(this.tok.value)) {
      const pos = this.pos();
      const op = this.tokens[this.i++]!.value as BinaryOp;
      left = { kind: 'binary', op, left, right: next(), pos };
    }
    return left;
  }

  private additive(): Expr {
    return this.operatorChain(() => this.multiplicative(), ['+', '-', '<->', '||']);
  }

  private multiplicative(): Expr {
    return this.operatorChain(() => this.power(), ['*', '/', '%']);
  }

  private power(): Expr {
    return this.operatorChain(() => this.unary(), ['^']);
  }

  private unary(): Expr {
    if (this.isOp('-') || this.isOp('+')) {
      const pos = this.pos();
      const op = this.tokens[this.i++]!.value as '-' | '+';
      const arg = this.nested(() => this.unary());
      // Fold -literal so that the smallest integers and `-0.0` come out as written.
      if (op === '-' && arg.kind === 'literal' && typeof arg.value === 'number') return { ...arg, value: -arg.value, pos };
      if (op === '-' && arg.kind === 'literal' && typeof arg.value === 'bigint') return { ...arg, value: -arg.value, pos };
      return { kind: 'unary', op, arg, pos };
    }
    return this.atomWithPostfix();
  }

  private atomWithPostfix(): Expr {
    let e = this.atom();
    for (;;) {
      if (this.isOp('.')) {
        this.i++;
        e = { kind: 'prop', object: e, key: this.name('a property name after .'), pos: e.pos };
      } else if (this.isOp('[')) {
        const pos = this.pos();
        this.i++;
        const from = this.isOp('..') ? null : this.expr();
        if (this.acceptOp('..')) {
          const to = this.isOp(']') ? null : this.expr();
          this.expectOp(']');
          e = { kind: 'slice', object: e, from, to, pos };
          continue;
        }
        this.expectOp(']');
        e = { kind: 'index', object: e, index: from!, pos };
      } else if (this.isOp('{') && e.kind === 'var') {
        e = this.mapProjection(e);
      } else if (this.isOp(':') && (e.kind === 'var' || e.kind === 'prop')) {
        const pos = this.pos();
        const { labels, expr } = this.labelPart(this.labelBars);
        e = expr ? { kind: 'hasLabels', arg: e, labels, expr, pos } : { kind: 'hasLabels', arg: e, labels, pos };
      } else {
        return e;
      }
    }
  }

  /** n {.name, .*, key: expr, var} */
  private mapProjection(object: Expr): Expr {
    const pos = this.pos();
    this.expectOp('{');
    const items: ProjectionItemOf[] = [];
    if (!this.isOp('}')) {
      do {
        if (this.acceptOp('.')) {
          if (this.acceptOp('*')) items.push({ kind: 'all' });
          else items.push({ kind: 'property', key: this.name('a property name') });
        } else {
          const vpos = this.pos();
          const key = this.name('a property name, .name or .*');
          if (this.acceptOp(':')) items.push({ kind: 'entry', key, expr: this.expr() });
          else items.push({ kind: 'entry', key, expr: { kind: 'var', name: key, pos: vpos } });
        }
      } while (this.acceptOp(','));
    }
    this.expectOp('}');
    return { kind: 'mapProjection', object, items, pos };
  }

  private mapLiteral(): Expr {
    const pos = this.pos();
    this.expectOp('{');
    const entries: [string, Expr][] = [];
    if (!this.isOp('}')) {
      do {
        const key = this.name('a property name');
        this.expectOp(':');
        entries.push([key, this.expr()]);
      } while (this.acceptOp(','));
    }
    this.expectOp('}');
    return { kind: 'map', entries, pos };
  }

  private atom(): Expr {
    const t = this.tok;
    const pos = this.pos();
    switch (t.kind) {
      case 'int':
      case 'float':
        this.i++;
        return { kind: 'literal', value: t.big ?? t.num, isFloat: t.kind === 'float', pos };
      case 'string':
        this.i++;
        return { kind: 'literal', value: t.value, pos };
      case 'param':
        this.i++;
        return { kind: 'param', name: t.value, pos };
      case 'op':
        if (t.value === '(') {
          const pattern = this.patternExpression();
          if (pattern) return { kind: 'subqueryExpr', mode: 'exists', body: [matchOf([pattern], hoistWheres([pattern], null), pos)], map: null, pos, bare: true };
          this.i++;
          const e = this.withLabelBars(() => this.expr());
          this.expectOp(')');
          return e;
        }
        if (t.value === '[') {
          if (this.tok.kind === 'op' && this.peek().kind === 'ident' && this.isKeyword('IN', this.peek(2))) return this.comprehension();
          const comprehension = this.patternComprehension();
          if (comprehension) return comprehension;
          this.i++;
          const items: Expr[] = [];
          if (!this.isOp(']')) {
            do items.push(this.expr());
            while (this.acceptOp(','));
          }
          if (this.isOp('|')) throw unsupported('list comprehensions', pos);
          this.expectOp(']');
          return { kind: 'list', items, pos };
        }
        if (t.value === '{') return this.mapLiteral();
        return this.fail('an expression');
      case 'ident': {
        const upper = t.quoted ? '' : t.value.toUpperCase();
        if (upper === 'NULL' || upper === 'TRUE' || upper === 'FALSE') {
          this.i++;
          return { kind: 'literal', value: upper === 'NULL' ? null : upper === 'TRUE', pos };
        }
        if (upper === 'CASE') return this.caseExpr();
        if (['ALL', 'ANY', 'NONE', 'SINGLE'].includes(upper) && this.isOp('(', this.peek()) && this.peek(2).kind === 'ident' && this.isKeyword('IN', this.peek(3))) return this.quantifier();
        if (upper === 'REDUCE' && this.isOp('(', this.peek()) && this.peek(2).kind === 'ident' && this.isOp('=', this.peek(3))) return this.reduce();
        if (RESERVED.has(upper)) this.fail('an expression');
        if ((upper === 'EXISTS' || upper === 'COUNT' || upper === 'COLLECT') && this.isOp('{', this.peek())) return this.subqueryExpression(upper.toLowerCase() as 'exists' | 'count' | 'collect');
        if (this.isOp('(', this.peek()) || this.isDottedCall()) return this.call();
        this.i++;
        return { kind: 'var', name: t.value, pos };
      }
      default:
        return this.fail('an expression');
    }
  }

  /**
   * A pattern with at least one relationship where an expression may start, e.g.
   * `WHERE (a)-[:KNOWS]->(b)`; null (nothing read) when the text is not one, e.g. `(a + 1)`.
   */
  private patternExpression(): PatternPart | null {
    const start = this.i;
    try {
      const part = this.patternPart();
      if (part.rels.length > 0) return part;
    } catch (err) {
      if (!(err instanceof CypherError)) throw err;
    }
    this.i = start;
    return null;
  }

  /** [(a)-->(b) WHERE p | e], or [path = (a)-->(b) | e]; null (nothing read) for a list. */
  private patternComprehension(): Expr | null {
    const pos = this.pos();
    const start = this.i;
    this.i++;
    const named = this.tok.kind === 'ident' && this.isOp('=', this.peek()) && this.isOp('(', this.peek(2));
    if (named || this.isOp('(')) {
      const pattern = this.patternExpression();
      if (pattern && (this.isKeyword('WHERE') || this.isOp('|'))) {
        const where = this.acceptKeyword('WHERE') ? this.withoutLabelBars(() => this.expr()) : null;
        this.expectOp('|');
        const map = this.expr();
        this.expectOp(']');
        return { kind: 'subqueryExpr', mode: 'collect', body: [matchOf([pattern], hoistWheres([pattern], where), pos)], map, pos };
      }
    }
    this.i = start;
    return null;
  }

  /**
   * EXISTS { ... }, COUNT { ... } or COLLECT { ... }: a query part, or (EXISTS, COUNT) patterns
   * with an optional WHERE. COLLECT's part ends in a RETURN of one column (the binder checks),
   * whose values it lists: a pattern comprehension's collect mode, mapping each row to that column.
   */
  private subqueryExpression(mode: 'exists' | 'count' | 'collect'): Expr {
    const pos = this.pos();
    this.i += 2;
    let body: Clause[];
    if (this.tok.kind === 'ident' && !this.tok.quoted && SUBQUERY_STARTS.has(this.tok.value.toUpperCase())) {
      body = this.part();
      if (this.isKeyword('UNION')) throw unsupported(`UNION inside ${mode.toUpperCase()} { }`, this.pos());
    } else if (mode === 'collect') {
      return this.fail('a query ending in RETURN inside COLLECT { }, e.g. COLLECT { MATCH (n)-->(m) RETURN m.name }');
    } else {
      const patterns = this.patternList();
      body = [matchOf(patterns, hoistWheres(patterns, this.acceptKeyword('WHERE') ? this.expr() : null), pos)];
    }
    this.expectOp('}');
    if (mode !== 'collect') return { kind: 'subqueryExpr', mode, body, map: null, pos };
    const last = body[body.length - 1]!;
    if (last.kind !== 'return' || last.projection.items.length !== 1 || last.projection.star) {
      throw compileError('InvalidClauseComposition', 'COLLECT { } must end with a RETURN of exactly one column', last.pos);
    }
    return { kind: 'subqueryExpr', mode, body, map: { kind: 'var', name: last.projection.items[0]!.name, pos }, pos };
  }

  /** `a.b(` or `a.b.c(`: a namespaced function call rather than a property read. */
  private isDottedCall(): boolean {
    let k = 1;
    while (this.isOp('.', this.peek(k)) && this.peek(k + 1).kind === 'ident') k += 2;
    return k > 1 && this.isOp('(', this.peek(k));
  }

  /** [x IN list WHERE p | e] */
  private comprehension(): Expr {
    const pos = this.pos();
    this.expectOp('[');
    const variable = this.name('a variable');
    this.expectKeyword('IN');
    const list = this.expr();
    const where = this.acceptKeyword('WHERE') ? this.withoutLabelBars(() => this.expr()) : null;
    const map = this.acceptOp('|') ? this.expr() : null;
    this.expectOp(']');
    return { kind: 'comprehension', variable, list, where, map, pos };
  }

  /** all/any/none/single(x IN list WHERE p) */
  private quantifier(): Expr {
    const pos = this.pos();
    const quantifier = this.name('a quantifier').toLowerCase() as 'all' | 'any' | 'none' | 'single';
    this.expectOp('(');
    const variable = this.name('a variable');
    this.expectKeyword('IN');
    const list = this.expr();
    this.expectKeyword('WHERE');
    const where = this.expr();
    this.expectOp(')');
    return { kind: 'quantifier', quantifier, variable, list, where, pos };
  }

  /** reduce(acc = init, x IN list | e) */
  private reduce(): Expr {
    const pos = this.pos();
    this.name('reduce');
    this.expectOp('(');
    const accumulator = this.name('an accumulator variable');
    this.expectOp('=');
    const init = this.expr();
    this.expectOp(',');
    const variable = this.name('a variable');
    this.expectKeyword('IN');
    const list = this.expr();
    this.expectOp('|');
    const expr = this.expr();
    this.expectOp(')');
    return { kind: 'reduce', accumulator, init, variable, list, expr, pos };
  }

  /** CASE [subject] WHEN a THEN b ... [ELSE c] END */
  private caseExpr(): Expr {
    const pos = this.pos();
    this.expectKeyword('CASE');
    const subject = this.isKeyword('WHEN') ? null : this.expr();
    const whens: [Expr, Expr][] = [];
    while (this.acceptKeyword('WHEN')) {
      // CASE x WHEN 1, 2 THEN ...: each value a WHEN of its own with the same result.
      const values = subject ? this.exprList() : [this.expr()];
      this.expectKeyword('THEN');
      const then = this.expr();
      for (const when of values) whens.push([when, then]);
    }
    if (whens.length === 0) this.fail('WHEN');
    const otherwise = this.acceptKeyword('ELSE') ? this.expr() : null;
    this.expectKeyword('END');
    return { kind: 'case', subject, whens, otherwise, pos };
  }

  private call(): Expr {
    const pos = this.pos();
    let name = this.name('a function name');
    while (this.acceptOp('.')) name += '.' + this.name('a function name');
    this.expectOp('(');
    if (name.toLowerCase() === 'trim') {
      const trimmed = this.trimFrom(pos);
      if (trimmed) return trimmed;
    }
    if (this.acceptOp('*')) {
      this.expectOp(')');
      return { kind: 'call', name: name.toLowerCase(), distinct: false, args: [], star: true, pos };
    }
    const distinct = this.acceptKeyword('DISTINCT');
    const args: Expr[] = [];
    if (!this.isOp(')')) {
      do args.push(this.expr());
      while (this.acceptOp(','));
    }
    this.expectOp(')');
    return { kind: 'call', name: name.toLowerCase(), distinct, args, star: false, pos };
  }

  /**
   * The rest of `trim([[LEADING | TRAILING | BOTH] [characters] FROM] input)` after its `(`, as
   * ltrim / rtrim / btrim(input[, characters]); null (nothing read) for a plain `trim(input)`.
   * LEADING, TRAILING or BOTH is a word of the form only when a name could not follow it: a
   * variable called `both` stays one.
   */
  private trimFrom(pos: Position): Expr | null {
    const start = this.i;
    const side = ['LEADING', 'TRAILING', 'BOTH'].find((w) => this.isKeyword(w) && (this.isKeyword('FROM', this.peek()) || this.peek().kind !== 'op'));
    if (side) this.i++;
    let characters: Expr | null = null;
    if (!this.acceptKeyword('FROM')) {
      if (!side) {
        characters = this.expr();
        if (!this.acceptKeyword('FROM')) {
          this.i = start;
          return null;
        }
      } else {
        characters = this.expr();
        this.expectKeyword('FROM');
      }
    }
    const input = this.expr();
    this.expectOp(')');
    const fn = side === 'LEADING' ? 'ltrim' : side === 'TRAILING' ? 'rtrim' : 'btrim';
    return { kind: 'call', name: fn, distinct: false, args: characters ? [input, characters] : [input], star: false, pos };
  }
}

/** Parses query text into an AST; throws a CypherError naming line, column and what was expected. */
export function parseQuery(text: string): Query {
  const tokens = tokenize(text);
  const query = new Parser(text, tokens).query();
  query.parameters = [...new Set(tokens.filter((t) => t.kind === 'param').map((t) => t.value))];
  return query;
}

const allOf = (found: Expr[]): Expr | null => (found.length === 0 ? null : found.reduce((left, right) => ({ kind: 'binary', op: 'and', left, right, pos: left.pos })));

/** The inline WHEREs of a pattern's elements, taken out of them. */
function takeWheres(elements: (NodePattern | RelPattern)[]): Expr[] {
  const found: Expr[] = [];
  for (const x of elements) {
    if (!x.where) continue;
    found.push(x.where);
    delete x.where;
  }
  return found;
}

/**
 * The inline WHEREs of patterns (`(p:Person WHERE p.born > 1965)`), taken out and AND-ed before
 * `where`; a pattern with a selector keeps its own (as `part.where`), tested before it selects.
 */
function hoistWheres(patterns: PatternPart[], where: Expr | null): Expr | null {
  const found: Expr[] = [];
  for (const part of patterns) {
    const own = takeWheres([...part.nodes, ...part.rels]);
    if (!part.selector) found.push(...own);
    else {
      const pre = allOf([...own, ...(part.where ? [part.where] : [])]);
      if (pre) part.where = pre;
    }
  }
  if (where) found.push(where);
  return allOf(found);
}

type Parenthesised = { pathVariable: string | null; nodes: NodePattern[]; rels: RelPattern[]; where: Expr | null; pos: Position; quantifier: { min: number; max: number; at: Position } | null };

/** A quantified path pattern as the step it stands for between two nodes, after the checks Neo4j makes on it. */
function groupStep(g: Parenthesised): RelPattern {
  if (!g.quantifier) throw compileError('InvalidPathPattern', 'a parenthesised path pattern inside a pattern needs a quantifier, e.g. ((a)-[:T]->(b)){1,3}; only a whole pattern after a selector (SHORTEST 1 (...)) may go without', g.pos);
  if (g.pathVariable !== null) throw unsupported('assigning a path inside a quantified path pattern', g.pos);
  if (g.rels.length === 0) throw compileError('InvalidQuantifiedPathPattern', 'the path pattern being quantified must contain at least one relationship, e.g. ((a)-[:T]->(b)){1,3}', g.pos);
  for (const r of g.rels) {
    if (r.group) throw compileError('InvalidQuantifiedPathPattern', 'quantified path patterns are not allowed to be nested', r.pos);
    if (r.length) throw compileError('InvalidQuantifiedPathPattern', 'a variable-length or quantified relationship cannot be part of a quantified path pattern; write its steps out, e.g. ((a)-[:T]->()-[:T]->(b)){1,3}', r.pos);
  }
  const where = allOf([...takeWheres([...g.nodes, ...g.rels]), ...(g.where ? [g.where] : [])]);
  const { min, max } = g.quantifier;
  return { variable: null, types: [], properties: null, direction: 'out', length: { min, max }, group: { nodes: g.nodes, rels: g.rels, where, pos: g.pos }, pos: g.pos };
}

/** CREATE and MERGE take no inline WHERE (nor a label expression): there is nothing to test. */
function refuseInlineWhere(patterns: PatternPart[], clause: string): PatternPart[] {
  for (const part of patterns) {
    for (const x of [...part.nodes, ...part.rels]) {
      if (x.where) throw compileError('InvalidClauseComposition', `${clause} cannot test a pattern with WHERE; MATCH it first`, x.where.pos);
      const expr = 'labelExpr' in x ? x.labelExpr : 'typeExpr' in x ? x.typeExpr : undefined;
      if (expr) throw compileError('InvalidLabelExpression', `${clause} takes labels joined by : (n:A:B) and one relationship type, not a label expression`, x.pos);
    }
  }
  return patterns;
}
