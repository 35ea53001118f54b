import { canonicalUuid, type PointId } from '../../storage/point-id.js';
import { labelExprMatches } from './label-expr.js';
import { searchCollection } from '../search/vector-search.js';
import type { NodePattern, RelPattern } from './ast.js';
import { evaluate, property, type EvalContext, type Row } from './evaluate.js';
import type { PartPlan, Seek } from './planner.js';
import { listBytes } from './sizes.js';
import { isNumber, numberOf, WholeFloat, type CypherNumber } from './numbers.js';
import { equals, NodeRef, PathValue, RelRef, setEntry, type Value } from './values.js';

/** Thrown from inside the matcher to stop it once the next stage wants no more rows. */
const ENOUGH = Symbol('enough rows');

/** The relationships one step (or variable-length run) crossed, with the nodes inside it. */
interface Hop {
  edges: number[];
  inner: PointId[];
}

/**
 * Finds every way a MATCH clause's pattern parts fit the graph, for one input row. Each part
 * starts at its planned anchor, grows right then left; relationships are unique within the
 * clause (openCypher's relationship isomorphism). Calls `emit` with the row each time (the
 * row object is reused: copy it to keep it).
 */
export class PatternMatcher {
  private readonly usedRels = new Set<number>();

  constructor(private readonly ctx: EvalContext, private readonly plans: PartPlan[]) {}

  run(row: Row, emit: (row: Row) => void): void {
    this.matchPart(0, { ...row }, emit);
  }

  /**
   * The start nodes of the first pattern part for a row (whose variables `row` must hold: pass
   * a copy), for matching a start node at a time with matchStart. Its candidates are held (and
   * charged) until the iteration ends.
   */
  *starts(row: Row): Generator<PointId, void, void> {
    const plan = this.plans[0]!;
    const { guard } = this.ctx;
    const before = guard.used;
    const candidates = this.candidates(plan.seek, plan.part.nodes[plan.anchor]!, row);
    const held = guard.used - before;
    try {
      yield* candidates;
    } finally {
      guard.release(held);
    }
  }

  /** Every fit from one start node (see starts), emitted in one go; `emit` answers false to stop, and so does this then. */
  matchStart(id: PointId, row: Row, emit: (row: Row) => boolean): boolean {
    try {
      this.matchFrom(0, id, row, (m) => {
        if (!emit(m)) throw ENOUGH;
      });
      return true;
    } catch (err) {
      if (err !== ENOUGH) throw err;
      return false;
    }
  }

  private matchPart(index: number, row: Row, emit: (row: Row) => void): void {
    const plan = this.plans[index];
    if (!plan) return emit(row);
    const { guard } = this.ctx;
    // The seek's list (ids, a query vector) is held while its candidates are tried.
    const before = guard.used;
    const candidates = this.candidates(plan.seek, plan.part.nodes[plan.anchor]!, row);
    const held = guard.used - before;
    for (const id of candidates) this.matchFrom(index, id, row, emit);
    guard.release(held);
  }

  /** Every fit of part `index` (and the parts after it) starting from node `id` at its anchor. */
  private matchFrom(index: number, id: PointId, row: Row, emit: (row: Row) => void): void {
    const plan = this.plans[index]!;
    const { part, anchor } = plan;
    const nodes = new Array<PointId>(part.nodes.length);
    const hops = new Array<Hop>(part.rels.length);
    const finish = () => {
      if (part.pathVariable === null) return this.matchPart(index + 1, row, emit);
      setEntry(row, part.pathVariable, this.pathOf(nodes, hops));
      this.matchPart(index + 1, row, emit);
      delete row[part.pathVariable];
    };
    this.withNode(part.nodes[anchor]!, id, row, () => {
      nodes[anchor] = id;
      this.growRight(plan, anchor, nodes, hops, row, () => this.growLeft(plan, anchor, nodes, hops, row, finish));
    });
  }

  private pathOf(nodes: PointId[], hops: Hop[]): PathValue {
    const ns = [nodes[0]!];
    const rs: number[] = [];
    hops.forEach((hop, i) => {
      // A zero-length hop stays on the same node.
      if (hop.edges.length === 0) return;
      ns.push(...hop.inner, nodes[i + 1]!);
      rs.push(...hop.edges);
    });
    return new PathValue(ns, rs);
  }

  /** Node ids to try at the anchor, charged to the budget while they are tried. */
  private candidates(seek: Seek, node: NodePattern, row: Row): Iterable<PointId> {
    const ids = this.seekIds(seek, node, row);
    if (Array.isArray(ids)) this.ctx.guard.charge(listBytes(ids.length), 'the start nodes of a MATCH');
    return ids;
  }

  private seekIds(seek: Seek, node: NodePattern, row: Row): Iterable<PointId> {
    const { tx } = this.ctx;
    switch (seek.kind) {
      case 'bound': {
        const v = row[node.variable!];
        return v instanceof NodeRef ? [v.id] : [];
      }
      case 'ids': {
        const v = evaluate(seek.expr, row, this.ctx);
        const ids = (seek.list ? (Array.isArray(v) ? v : []) : [v]).map((x) => (x instanceof WholeFloat ? x.value : x));
        return ids.filter((id): id is PointId => (typeof id === 'number' || (typeof id === 'string' && canonicalUuid(id) === id)) && tx.hasNode(id));
      }
      case 'vector':
        return this.vectorCandidates(seek, row) ?? this.scan(node);
      case 'property': {
        const given = evaluate(seek.value, row, this.ctx);
        const v = given instanceof WholeFloat ? given.value : given;
        if (!(typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) return this.scan(node);
        return tx.nodesWithValue(seek.key, v);
      }
      case 'label':
        return tx.nodesWithLabel(seek.label);
      case 'all':
        return this.scan(node);
    }
  }

  private scan(node: NodePattern): PointId[] {
    return node.labels.length > 0 ? this.ctx.tx.nodesWithLabel(node.labels[0]!) : this.ctx.tx.allNodes();
  }

  /**
   * The nodes within the distance bound, from the HNSW index: asks for more neighbours until
   * the farthest one returned is beyond the bound, so no closer point is cut off by the limit.
   * Null when the index cannot answer (bad query vector, or nodes written by this query).
   */
  private vectorCandidates(seek: Extract<Seek, { kind: 'vector' }>, row: Row): PointId[] | null {
    const { tx, distance } = this.ctx;
    const c = tx.collection;
    const given = evaluate(seek.query, row, this.ctx);
    const threshold = evaluate(seek.threshold, row, this.ctx);
    if (tx.dirty || !isNumber(threshold) || !Array.isArray(given) || given.length !== c.config.size || !given.every((x) => isNumber(x) && Number.isFinite(numberOf(x)))) return null;
    const q = (given as CypherNumber[]).map(numberOf);
    const bound = numberOf(threshold);
    const raw = (score: number) => (distance === 'Cosine' ? 1 - score : -score);
    const live = c.store.liveCount;
    for (let k = 32; ; k *= 4) {
      const hits = searchCollection(c, { vector: q as number[], limit: k, offset: 0, ef: Math.max(2 * k, 100), filter: null, scoreThreshold: null });
      const last = hits[hits.length - 1];
      if (hits.length < k || k >= live || !last || raw(last.score) > bound) {
        // A superset by a hair (float32 rounding at the boundary): WHERE then checks each exactly.
        return hits.filter((h) => raw(h.score) <= bound + 1e-6).map((h) => h.id);
      }
    }
  }

  /** Checks a node against a node pattern and binds its variable for the duration of `then`. */
  private withNode(pattern: NodePattern, id: PointId, row: Row, then: () => void): void {
    const { tx } = this.ctx;
    tx.scanned++;
    this.ctx.guard.step();
    const labels = tx.labelsOf(id);
    if (labels === null) return;
    for (const l of pattern.labels) if (!labels.includes(l)) return;
    if (pattern.labelExpr && !labelExprMatches(pattern.labelExpr, labels)) return;
    const name = pattern.variable;
    const was = name === null ? undefined : row[name];
    if (was !== undefined && !(was instanceof NodeRef && was.id === id)) return;
    if (pattern.properties && !this.propertiesMatch(new NodeRef(id), pattern.properties, row)) return;
    if (name === null || was !== undefined) return then();
    setEntry(row, name, new NodeRef(id));
    then();
    delete row[name];
  }

  private propertiesMatch(entity: Value, props: NonNullable<NodePattern['properties']>, row: Row): boolean {
    if (props.kind !== 'map') return false;
    const { guard } = this.ctx;
    for (const [key, expr] of props.entries) {
      const before = guard.used;
      const wanted = evaluate(expr, row, this.ctx);
      guard.release(guard.used - before);
      if (equals(property(entity, key, this.ctx), wanted) !== true) return false;
    }
    return true;
  }

  private relMatches(pattern: RelPattern, edge: number, row: Row): boolean {
    if (this.usedRels.has(edge)) return false;
    if (pattern.types.length > 0 && !pattern.types.includes(this.ctx.tx.edgeType(edge))) return false;
    if (pattern.typeExpr && !labelExprMatches(pattern.typeExpr, [this.ctx.tx.edgeType(edge)])) return false;
    return !pattern.properties || this.propertiesMatch(new RelRef(edge), pattern.properties, row);
  }

  /** Calls visit(edge, otherEnd) for each edge leaving `node` along the pattern's direction. */
  private forEachStep(node: PointId, pattern: RelPattern, forward: boolean, visit: (edge: number, other: PointId) => void): void {
    const { tx } = this.ctx;
    this.ctx.guard.step();
    const dir = pattern.direction === 'both' ? 'both' : (pattern.direction === 'out') === forward ? 'out' : 'in';
    if (dir !== 'in') for (const e of tx.outgoing(node)) visit(e, tx.edgeTo(e));
    if (dir !== 'out') {
      for (const e of tx.incoming(node)) {
        const from = tx.edgeFrom(e);
        // A self-loop is already in the outgoing list.
        if (dir === 'both' && from === node) continue;
        visit(e, from);
      }
    }
  }

  private growRight(plan: PartPlan, i: number, nodes: PointId[], hops: Hop[], row: Row, done: () => void): void {
    if (i === plan.part.rels.length) return done();
    this.step(plan, i, true, nodes, hops, row, () => this.growRight(plan, i + 1, nodes, hops, row, done));
  }

  private growLeft(plan: PartPlan, i: number, nodes: PointId[], hops: Hop[], row: Row, done: () => void): void {
    if (i === 0) return done();
    this.step(plan, i - 1, false, nodes, hops, row, () => this.growLeft(plan, i - 1, nodes, hops, row, done));
  }

  /** Crosses relationship pattern `r` (between node r and r+1), forward from node r or backward from node r+1. */
  private step(plan: PartPlan, r: number, forward: boolean, nodes: PointId[], hops: Hop[], row: Row, then: () => void): void {
    const pattern = plan.part.rels[r]!;
    const from = nodes[forward ? r : r + 1]!;
    const target = plan.part.nodes[forward ? r + 1 : r]!;
    const land = (hop: Hop, other: PointId) => {
      this.withNode(target, other, row, () => {
        nodes[forward ? r + 1 : r] = other;
        hops[r] = hop;
        this.bindRel(pattern, hop, row, then);
      });
    };
    if (plan.part.shortest) return this.shortest(plan.part.shortest === 'all', pattern, forward, from, target, row, land);
    if (!pattern.length) {
      const bound = pattern.variable === null ? undefined : row[pattern.variable];
      this.forEachStep(from, pattern, forward, (edge, other) => {
        if (bound !== undefined && !(bound instanceof RelRef && bound.id === edge)) return;
        if (!this.relMatches(pattern, edge, row)) return;
        this.usedRels.add(edge);
        land({ edges: [edge], inner: [] }, other);
        this.usedRels.delete(edge);
      });
      return;
    }
    const bound = pattern.variable === null ? undefined : row[pattern.variable];
    if (bound !== undefined) return this.followList(pattern, forward, from, bound, row, land);
    const { min, max } = pattern.length;
    const edges: number[] = [];
    const inner: PointId[] = [];
    const walk = (at: PointId, depth: number) => {
      if (depth >= min) {
        // Hops are kept in pattern order (left to right), whichever way the walk went.
        const hop = forward ? { edges: [...edges], inner: [...inner] } : { edges: [...edges].reverse(), inner: [...inner].reverse() };
        land(hop, at);
      }
      if (depth >= max) return;
      this.forEachStep(at, pattern, forward, (edge, other) => {
        if (!this.relMatches(pattern, edge, row)) return;
        this.usedRels.add(edge);
        edges.push(edge);
        if (depth > 0) inner.push(at);
        walk(other, depth + 1);
        if (depth > 0) inner.pop();
        edges.pop();
        this.usedRels.delete(edge);
      });
    };
    walk(from, 0);
  }

  /**
   * A variable-length pattern whose variable already holds a list of relationships: it matches
   * the one walk along them, in the list's order (left to right in the pattern), each step in the
   * pattern's direction and of its types, within its length bounds.
   */
  private followList(pattern: RelPattern, forward: boolean, from: PointId, bound: unknown, row: Row, land: (hop: Hop, other: PointId) => void): void {
    const { min, max } = pattern.length!;
    if (!Array.isArray(bound) || bound.length < min || bound.length > max || !bound.every((r) => r instanceof RelRef)) return;
    const list = (bound as RelRef[]).map((r) => r.id);
    if (list.some((e) => this.usedRels.has(e)) || new Set(list).size !== list.length) return;
    const order = forward ? list : [...list].reverse();
    const inner: PointId[] = [];
    let at = from;
    for (let i = 0; i < order.length; i++) {
      let next: PointId | null = null;
      this.forEachStep(at, pattern, forward, (edge, other) => {
        if (next === null && edge === order[i] && this.relMatches(pattern, edge, row)) next = other;
      });
      if (next === null) return;
      if (i > 0) inner.push(at);
      at = next;
    }
    for (const e of list) this.usedRels.add(e);
    land({ edges: list, inner: forward ? inner : inner.reverse() }, at);
    for (const e of list) this.usedRels.delete(e);
  }

  /**
   * shortestPath / allShortestPaths: a breadth-first search from `from`, landing on each node
   * it reaches with the first (or every) path of the fewest hops; it stops at the layer that
   * reaches the other end when that end is already bound.
   */
  private shortest(all: boolean, pattern: RelPattern, forward: boolean, from: PointId, target: NodePattern, row: Row, land: (hop: Hop, other: PointId) => void): void {
    const { min, max } = pattern.length ?? { min: 1, max: 1 };
    const bound = target.variable === null ? undefined : row[target.variable];
    const goal = bound instanceof NodeRef ? bound.id : null;
    const { guard } = this.ctx;
    const depthOf = new Map<PointId, number>([[from, 0]]);
    const parents = new Map<PointId, [number, PointId][]>();
    const landAll = (node: PointId) => {
      for (const { edges, inner } of this.pathsTo(node, from, parents, all)) {
        const hop = forward ? { edges, inner } : { edges: edges.reverse(), inner: inner.reverse() };
        for (const e of hop.edges) this.usedRels.add(e);
        land(hop, node);
        for (const e of hop.edges) this.usedRels.delete(e);
      }
    };
    if (min === 0 && (goal === null || goal === from)) land({ edges: [], inner: [] }, from);
    let frontier = [from];
    for (let depth = 1; depth <= max && frontier.length > 0 && !(goal !== null && depthOf.has(goal)); depth++) {
      const next: PointId[] = [];
      for (const at of frontier) {
        this.forEachStep(at, pattern, forward, (edge, other) => {
          if (!this.relMatches(pattern, edge, row)) return;
          const seen = depthOf.get(other);
          if (seen === undefined) {
            guard.charge(listBytes(3), 'the nodes shortestPath() has reached');
            depthOf.set(other, depth);
            parents.set(other, [[edge, at]]);
            next.push(other);
          } else if (all && seen === depth) parents.get(other)!.push([edge, at]);
        });
      }
      if (depth >= min) for (const node of next) if (goal === null || node === goal) landAll(node);
      frontier = next;
    }
    // Each node reached but the start was charged.
    guard.release(listBytes(3) * (depthOf.size - 1));
  }

  /** The shortest paths from `from` to `node` the search recorded: the first, or all of them. */
  private *pathsTo(node: PointId, from: PointId, parents: Map<PointId, [number, PointId][]>, all: boolean): Iterable<Hop> {
    if (node === from) {
      yield { edges: [], inner: [] };
      return;
    }
    const ways = parents.get(node)!;
    for (const [edge, prev] of all ? ways : ways.slice(0, 1)) {
      for (const before of this.pathsTo(prev, from, parents, all)) {
        this.ctx.guard.step();
        yield { edges: [...before.edges, edge], inner: prev === from ? before.inner : [...before.inner, prev] };
      }
    }
  }

  private bindRel(pattern: RelPattern, hop: Hop, row: Row, then: () => void): void {
    const name = pattern.variable;
    if (name === null || row[name] !== undefined) return then();
    setEntry(row, name, pattern.length ? hop.edges.map((e) => new RelRef(e)) : new RelRef(hop.edges[0]!));
    then();
    delete row[name];
  }
}
