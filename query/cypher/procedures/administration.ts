import type { EvalContext } from '../evaluate.js';
import { AGGREGATES, FUNCTIONS } from '../functions.js';
import { SYSTEM_DATABASE, type DatabaseCatalog } from './catalog.js';
import { FUNCTION_COLUMNS } from './show-columns.js';
import { signatureOf } from './signatures.js';
import { isString, expectArg, type Procedure, type ProcedureRow } from './types.js';

const DATABASE_COLUMNS = ['name', 'type', 'aliases', 'access', 'address', 'role', 'writer', 'requestedStatus', 'currentStatus', 'statusMessage', 'default', 'home', 'constituents'];
/** Aggregating functions as Neo4j spells them, and their arguments where more than one (percentileCont(value, percentile)). */
const AGGREGATE_SHAPES: Record<string, { display: string; args?: number }> = {
  stdev: { display: 'stDev' },
  stdevp: { display: 'stDevP' },
  percentilecont: { display: 'percentileCont', args: 2 },
  percentiledisc: { display: 'percentileDisc', args: 2 },
};

/** SHOW DEFAULT DATABASE and SHOW HOME DATABASE leave out `default` and `home`. */
const ONE_DATABASE_COLUMNS = DATABASE_COLUMNS.filter((c) => c !== 'default' && c !== 'home');

/** Without a catalog (a query over REST, or on a replica) the database is the collection queried. */
function catalogOf(ctx: EvalContext): DatabaseCatalog {
  return ctx.catalog ?? { defaultName: ctx.tx.collection.name, names: () => [ctx.tx.collection.name] };
}

function databaseRow(name: string, catalog: DatabaseCatalog): ProcedureRow {
  const system = name === SYSTEM_DATABASE;
  return {
    name,
    type: system ? 'system' : 'standard',
    aliases: [],
    access: system ? 'read-only' : 'read-write',
    address: null,
    role: 'primary',
    writer: !system,
    requestedStatus: 'online',
    currentStatus: 'online',
    statusMessage: '',
    default: name === catalog.defaultName,
    home: name === catalog.defaultName,
    constituents: [],
  };
}

function databases(ctx: EvalContext): string[] {
  const catalog = catalogOf(ctx);
  const names = new Set([...catalog.names(), catalog.defaultName]);
  if (ctx.catalog) names.add(SYSTEM_DATABASE);
  return [...names].sort();
}

export const ADMINISTRATION_PROCEDURES: Procedure[] = [
  {
    name: '$show.databases',
    display: 'SHOW DATABASES',
    mode: 'read',
    minArgs: 1,
    maxArgs: 1,
    outputs: DATABASE_COLUMNS,
    // The argument: a database's name, or null for all of them.
    run: ([name], ctx) => databases(ctx).filter((n) => name === null || n === name).map((n) => databaseRow(n, catalogOf(ctx))),
  },
  {
    name: '$show.default.database',
    display: 'SHOW DEFAULT DATABASE',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ONE_DATABASE_COLUMNS,
    run: (_args, ctx) => {
      const row = databaseRow(catalogOf(ctx).defaultName, catalogOf(ctx));
      return [Object.fromEntries(ONE_DATABASE_COLUMNS.map((c) => [c, row[c]!]))];
    },
  },
  {
    name: '$show.functions',
    display: 'SHOW FUNCTIONS',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: FUNCTION_COLUMNS,
    // Function names are matched without regard to case, and listed as Neo4j spells them where that is known, else in lower case.
    run: () =>
      [...new Set([...Object.keys(FUNCTIONS), ...AGGREGATES])]
        .map((key) => ({ key, name: FUNCTIONS[key]?.display ?? AGGREGATE_SHAPES[key]?.display ?? key }))
        .sort((a, b) => (a.key < b.key ? -1 : 1))
        .map(({ key, name }) => {
          const aggregating = AGGREGATES.has(key);
          const args = aggregating ? { min: AGGREGATE_SHAPES[key]?.args ?? 1, max: AGGREGATE_SHAPES[key]?.args ?? 1 } : { min: FUNCTIONS[key]!.minArgs, max: FUNCTIONS[key]!.maxArgs };
          return {
            name,
            category: aggregating ? 'Aggregating' : 'Scalar',
            description: '',
            ...signatureOf(name, args.min, args.max, ' :: ANY'),
            isBuiltIn: !key.startsWith('apoc.'),
            returnDescription: '',
            aggregating,
            rolesExecution: null,
            rolesBoostedExecution: null,
            isDeprecated: false,
            deprecatedBy: null,
          };
        }),
  },
  {
    name: 'db.ping',
    display: 'db.ping',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['success'],
    run: () => [{ success: true }],
  },
  {
    name: 'db.info',
    display: 'db.info',
    mode: 'read',
    minArgs: 0,
    maxArgs: 0,
    outputs: ['id', 'name', 'creationDate'],
    run: (_args, ctx) => [{ id: ctx.tx.collection.name, name: ctx.tx.collection.name, creationDate: null }],
  },
  {
    name: 'dbms.listconfig',
    display: 'dbms.listConfig',
    mode: 'read',
    minArgs: 0,
    maxArgs: 1,
    outputs: ['name', 'description', 'value', 'dynamic'],
    run: ([search], ctx) => {
      const text = search === undefined ? '' : expectArg('dbms.listConfig', 0, search, isString, 'a string');
      // The settings clients read to learn what the server is.
      const config = [{ name: 'initial.dbms.default_database', description: 'The database a session that names none uses.', value: catalogOf(ctx).defaultName, dynamic: false }];
      return config.filter((c) => c.name.includes(text));
    },
  },
];
