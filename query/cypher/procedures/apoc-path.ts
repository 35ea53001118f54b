import type { PointId } from '../../../storage/events/types.js';
import { apocFailure } from '../apoc-functions.js';
import type { EvalContext } from '../evaluate.js';
import type { GraphTx } from '../graph-tx.js';
import { isNumber, numberOf } from '../numbers.js';
import { isMap, NodeRef, PathValue, RelRef, typeName, type MapValue, type Value } from '../values.js';
import type { Procedure, ProcedureRow } from './types.js';

/**
 * apoc.path.expand, expandConfig, subgraphNodes, subgraphAll and spanningTree: APOC's path
 * expander, as Neo4j's traversal framework runs it. Each path (from length 0) is judged by every
 * filter: it is answered when all include it and grown when all let it continue. Uniqueness is
 * checked as a path is made, so under NODE_GLOBAL the first path to reach a node (breadth-first
 * by default: a shortest one) claims it.
 */

type Fail = (message: string) => Error;

interface Evaluation {
  include: boolean;
  grow: boolean;
}

const evaluation = (include: boolean, grow: boolean): Evaluation => ({ include, grow });
const INCLUDE_AND_CONTINUE = evaluation(true, true);
const EXCLUDE_AND_CONTINUE = evaluation(false, true);
const INCLUDE_AND_PRUNE = evaluation(true, false);
const EXCLUDE_AND_PRUNE = evaluation(false, false);

/** A path being grown: its nodes and relationships. */
interface Branch {
  nodes: PointId[];
  rels: number[];
}

const endOf = (b: Branch) => b.nodes[b.nodes.length - 1]!;
const depthOf = (b: Branch) => b.rels.length;

type Evaluator = (b: Branch) => Evaluation;

// ---- relationship filter: `TYPE>`, `<TYPE`, `TYPE`, `>`, `<`, alternatives with `|`, a sequence with `,` ----

interface RelStep {
  type: string | null;
  direction: 'out' | 'in' | 'both';
}

function relStep(text: string): RelStep {
  const direction = text.includes('<') ? 'in' : text.includes('>') ? 'out' : 'both';
  const tick = text.indexOf('`');
  const name = (tick >= 0 ? text.slice(tick + 1, text.lastIndexOf('`')) : text.replace(/[<>:]/g, '')).trim();
  return { type: name === '' ? null : name, direction };
}

const relSteps = (text: string): RelStep[] => text.trim().split('|').map(relStep);

// ---- label filter: `+L` allow, `-L` deny, `/L` terminate, `>L` end at; `|` alternatives, `,` a sequence ----

/** Nodes carrying one of its labels, or all of one of its compound labels (`A:B`); `*` matches any node. */
class LabelMatcher {
  private readonly labels: string[][] = [];
  private any = false;

  add(label: string): void {
    if (label === '*') this.any = true;
    else this.labels.push(label.replace(/^:/, '').split(/(?<!\\):/).map((l) => l.replace(/\\:/g, ':')));
  }

  get empty(): boolean {
    return !this.any && this.labels.length === 0;
  }

  matches(labels: readonly string[]): boolean {
    return this.any || this.labels.some((all) => all.every((l) => labels.includes(l)));
  }
}

class LabelGroup {
  endNodesOnly = false;
  private readonly allow = new LabelMatcher();
  private readonly deny = new LabelMatcher();
  private readonly end = new LabelMatcher();
  private readonly terminator = new LabelMatcher();

  constructor(text: string) {
    for (const part of text.split('|')) {
      if (part === '') continue;
      const op = part[0]!;
      const label = '>/-+'.includes(op) ? part.slice(1) : part;
      if (op === '>' || op === '/') this.endNodesOnly = true;
      const matcher = op === '>' ? this.end : op === '/' ? this.terminator : op === '-' ? this.deny : this.allow;
      if (label !== '') matcher.add(label);
    }
  }

  evaluate(labels: readonly string[], belowMinLevel: boolean): Evaluation {
    if (this.deny.matches(labels)) return EXCLUDE_AND_PRUNE;
    if (this.terminator.matches(labels)) return belowMinLevel ? EXCLUDE_AND_CONTINUE : INCLUDE_AND_PRUNE;
    if (this.end.matches(labels)) return belowMinLevel ? EXCLUDE_AND_CONTINUE : INCLUDE_AND_CONTINUE;
    if (this.allow.empty || this.allow.matches(labels)) return this.endNodesOnly || belowMinLevel ? EXCLUDE_AND_CONTINUE : INCLUDE_AND_CONTINUE;
    return EXCLUDE_AND_PRUNE;
  }
}

/** The label filter (or a label sequence, one group a step): the start node passes unless filterStartNode. */
function labelEvaluator(tx: GraphTx, groupsText: string[], filterStartNode: boolean, beginAtStart: boolean, minLevel: number): Evaluator {
  const groups = groupsText.map((t) => new LabelGroup(t.trim()));
  const endNodesOnly = groups.some((g) => g.endNodesOnly);
  for (const g of groups) g.endNodesOnly = endNodesOnly;
  const atStart = endNodesOnly ? EXCLUDE_AND_CONTINUE : INCLUDE_AND_CONTINUE;
  return (b) => {
    const depth = depthOf(b);
    if (depth === 0 && (!filterStartNode || !beginAtStart)) return atStart;
    const group = groups[(beginAtStart ? depth : depth - 1) % groups.length]!;
    return group.evaluate(tx.labelsOf(endOf(b)) ?? [], depth < minLevel);
  };
}

// ---- node lists: endNodes, terminatorNodes, allowlistNodes, denylistNodes ----

function nodeFilters(lists: { end: Set<PointId>; terminator: Set<PointId>; allow: Set<PointId>; deny: Set<PointId> }, filterStartNode: boolean, minLevel: number): Evaluator[] {
  const out: Evaluator[] = [];
  const skipStart = (b: Branch) => depthOf(b) === 0 && !filterStartNode;
  const { end, terminator, allow, deny } = lists;
  if (deny.size > 0) out.push((b) => (skipStart(b) || !deny.has(endOf(b)) ? INCLUDE_AND_CONTINUE : EXCLUDE_AND_PRUNE));
  if (end.size > 0 || terminator.size > 0) {
    out.push((b) => {
      if (skipStart(b) || depthOf(b) < minLevel) return EXCLUDE_AND_CONTINUE;
      const node = endOf(b);
      return evaluation(end.has(node) || terminator.has(node), !terminator.has(node));
    });
  }
  if (allow.size > 0) {
    const allowed = new Set([...allow, ...end, ...terminator]);
    out.push((b) => (skipStart(b) || allowed.has(endOf(b)) ? INCLUDE_AND_CONTINUE : EXCLUDE_AND_PRUNE));
  }
  return out;
}

// ---- uniqueness ----

const UNIQUENESS = ['NODE_GLOBAL', 'NODE_PATH', 'RELATIONSHIP_GLOBAL', 'RELATIONSHIP_PATH', 'NONE'] as const;
type Uniqueness = (typeof UNIQUENESS)[number];
const ALL_UNIQUENESS = ['NODE_GLOBAL', 'NODE_PATH', 'NODE_RECENT', 'NODE_LEVEL', 'RELATIONSHIP_GLOBAL', 'RELATIONSHIP_PATH', 'RELATIONSHIP_RECENT', 'RELATIONSHIP_LEVEL', 'NONE'];

/** Whether a new branch may be made, under the uniqueness rule (marking what a global rule has now seen). */
function uniquenessCheck(rule: Uniqueness): (b: Branch) => boolean {
  const seen = new Set<PointId | number>();
  switch (rule) {
    case 'NODE_GLOBAL':
      return (b) => !seen.has(endOf(b)) && Boolean(seen.add(endOf(b)));
    case 'RELATIONSHIP_GLOBAL':
      return (b) => depthOf(b) === 0 || (!seen.has(b.rels[b.rels.length - 1]!) && Boolean(seen.add(b.rels[b.rels.length - 1]!)));
    case 'NODE_PATH':
      return (b) => b.nodes.indexOf(endOf(b)) === b.nodes.length - 1;
    case 'RELATIONSHIP_PATH':
      return (b) => depthOf(b) === 0 || b.rels.indexOf(b.rels[b.rels.length - 1]!) === b.rels.length - 1;
    case 'NONE':
      return () => true;
  }
}

// ---- the traversal ----

export interface ExpandOptions {
  relSequence: RelStep[][] | null;
  evaluators: Evaluator[];
  uniqueness: Uniqueness;
  bfs: boolean;
  limit: number;
  /** beginSequenceAtStart false: the first relationship step is used once, to leave the start node. */
  firstRelStep: RelStep[] | null;
}

/** The relationships a branch grows by, in the order Neo4j's expander meets them; never back along the one it came by. */
function* relationshipsOf(tx: GraphTx, b: Branch, o: ExpandOptions): Generator<[number, PointId]> {
  const depth = depthOf(b);
  const node = endOf(b);
  const steps =
    o.firstRelStep && depth === 0 ? o.firstRelStep : o.relSequence ? o.relSequence[(o.firstRelStep ? depth - 1 : depth) % o.relSequence.length]! : [{ type: null, direction: 'both' as const }];
  const cameBy = depth > 0 ? b.rels[depth - 1] : undefined;
  for (const step of steps) {
    const out = step.direction !== 'in' ? tx.outgoing(node) : [];
    const inc = step.direction !== 'out' ? tx.incoming(node) : [];
    for (const e of out) if (e !== cameBy && (step.type === null || tx.edgeType(e) === step.type)) yield [e, tx.edgeTo(e)];
    // A loop is one relationship: met once, going out.
    for (const e of inc) if (e !== cameBy && (step.type === null || tx.edgeType(e) === step.type) && !(step.direction === 'both' && tx.edgeFrom(e) === node)) yield [e, tx.edgeFrom(e)];
  }
}

/** The paths the expander answers, in its order (breadth- or depth-first), lazily. */
export function* expandPaths(ctx: EvalContext, starts: PointId[], o: ExpandOptions): Generator<PathValue> {
  const { tx, guard } = ctx;
  const unique = uniquenessCheck(o.uniqueness);
  const judge = (b: Branch): Evaluation => {
    let include = true;
    let grow = true;
    for (const e of o.evaluators) {
      const r = e(b);
      include &&= r.include;
      grow &&= r.grow;
    }
    return { include, grow };
  };
  let answered = 0;
  const full = () => o.limit >= 0 && answered >= o.limit;
  const children = function* (b: Branch): Generator<Branch> {
    for (const [rel, other] of relationshipsOf(tx, b, o)) {
      guard.step();
      const child = { nodes: [...b.nodes, other], rels: [...b.rels, rel] };
      if (unique(child)) yield child;
    }
  };
  const branchBytes = (b: Branch) => 64 + 16 * b.nodes.length * 2;
  if (o.bfs) {
    const queue: Branch[] = [];
    let held = 0;
    const visit = function* (b: Branch): Generator<PathValue> {
      const r = judge(b);
      if (r.include && !full()) {
        answered++;
        yield new PathValue(b.nodes, b.rels);
      }
      if (r.grow) {
        guard.charge(branchBytes(b), 'the paths apoc.path is growing');
        held += branchBytes(b);
        queue.push(b);
      }
    };
    try {
      for (const s of starts) {
        const b = { nodes: [s], rels: [] };
        if (unique(b)) yield* visit(b);
      }
      for (let i = 0; i < queue.length && !full(); i++) {
        const b = queue[i]!;
        // Let go of a branch once grown: the queue only ever grows at its end.
        queue[i] = undefined as unknown as Branch;
        guard.release(branchBytes(b));
        held -= branchBytes(b);
        for (const child of children(b)) {
          yield* visit(child);
          if (full()) return;
        }
      }
    } finally {
      guard.release(held);
    }
    return;
  }
  for (const s of starts) {
    const root = { nodes: [s], rels: [] };
    if (!unique(root)) continue;
    // Depth-first: the branches being grown, each with the children it has still to hand out.
    const stack: { children: Generator<Branch>; bytes: number }[] = [];
    let next: Branch | null = root;
    try {
      while (next || stack.length > 0) {
        if (next) {
          const r = judge(next);
          if (r.include) {
            answered++;
            yield new PathValue(next.nodes, next.rels);
            if (full()) return;
          }
          if (r.grow) {
            const bytes = branchBytes(next);
            guard.charge(bytes, 'the paths apoc.path is growing');
            stack.push({ children: children(next), bytes });
          }
          next = null;
        }
        const top = stack[stack.length - 1];
        if (!top) break;
        const step = top.children.next();
        if (step.done) guard.release(stack.pop()!.bytes);
        else next = step.value;
      }
    } finally {
      for (const { bytes } of stack.splice(0)) guard.release(bytes);
    }
  }
}

// ---- arguments ----

/** The start: a node, a node id, an element id, or a list of them (APOC's Util.nodeList). */
function startNodes(tx: GraphTx, v: Value | undefined, fail: Fail): PointId[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => {
    if (x instanceof NodeRef) return x.id;
    if (isNumber(x) && Number.isInteger(numberOf(x))) {
      if (tx.hasNode(numberOf(x))) return numberOf(x);
      throw fail(`Node with id ${numberOf(x)} not found`);
    }
    if (typeof x === 'string') {
      const id = /^-?\d+$/.test(x) ? Number(x) : x;
      if (tx.hasNode(id)) return id;
      throw fail(`Node with elementId ${x} not found`);
    }
    throw fail(`a start node must be a node, a node id or an element id, got ${x === null ? 'null' : `a ${typeName(x)}`}`);
  });
}

const nodeSet = (tx: GraphTx, v: Value | undefined, fail: Fail) => new Set(startNodes(tx, v, fail));

function integer(config: MapValue, key: string, fallback: number, fail: Fail): number {
  const v = config[key];
  if (v === undefined || v === null) return fallback;
  if (isNumber(v) && Number.isInteger(numberOf(v))) return numberOf(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v);
  throw fail(`${key} must be an integer, got ${typeName(v)}`);
}

function flag(config: MapValue, key: string, fallback: boolean, fail: Fail): boolean {
  const v = config[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw fail(`${key} must be a boolean, got ${typeName(v)}`);
}

function text(config: MapValue, key: string, fail: Fail): string | null {
  const v = config[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw fail(`${key} must be a string, got ${typeName(v)}`);
  return v;
}

const CONFIG_KEYS = new Set([
  'minLevel', 'maxLevel', 'relationshipFilter', 'labelFilter', 'beginSequenceAtStart', 'uniqueness', 'bfs', 'filterStartNode', 'limit', 'optional',
  'endNodes', 'terminatorNodes', 'allowlistNodes', 'denylistNodes', 'whitelistNodes', 'blacklistNodes', 'sequence',
]);

interface Expansion {
  starts: PointId[];
  options: ExpandOptions;
  optional: boolean;
}

/** expandConfig's configuration read as APOC reads it; a key APOC does not know is refused by name. */
function readConfig(ctx: EvalContext, start: Value | undefined, config: MapValue, fail: Fail): Expansion {
  const { tx } = ctx;
  for (const key of Object.keys(config)) if (!CONFIG_KEYS.has(key)) throw fail(`unknown configuration key '${key}' (apoc.path takes ${[...CONFIG_KEYS].join(', ')})`);
  const minLevel = integer(config, 'minLevel', -1, fail);
  const maxLevel = integer(config, 'maxLevel', -1, fail);
  const filterStartNode = flag(config, 'filterStartNode', false, fail);
  const beginAtStart = flag(config, 'beginSequenceAtStart', true, fail);
  const rule = (text(config, 'uniqueness', fail) ?? 'RELATIONSHIP_PATH').toUpperCase();
  if (!ALL_UNIQUENESS.includes(rule)) throw fail(`Invalid uniqueness: '${String(config.uniqueness)}'. Must be one of: ${ALL_UNIQUENESS.join(', ')}.`);
  if (!(UNIQUENESS as readonly string[]).includes(rule)) throw fail(`uniqueness ${rule} is not supported by this server (it supports ${UNIQUENESS.join(', ')})`);
  const sequence = text(config, 'sequence', fail);
  const relFilter = text(config, 'relationshipFilter', fail);
  const labelFilter = text(config, 'labelFilter', fail);
  let relTexts: string[] | null = null;
  let labelTexts: string[] | null = null;
  if (sequence !== null && sequence.trim() !== '') {
    // The sequence alternates labels and relationships: `Label, REL>, Label, …` (from a relationship when not begun at the start).
    relTexts = [];
    labelTexts = [];
    sequence.split(',').forEach((step, i) => ((beginAtStart ? i : i - 1) % 2 === 0 ? labelTexts! : relTexts!).push(step));
    if (relTexts.length === 0) relTexts = null;
  } else {
    if (relFilter !== null && relFilter.trim() !== '') relTexts = relFilter.trim().split(',');
    if (labelFilter !== null && labelFilter.trim() !== '') labelTexts = labelFilter.trim().split(',');
  }
  const evaluators: Evaluator[] = [];
  if (labelTexts && labelTexts.length > 0) evaluators.push(labelEvaluator(tx, labelTexts, filterStartNode, beginAtStart, minLevel));
  if (minLevel !== -1) evaluators.push((b) => (depthOf(b) < minLevel ? EXCLUDE_AND_CONTINUE : INCLUDE_AND_CONTINUE));
  if (maxLevel !== -1) evaluators.push((b) => (depthOf(b) < maxLevel ? INCLUDE_AND_CONTINUE : depthOf(b) === maxLevel ? INCLUDE_AND_PRUNE : EXCLUDE_AND_PRUNE));
  const pick = (key: string, old: string) => nodeSet(tx, config[key] ?? config[old], fail);
  evaluators.push(...nodeFilters({ end: nodeSet(tx, config.endNodes, fail), terminator: nodeSet(tx, config.terminatorNodes, fail), allow: pick('allowlistNodes', 'whitelistNodes'), deny: pick('denylistNodes', 'blacklistNodes') }, filterStartNode, minLevel));
  let relSequence = relTexts?.map((t) => relSteps(t)) ?? null;
  let firstRelStep: RelStep[] | null = null;
  if (relSequence && !beginAtStart) {
    firstRelStep = relSequence[0]!;
    relSequence = relSequence.length > 1 ? relSequence.slice(1) : null;
  }
  return {
    starts: startNodes(tx, start, fail),
    optional: flag(config, 'optional', false, fail),
    options: { relSequence, evaluators, uniqueness: rule as Uniqueness, bfs: flag(config, 'bfs', true, fail), limit: integer(config, 'limit', -1, fail), firstRelStep },
  };
}

function configArg(v: Value | undefined, fail: Fail): MapValue {
  if (v === undefined || v === null) return {};
  if (!isMap(v)) throw fail(`the configuration must be a map, got ${typeName(v)}`);
  return v;
}

/** The subgraph procedures: NODE_GLOBAL, and a minLevel of 0 or 1 only (as APOC). */
function subgraphConfig(display: string, v: Value | undefined, fail: Fail): MapValue {
  const config = configArg(v, fail);
  const min = config.minLevel;
  if (min !== undefined && min !== null && !(isNumber(min) && (numberOf(min) === 0 || numberOf(min) === 1))) throw fail(`minLevel can only be 0 or 1 in ${display.slice('apoc.path.'.length)}()`);
  return { ...config, uniqueness: 'NODE_GLOBAL' };
}

function* withOptional(paths: Iterable<PathValue>, optional: boolean): Generator<PathValue | null> {
  let any = false;
  for (const p of paths) {
    any = true;
    yield p;
  }
  if (!any && optional) yield null;
}

function procedure(display: string, minArgs: number, maxArgs: number, outputs: string[], run: (args: Value[], ctx: EvalContext, fail: Fail) => Iterable<ProcedureRow>): Procedure {
  const fail = (m: string) => apocFailure('procedure', display, m);
  return { name: display.toLowerCase(), display, mode: 'read', minArgs, maxArgs, outputs, run: (args, ctx) => run(args, ctx, fail) };
}

function stringArg(v: Value | undefined, what: string, fail: Fail): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw fail(`${what} must be a string, got ${typeName(v)}`);
  return v;
}

function* paths(ctx: EvalContext, e: Expansion): Generator<ProcedureRow> {
  for (const path of withOptional(expandPaths(ctx, e.starts, e.options), e.optional)) yield { path };
}

/** The relationships among the nodes, each once: those going out of one of them into another (APOC's Cover). */
function cover(tx: GraphTx, nodes: PointId[]): RelRef[] {
  const set = new Set(nodes);
  return nodes.flatMap((n) => tx.outgoing(n).filter((e) => set.has(tx.edgeTo(e))).map((e) => new RelRef(e)));
}

export const APOC_PATH_PROCEDURES: Procedure[] = [
  procedure('apoc.path.expand', 5, 5, ['path'], ([start, relFilter, labelFilter, minLevel, maxLevel], ctx, fail) => {
    const level = (v: Value | undefined, what: string) => {
      if (isNumber(v ?? null) && Number.isInteger(numberOf(v as number))) return numberOf(v as number);
      throw fail(`${what} must be an integer, got ${v === null || v === undefined ? 'null' : typeName(v)}`);
    };
    const config: MapValue = { relationshipFilter: stringArg(relFilter, 'the relationship filter', fail), labelFilter: stringArg(labelFilter, 'the label filter', fail), minLevel: level(minLevel, 'minLevel'), maxLevel: level(maxLevel, 'maxLevel') };
    return paths(ctx, readConfig(ctx, start, config, fail));
  }),
  procedure('apoc.path.expandConfig', 2, 2, ['path'], ([start, config], ctx, fail) => paths(ctx, readConfig(ctx, start, configArg(config, fail), fail))),
  procedure('apoc.path.spanningTree', 2, 2, ['path'], ([start, config], ctx, fail) => paths(ctx, readConfig(ctx, start, subgraphConfig('apoc.path.spanningTree', config, fail), fail))),
  procedure('apoc.path.subgraphNodes', 2, 2, ['node'], function* ([start, config], ctx, fail) {
    const e = readConfig(ctx, start, subgraphConfig('apoc.path.subgraphNodes', config, fail), fail);
    for (const path of withOptional(expandPaths(ctx, e.starts, e.options), e.optional)) yield { node: path && new NodeRef(path.nodes[path.nodes.length - 1]!) };
  }),
  procedure('apoc.path.subgraphAll', 2, 2, ['nodes', 'relationships'], ([start, config], ctx, fail) => {
    const { optional: _ignored, ...rest } = subgraphConfig('apoc.path.subgraphAll', config, fail);
    const e = readConfig(ctx, start, rest, fail);
    const nodes = [...expandPaths(ctx, e.starts, e.options)].map((p) => p.nodes[p.nodes.length - 1]!);
    return [{ nodes: nodes.map((n) => new NodeRef(n)), relationships: cover(ctx.tx, nodes) }];
  }),
];
