import { checkNewConstraint } from '../constraints.js';
import type { EvalContext } from '../evaluate.js';
import { distanceOf, generatedName, indexLabels, schemaError, similarityOf, type ConstraintDef, type IndexDef } from '../schema.js';
import { float, isNumber, numberOf } from '../numbers.js';
import { isMap, type MapValue, type Value } from '../values.js';
import { expectArg, integerArg, isString, isStringList, type Procedure, type ProcedureRow } from './types.js';
import { CONSTRAINT_COLUMNS, INDEX_COLUMNS } from './show-columns.js';

/** The vector property of a node: the collection's own vector. */
export const VECTOR_PROPERTY = 'embedding';
const MAX_DIMENSIONS = 65_536;


const quote = (name: string) => '`' + name.replaceAll('`', '``') + '`';
const providerOf = (type: IndexDef['type']) => ({ RANGE: 'range-1.0', TEXT: 'text-2.0', POINT: 'point-1.0', VECTOR: 'vector-2.0', FULLTEXT: 'fulltext-1.0' })[type];

function indexConfig(def: IndexDef): MapValue {
  if (def.type !== 'VECTOR') return {};
  return { 'vector.dimensions': def.dimensions!, 'vector.similarity_function': def.similarity!, 'vector.quantization.enabled': false };
}

function indexRow(def: IndexDef): ProcedureRow {
  const props = def.properties.map((p) => `n.${quote(p)}`).join(', ');
  const config = indexConfig(def);
  const options: MapValue = { indexProvider: providerOf(def.type), indexConfig: config };
  const kind = def.type === 'RANGE' ? '' : `${def.type} `;
  const on = def.type === 'FULLTEXT' ? `EACH [${props}]` : `(${props})`;
  const createStatement = `CREATE ${kind}INDEX ${quote(def.name)} FOR (n:${indexLabels(def).map(quote).join('|')}) ON ${on}${def.type === 'VECTOR' ? ` OPTIONS {indexConfig: {\`vector.dimensions\`: ${def.dimensions}, \`vector.similarity_function\`: '${def.similarity}'}}` : ''}`;
  return {
    id: def.id,
    name: def.name,
    state: 'ONLINE',
    populationPercent: float(100),
    type: def.type,
    entityType: 'NODE',
    labelsOrTypes: indexLabels(def),
    properties: [...def.properties],
    indexProvider: providerOf(def.type),
    owningConstraint: def.owningConstraint,
    lastRead: null,
    readCount: null,
    trackedSince: null,
    options,
    failureMessage: '',
    createStatement,
  };
}

/**
 * Neo4j's two default LOOKUP indexes, by its names: label and relationship-type look-ups are
 * built in here (every label and type is indexed), so SHOW INDEXES lists them, with the ids
 * after the defined indexes' and constraints'.
 */
const LOOKUP_INDEXES = [
  { name: 'index_343aff4e', entityType: 'NODE', createStatement: 'CREATE LOOKUP INDEX `index_343aff4e` FOR (n) ON EACH labels(n)' },
  { name: 'index_f7700477', entityType: 'RELATIONSHIP', createStatement: 'CREATE LOOKUP INDEX `index_f7700477` FOR ()-[r]-() ON EACH type(r)' },
];

function lookupRows(firstId: number): ProcedureRow[] {
  return LOOKUP_INDEXES.map((l, i) => ({
    id: firstId + i,
    name: l.name,
    state: 'ONLINE',
    populationPercent: float(100),
    type: 'LOOKUP',
    entityType: l.entityType,
    labelsOrTypes: null,
    properties: null,
    indexProvider: 'token-lookup-1.0',
    owningConstraint: null,
    lastRead: null,
    readCount: null,
    trackedSince: null,
    options: { indexProvider: 'token-lookup-1.0', indexConfig: {} },
    failureMessage: '',
    createStatement: l.createStatement,
  }));
}

function constraintRow(def: ConstraintDef): ProcedureRow {
  const props = def.properties.map((p) => `n.${quote(p)}`).join(', ');
  const rule = { UNIQUENESS: 'IS UNIQUE', NODE_KEY: 'IS NODE KEY', NODE_PROPERTY_EXISTENCE: 'IS NOT NULL' }[def.type];
  const owns = def.type !== 'NODE_PROPERTY_EXISTENCE';
  return {
    id: def.id,
    name: def.name,
    type: def.type,
    entityType: 'NODE',
    labelsOrTypes: [def.label],
    properties: [...def.properties],
    ownedIndex: owns ? def.name : null,
    propertyType: null,
    options: owns ? { indexProvider: 'range-1.0', indexConfig: {} } : null,
    createStatement: `CREATE CONSTRAINT ${quote(def.name)} FOR (n:${quote(def.label)}) REQUIRE (${props}) ${rule}`,
  };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The collection vector a vector index on this property searches: "" (the unnamed one) for `embedding`, else the named dense vector of that name. */
export function indexedVectorName(property: string): string {
  return property === VECTOR_PROPERTY ? '' : property;
}

/**
 * A vector index searches the collection's own vectors, so it must agree with them: the
 * `embedding` property (or the name of one of the collection's named dense vectors), its
 * dimensions and a similarity matching its distance. A database that does not exist yet is
 * created to fit the index.
 */
function checkVectorIndex(ctx: EvalContext, properties: string[], dimensions: number, similarity: string): void {
  const named = properties.length === 1 && !ctx.tx.provisional ? ctx.tx.collection.named.get(properties[0]!) : undefined;
  if (named) {
    if (named.config.size !== dimensions) throw schemaError('IndexCreationFailed', `vector "${named.name}" of database "${ctx.tx.collection.name}" has ${named.config.size} dimensions, so its vector index cannot have ${dimensions}`);
    if (named.config.distance !== distanceOf(similarity)) throw schemaError('IndexCreationFailed', `vector "${named.name}" compares by ${named.config.distance} distance, so its vector index's similarity function is ${similarityOf(named.config.distance)?.toLowerCase() ?? 'none (only Cosine and Euclid vectors can have one)'}, not ${similarity.toLowerCase()}`);
    return;
  }
  if (properties.length !== 1 || properties[0] !== VECTOR_PROPERTY) {
    throw schemaError('IndexCreationFailed', `a vector index is on the node property \`${VECTOR_PROPERTY}\` (each node's vector) or on the name of one of the collection's named dense vectors, got ${properties.map((p) => `\`${p}\``).join(', ')}`);
  }
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) throw schemaError('IndexCreationFailed', `vector.dimensions must be an integer from 1 to ${MAX_DIMENSIONS}, got ${dimensions}`);
  const distance = distanceOf(similarity);
  const { tx } = ctx;
  if (tx.provisional) {
    const want = tx.schema.collectionConfig;
    if (want && (want.size !== dimensions || want.distance !== distance)) throw schemaError('IndexCreationFailed', 'two vector indexes in one transaction ask for different dimensions or similarity functions');
    tx.schema.collectionConfig = { size: dimensions, distance };
    return;
  }
  const c = tx.collection;
  if (c.config.size !== dimensions) {
    throw schemaError('IndexCreationFailed', `database "${c.name}" holds vectors of ${c.config.size} dimensions, so it cannot have a vector index of ${dimensions}: the index searches the collection's own vectors. Create the collection with vectors of size ${dimensions} (PUT /collections/${c.name}) before writing to it, or use another database`);
  }
  if (c.config.distance !== distance) {
    throw schemaError('IndexCreationFailed', `database "${c.name}" compares vectors by ${c.config.distance} distance, so its vector index's similarity function is ${similarityOf(c.config.distance)?.toLowerCase() ?? 'none (only Cosine and Euclid collections can have one)'}, not ${similarity.toLowerCase()}`);
  }
}

/** Creates an index unless an equivalent one (or, with IF NOT EXISTS, one of that name) exists. */
function createIndex(ctx: EvalContext, given: Omit<IndexDef, 'id' | 'name'> & { name: string | null }, ifNotExists: boolean): void {
  const schema = ctx.tx.schema;
  const labels = indexLabels(given as IndexDef);
  const name = given.name ?? generatedName('index', [given.type, ...labels, ...given.properties]);
  const equivalent = schema.allIndexes().find((i) => i.type === given.type && sameList(indexLabels(i), labels) && sameList(i.properties, given.properties));
  const named = schema.index(name);
  if (equivalent || named) {
    if (ifNotExists) return;
    if (equivalent) throw schemaError('EquivalentSchemaRuleAlreadyExists', `an equivalent index already exists: ${quote(equivalent.name)}`);
    throw schemaError('IndexWithNameAlreadyExists', `there already is an index called ${quote(name)}`);
  }
  if (given.type === 'VECTOR') checkVectorIndex(ctx, given.properties, given.dimensions!, given.similarity!);
  schema.putIndex({ ...given, name, id: schema.nextId() });
}

/** The index settings the engine follows, by index type: any other is refused by name. */
const CONFIG_KEYS: Record<string, string[]> = { VECTOR: ['vector.dimensions', 'vector.similarity_function'] };

/**
 * OPTIONS {indexProvider, indexConfig}: the indexConfig a command gives, refusing a key this
 * engine would otherwise ignore (a provider is accepted: there is one kind of each index).
 */
function optionsConfig(command: string, type: string, options: Value): MapValue {
  if (!isMap(options)) return {};
  for (const key of Object.keys(options)) {
    if (key !== 'indexConfig' && key !== 'indexProvider') throw schemaError('IndexCreationFailed', `${command} does not take the option \`${key}\`; it takes indexConfig and indexProvider`);
  }
  const config = options.indexConfig ?? {};
  if (!isMap(config)) throw schemaError('IndexCreationFailed', `${command}: indexConfig must be a map`);
  const allowed = CONFIG_KEYS[type] ?? [];
  for (const key of Object.keys(config)) {
    if (!allowed.includes(key)) throw schemaError('IndexCreationFailed', `${command} does not take the setting \`${key}\`${allowed.length > 0 ? `; it takes ${allowed.map((k) => `\`${k}\``).join(' and ')}` : ' (this index has no settings here)'}`);
  }
  return config;
}

const INDEX_TYPES = new Set(['RANGE', 'TEXT', 'POINT', 'VECTOR', 'BTREE', 'FULLTEXT']);

export const SCHEMA_PROCEDURES: Procedure[] = [
  {
    name: '$show.indexes',
    display: 'SHOW INDEXES',
    mode: 'read',
    minArgs: 1,
    maxArgs: 1,
    outputs: INDEX_COLUMNS,
    run: ([kind], ctx) => {
      const defined = ctx.tx.schema.allIndexes().filter((i) => kind === null || i.type === kind).map(indexRow);
      return kind === null || kind === 'LOOKUP' ? [...defined, ...lookupRows(ctx.tx.schema.nextId())] : defined;
    },
  },
  {
    name: '$show.constraints',
    display: 'SHOW CONSTRAINTS',
    mode: 'read',
    minArgs: 1,
    maxArgs: 1,
    outputs: CONSTRAINT_COLUMNS,
    run: ([kind], ctx) => {
      const wanted = kind === 'UNIQUE' || kind === 'UNIQUENESS' ? 'UNIQUENESS' : kind === 'KEY' ? 'NODE_KEY' : kind === 'EXISTENCE' || kind === 'EXIST' ? 'NODE_PROPERTY_EXISTENCE' : null;
      return ctx.tx.schema.allConstraints().filter((c) => kind === null || c.type === wanted).map(constraintRow);
    },
  },
  {
    name: '$create.index',
    display: 'CREATE INDEX',
    mode: 'schema',
    minArgs: 6,
    maxArgs: 7,
    outputs: [],
    run: ([name, kind, label, properties, options, ifNotExists, labels], ctx) => {
      const type = (kind === 'BTREE' ? 'RANGE' : kind) as IndexDef['type'];
      if (!INDEX_TYPES.has(String(kind))) throw schemaError('IndexCreationFailed', `${String(kind)} indexes are not supported; use RANGE, TEXT, POINT, VECTOR or FULLTEXT`);
      const config = optionsConfig(`CREATE ${type} INDEX`, type, options);
      const base = { name: name as string | null, type, label: label as string, ...(Array.isArray(labels) ? { labels: labels as string[] } : {}), properties: properties as string[], owningConstraint: null };
      if (type !== 'VECTOR') {
        createIndex(ctx, base, ifNotExists === true);
        return [];
      }
      const c = ctx.tx.collection;
      const given = config['vector.dimensions'] ?? (ctx.tx.provisional ? null : c.config.size);
      const dims = isNumber(given) ? numberOf(given) : null;
      if (dims === null) throw schemaError('IndexCreationFailed', 'a vector index on a new database needs OPTIONS {indexConfig: {`vector.dimensions`: N}}');
      const sim = config['vector.similarity_function'] ?? 'cosine';
      if (typeof sim !== 'string') throw schemaError('IndexCreationFailed', "vector.similarity_function is 'cosine' or 'euclidean'");
      createIndex(ctx, { ...base, dimensions: dims, similarity: sim.toUpperCase() }, ifNotExists === true);
      return [];
    },
  },
  {
    name: 'db.index.vector.createnodeindex',
    display: 'db.index.vector.createNodeIndex',
    mode: 'schema',
    minArgs: 5,
    maxArgs: 5,
    outputs: [],
    run: (args, ctx) => {
      const p = 'db.index.vector.createNodeIndex';
      const name = expectArg(p, 0, args[0]!, isString, 'an index name');
      const label = expectArg(p, 1, args[1]!, isString, 'a label');
      const property = expectArg(p, 2, args[2]!, isString, 'a property name');
      const dims = integerArg(p, 3, args[3]!);
      const sim = expectArg(p, 4, args[4]!, isString, "'cosine' or 'euclidean'");
      createIndex(ctx, { name, type: 'VECTOR', label, properties: [property], dimensions: dims, similarity: sim.toUpperCase(), owningConstraint: null }, false);
      return [];
    },
  },
  {
    name: '$create.constraint',
    display: 'CREATE CONSTRAINT',
    mode: 'schema',
    minArgs: 6,
    maxArgs: 6,
    outputs: [],
    run: ([name, rule, label, properties, options, ifNotExists], ctx) => {
      optionsConfig('CREATE CONSTRAINT', 'CONSTRAINT', options!);
      const schema = ctx.tx.schema;
      const type = rule as ConstraintDef['type'];
      const props = expectArg('CREATE CONSTRAINT', 3, properties!, isStringList, 'property names');
      const finalName = (name as string | null) ?? generatedName('constraint', [type, label as string, ...props]);
      const equivalent = schema.allConstraints().find((c) => c.type === type && c.label === label && sameList(c.properties, props));
      const named = schema.constraint(finalName);
      if (equivalent || named) {
        if (ifNotExists === true) return [];
        if (equivalent) throw schemaError('EquivalentSchemaRuleAlreadyExists', `an equivalent constraint already exists: ${quote(equivalent.name)}`);
        throw schemaError('ConstraintWithNameAlreadyExists', `there already is a constraint called ${quote(finalName)}`);
      }
      if (type !== 'NODE_PROPERTY_EXISTENCE') {
        const index = schema.allIndexes().find((i) => i.type === 'RANGE' && i.owningConstraint === null && indexLabels(i).length === 1 && i.label === label && sameList(i.properties, props));
        if (index) throw schemaError('IndexAlreadyExists', `There already exists an index (:${label as string} {${props.join(', ')}}). A constraint cannot be created until the index has been dropped.`);
      }
      checkNewConstraint(ctx.tx, { name: finalName, type, label: label as string, properties: props });
      const id = schema.nextId();
      schema.putConstraint({ id, name: finalName, type, label: label as string, properties: props });
      if (type !== 'NODE_PROPERTY_EXISTENCE') schema.putIndex({ id: id + 1, name: finalName, type: 'RANGE', label: label as string, properties: props, owningConstraint: finalName });
      return [];
    },
  },
  {
    name: '$drop.index',
    display: 'DROP INDEX',
    mode: 'schema',
    minArgs: 2,
    maxArgs: 2,
    outputs: [],
    run: ([name, ifExists], ctx) => {
      const def = ctx.tx.schema.index(name as string);
      if (LOOKUP_INDEXES.some((l) => l.name === name)) throw schemaError('IndexDropFailed', `${quote(name as string)} is a built-in LOOKUP index (labels and relationship types are always looked up by index here); it cannot be dropped`);
      if (!def) {
        if (ifExists === true) return [];
        throw schemaError('IndexDropFailed', `there is no index called ${quote(name as string)}`);
      }
      if (def.owningConstraint) throw schemaError('IndexDropFailed', `index ${quote(def.name)} belongs to constraint ${quote(def.owningConstraint)}; drop the constraint instead`);
      ctx.tx.schema.dropIndex(def.name);
      return [];
    },
  },
  {
    name: '$drop.constraint',
    display: 'DROP CONSTRAINT',
    mode: 'schema',
    minArgs: 2,
    maxArgs: 2,
    outputs: [],
    run: ([name, ifExists], ctx) => {
      const def = ctx.tx.schema.constraint(name as string);
      if (!def) {
        if (ifExists === true) return [];
        throw schemaError('ConstraintDropFailed', `there is no constraint called ${quote(name as string)}`);
      }
      ctx.tx.schema.dropConstraint(def.name);
      if (ctx.tx.schema.index(def.name)?.owningConstraint === def.name) ctx.tx.schema.dropIndex(def.name);
      return [];
    },
  },
];
