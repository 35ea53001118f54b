import { canonicalUuid, type PointId } from '../../storage/point-id.js';
import { labelExprMatches } from './label-expr.js';
import { searchCollection } from '../search/vector-search.js';
import { groupVariables, type Expr, type NodePattern, type PathGroup, type PatternPart, type RelPattern } from './ast.js';
import { evaluate, isTrue, property, type EvalContext, type Row } from './evaluate.js';
import { movesReadPart, selectFits, selectorCount, selectorWhere, type EdgeTest, type Fit, type SelectorWhere } from './path-selector.js';
import { trailsByLength, type Move } from './trail-search.js';
import type { PartPlan, Seek } from './planner.js';
import { listBytes, rowBytes } from './sizes.js';
import { isNumber, numberOf, WholeFloat, type CypherNumber } from './numbers.js';
import { equals, NodeRef, PathValue, RelRef, setEntry, type Value } from './values.js';

/** Thrown from inside the matcher to stop it once the next stage wants no more rows. */
const ENOUGH = Symbol('enough rows');

/** The relationships one step (or variable-length run) crossed, with the nodes inside it. */
interface Hop {
  edges: number[];
  inner: PointId[];
}

/** One repetition of a quantified path pattern: its nodes and relationships in pattern order, and the values of its variables (groupVariables order). */
interface Repetition {
  nodes: PointId[];
  edges: number[];
  values: Value[];
}

/** A move of a trail search: a repetition (a single relationship being one with no values), and the node the search reaches by it. */
type Step = Repetition & Move;

/**
 * Finds every way a MATCH clause's pattern parts fit the graph, for one input row. Each part
 * starts at its planned anchor, grows right then left; relationships are unique within the
 * clause (openCypher's relationship isomorphism). Calls `emit` with the row each time (the
 * row object is reused: copy it to keep it).
 */
export class PatternMatcher {
  private readonly usedRels = new Set<number>();
  /** The plan each quantified path pattern's inside is matched by. */
  private readonly groupPlans = new Map<PathGroup, PartPlan>();
  /** Each selected part's own predicates, split by whether they read the trail. */
  private readonly selectorWheres = new Map<PatternPart, SelectorWhere>();
  /** Per selected part, the distances to end nodes fitByLength searched towards, for one input row (see distanceTo). */
  private readonly distances = new Map<PartPlan, Map<PointId, ReadonlyMap<PointId, number>>>();
  private distancesHeld = 0;

  constructor(private readonly ctx: EvalContext, private readonly plans: PartPlan[]) {}

  run(row: Row, emit: (row: Row) => void): void {
    this.forgetDistances();
    try {
      this.matchPart(0, { ...row }, emit);
    } finally {
      this.forgetDistances();
    }
  }

  /**
   * The start nodes of the first pattern part for a row (whose variables `row` must hold: pass
   * a copy), for matching a start node at a time with matchStart. Its candidates are held (and
   * charged) until the iteration ends.
   */
  *starts(row: Row): Generator<PointId, void, void> {
    const plan = this.plans[0]!;
    const { guard } = this.ctx;
    this.forgetDistances();
    const before = guard.used;
    const candidates = this.candidates(plan.seek, plan.part.nodes[plan.anchor]!, row);
    const held = guard.used - before;
    try {
      yield* candidates;
    } finally {
      guard.release(held);
      this.forgetDistances();
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
    if (plan.part.selector) return this.matchSelected(index, id, row, emit);
    const name = plan.part.pathVariable;
    this.fit(plan, id, row, (nodes, hops) => {
      if (name === null) return this.matchPart(index + 1, row, emit);
      setEntry(row, name, this.pathOf(nodes, hops));
      this.matchPart(index + 1, row, emit);
      delete row[name];
    });
  }

  /** Every fit of one pattern part from node `id` at its anchor, its variables bound in `row` while `found` runs. */
  private fit(plan: PartPlan, id: PointId, row: Row, found: (nodes: PointId[], hops: Hop[]) => void): void {
    const { part, anchor } = plan;
    const nodes = new Array<PointId>(part.nodes.length);
    const hops = new Array<Hop>(part.rels.length);
    this.withNode(part.nodes[anchor]!, id, row, () => {
      nodes[anchor] = id;
      this.growRight(plan, anchor, nodes, hops, row, () => this.growLeft(plan, anchor, nodes, hops, row, () => found(nodes, hops)));
    });
  }

  /**
   * A part with a selector (SHORTEST k, ANY k ...): every fit from this start node that passes
   * the pattern's own predicates, then those the selector keeps. The planner starts such a part
   * at an end node, so all the fits sharing two end nodes come from one start node. Over one
   * quantified relationship or group the fits are searched for shortest first and the search
   * stops once the selector has what it keeps (see fitByLength); longer patterns list every fit.
   */
  private matchSelected(index: number, id: PointId, row: Row, emit: (row: Row) => void): void {
    const plan = this.plans[index]!;
    const { part } = plan;
    const selector = part.selector!;
    const { guard } = this.ctx;
    const k = selectorCount(selector, this.ctx);
    const fits: Fit<Row>[] = [];
    let held = 0;
    const keep = (test: Expr | null | undefined) => (nodes: PointId[], hops: Hop[]): boolean => {
      const path = this.pathOf(nodes, hops);
      if (part.pathVariable !== null) setEntry(row, part.pathVariable, path);
      const kept = !test || this.holds(test, row);
      if (kept) {
        const item = { ...row };
        const bytes = rowBytes(item);
        guard.charge(bytes, 'the paths a path selector chooses from');
        held += bytes;
        fits.push({ path, item });
      }
      if (part.pathVariable !== null) delete row[part.pathVariable];
      return kept;
    };
    let where = this.selectorWheres.get(part);
    if (!where) {
      where = selectorWhere(part, plan.anchor);
      this.selectorWheres.set(part, where);
    }
    if (where.start && !this.startHolds(plan, id, row, where.start)) return;
    if (!where.trail && this.breadthFirst(plan, k)) this.fitShortest(plan, id, row, selector.kind === 'groups', keep(where.ends));
    else if (this.byLength(plan, row)) this.fitByLength(plan, id, row, k, where, keep);
    else this.fit(plan, id, row, keep(part.where));
    try {
      for (const chosen of selectFits(fits, selector.kind, k)) this.matchPart(index + 1, chosen.item, emit);
    } finally {
      guard.release(held);
    }
  }

  /** Whether a selected part's predicates on its start node alone hold for `id`, bound there. */
  private startHolds(plan: PartPlan, id: PointId, row: Row, test: Expr): boolean {
    let holds = false;
    this.withNode(plan.part.nodes[plan.anchor]!, id, row, () => {
      holds = this.holds(test, row);
    });
    return holds;
  }

  /**
   * Whether a selected part can be found breadth-first, as shortestPath() is, instead of from
   * every trail: SHORTEST 1 (ANY SHORTEST) or SHORTEST 1 GROUPS (ALL SHORTEST) over a single
   * quantified relationship that may start at one hop, with no predicate of its own that reads
   * the trail (those on the end nodes hold for all of a partition or none: they are tested on
   * each fit found). The fits are the same; listing every trail first is exponential.
   */
  private breadthFirst(plan: PartPlan, k: number): boolean {
    const { part } = plan;
    const rel = part.rels[0];
    return k === 1 && part.selector!.kind !== 'any' && part.rels.length === 1 && !rel!.group && rel!.length !== null && rel!.length.min <= 1;
  }

  /** Whether a selected part is one quantified relationship (whose variable no earlier clause bound) or one quantified path pattern: what fitByLength searches. */
  private byLength(plan: PartPlan, row: Row): boolean {
    const { rels } = plan.part;
    const rel = rels[0]!;
    return rels.length === 1 && rel.length !== null && (rel.variable === null || row[rel.variable] === undefined);
  }

  /**
   * The fits a selector keeps, and few others, of one quantified relationship or group: for each
   * node the start reaches that passes the end node's pattern and the predicates that read no
   * trail (selectorWhere), the trails to it shortest first (trailsByLength), each tested against
   * the remaining predicates, until SHORTEST k and ANY k have k of them (ANY k takes the k
   * shortest, as good as any) and SHORTEST k GROUPS has every one of k lengths.
   */
  private fitByLength(plan: PartPlan, id: PointId, row: Row, k: number, where: SelectorWhere, keep: (test: Expr | null) => (nodes: PointId[], hops: Hop[]) => boolean): void {
    const { part, anchor } = plan;
    const pattern = part.rels[0]!;
    const forward = anchor === 0;
    const target = part.nodes[forward ? 1 : 0]!;
    const { min, max } = pattern.length!;
    const groups = part.selector!.kind === 'groups';
    const keepTrail = keep(where.rest);
    const { ends, each } = where;
    const nodes = new Array<PointId>(2);
    const hops = new Array<Hop>(1);
    this.withNode(part.nodes[anchor]!, id, row, () => {
      nodes[anchor] = id;
      const bound = target.variable === null ? undefined : row[target.variable];
      for (const end of this.hopsFrom(id, pattern, forward, max, row, each).keys()) {
        if (bound !== undefined && !(bound instanceof NodeRef && bound.id === end)) continue;
        this.withNode(target, end, row, () => {
          if (ends && !this.holds(ends, row)) return;
          nodes[forward ? 1 : 0] = end;
          let kept = 0;
          let last = -1;
          const lengths = new Set<number>();
          trailsByLength<Step>({
            from: id,
            to: end,
            min,
            max,
            distance: this.distanceTo(plan, end, row, each),
            residual: (at, used, within) => {
              for (const e of used) this.usedRels.add(e);
              const hops = this.hopsFrom(at, pattern, forward, within, row, each, end).get(end) ?? Infinity;
              for (const e of used) this.usedRels.delete(e);
              return hops;
            },
            expand: (at, used, visit) => {
              for (const e of used) this.usedRels.add(e);
              this.movesFrom(at, pattern, forward, row, visit, each);
              for (const e of used) this.usedRels.delete(e);
            },
            emit: (walked) => {
              // Moves are kept in pattern order (left to right), whichever way the search went.
              const inOrder = forward ? walked : [...walked].reverse();
              hops[0] = { edges: inOrder.flatMap((m) => m.edges), inner: inOrder.flatMap((m) => m.nodes.slice(1)).slice(0, -1) };
              let taken = false;
              this.bindMoves(pattern, hops[0], inOrder, row, () => {
                taken = keepTrail(nodes, hops);
              });
              if (!taken) return;
              kept++;
              last = walked.length;
              lengths.add(last);
            },
            satisfied: (length) => (groups ? lengths.size >= k && length > last : kept >= k),
            guard: this.ctx.guard,
          });
        });
      }
    });
  }

  /**
   * The fewest moves from each node to `end` (fitByLength's estimate), kept for the other start
   * nodes of this input row when the moves read none of the part's own variables.
   */
  private distanceTo(plan: PartPlan, end: PointId, row: Row, each: EdgeTest[]): ReadonlyMap<PointId, number> {
    const pattern = plan.part.rels[0]!;
    const back = () => this.hopsFrom(end, pattern, plan.anchor !== 0, pattern.length!.max, row, each);
    if (movesReadPart(plan.part)) return back();
    let kept = this.distances.get(plan);
    if (!kept) {
      kept = new Map();
      this.distances.set(plan, kept);
    }
    const known = kept.get(end);
    if (known) return known;
    const found = back();
    const bytes = listBytes(2 * found.size);
    this.ctx.guard.charge(bytes, 'the distances a path selector searches by');
    this.distancesHeld += bytes;
    kept.set(end, found);
    return found;
  }

  /** Lets go of the distances distanceTo kept: another input row may give the moves other values to read. */
  private forgetDistances(): void {
    this.ctx.guard.release(this.distancesHeld);
    this.distancesHeld = 0;
    this.distances.clear();
  }

  /** Calls visit with each move from `at` along a quantified relationship (one relationship, passing the edge tests) or group (one repetition), taken the given way. */
  private movesFrom(at: PointId, pattern: RelPattern, forward: boolean, row: Row, visit: (move: Step) => void, each: EdgeTest[] = []): void {
    const { group } = pattern;
    if (group) {
      this.repeatOnce(group, groupVariables(group), forward, at, row, (r) => visit({ ...r, to: forward ? r.nodes[r.nodes.length - 1]! : r.nodes[0]! }));
      return;
    }
    this.forEachStep(at, pattern, forward, (edge, other) => {
      if (this.relMatches(pattern, edge, row) && each.every((t) => this.edgePasses(t, edge, row))) visit({ to: other, edges: [edge], nodes: forward ? [at, other] : [other, at], values: [] });
    });
  }

  /** Whether a relationship passes an edge test, its variable bound to it (and what the name held before put back). */
  private edgePasses({ variable, test }: EdgeTest, edge: number, row: Row): boolean {
    const was = row[variable];
    setEntry(row, variable, new RelRef(edge));
    const passes = this.holds(test, row);
    if (was === undefined) delete row[variable];
    else setEntry(row, variable, was);
    return passes;
  }

  /** Binds a quantified relationship's variable, or a group's variables, to what the moves in path order crossed, while `then` runs. */
  private bindMoves(pattern: RelPattern, hop: Hop, moves: Step[], row: Row, then: () => void): void {
    const { group } = pattern;
    if (!group) return this.bindRel(pattern, hop, row, then);
    const names = groupVariables(group);
    names.forEach((name, i) => setEntry(row, name, moves.map((m) => m.values[i]!)));
    then();
    for (const name of names) delete row[name];
  }

  /** The fits breadthFirst() allows: the shortest path (or all of them) to each node reached, and the shortest trails back to the start. */
  private fitShortest(plan: PartPlan, id: PointId, row: Row, all: boolean, found: (nodes: PointId[], hops: Hop[]) => void): void {
    const { part, anchor } = plan;
    const pattern = part.rels[0]!;
    const forward = anchor === 0;
    const target = part.nodes[forward ? 1 : 0]!;
    const nodes = new Array<PointId>(2);
    const hops = new Array<Hop>(1);
    this.withNode(part.nodes[anchor]!, id, row, () => {
      nodes[anchor] = id;
      const land = (hop: Hop, other: PointId) =>
        this.withNode(target, other, row, () => {
          nodes[forward ? 1 : 0] = other;
          hops[0] = hop;
          this.bindRel(pattern, hop, row, () => found(nodes, hops));
        });
      this.shortest(all, pattern, forward, id, target, row, land);
      const bound = target.variable === null ? undefined : row[target.variable];
      // With no zero-length fit, the start's own partition holds its shortest cycles, which a breadth-first search never lands on.
      if (pattern.length!.min === 1 && (bound === undefined || (bound instanceof NodeRef && bound.id === id))) this.shortestCycles(all, pattern, forward, id, row, land);
    });
  }

  /**
   * The shortest trails from `from` back to itself: their length from one breadth-first search
   * (an edge back to the start, or for undirected patterns an edge joining two branches of the
   * search tree), then each trail of that length, walked only through nodes close enough to
   * the start to close the cycle in the hops left.
   */
  private shortestCycles(all: boolean, pattern: RelPattern, forward: boolean, from: PointId, row: Row, land: (hop: Hop, other: PointId) => void): void {
    const { max } = pattern.length!;
    const undirected = pattern.direction === 'both';
    const depth = new Map<PointId, number>([[from, 0]]);
    const treeEdge = new Map<PointId, number>();
    const branch = new Map<PointId, number>();
    let length = Infinity;
    let frontier = [from];
    // Layer d closes cycles of d + 1 hops (an edge back to the start) or, undirected, of 2d + 1 and more.
    for (let d = 0; frontier.length > 0 && (undirected ? 2 * d + 1 : d + 1) < length && d < max; d++) {
      const next: PointId[] = [];
      for (const at of frontier) {
        this.forEachStep(at, pattern, forward, (edge, other) => {
          if (!this.relMatches(pattern, edge, row) || edge === treeEdge.get(at)) return;
          if (other === from) length = Math.min(length, d + 1);
          else if (!depth.has(other)) {
            depth.set(other, d + 1);
            treeEdge.set(other, edge);
            branch.set(other, at === from ? edge : branch.get(at)!);
            next.push(other);
          } else if (undirected && at !== from && branch.get(other) !== branch.get(at)) length = Math.min(length, d + depth.get(other)! + 1);
        });
      }
      frontier = next;
    }
    if (length > max) return;
    // The hops from a node back to the start: the same search for an undirected pattern, else one against the direction.
    const back = undirected ? depth : this.hopsFrom(from, pattern, !forward, length, row);
    const edges: number[] = [];
    const inner: PointId[] = [];
    let landed = false;
    const walk = (at: PointId) => {
      if (landed && !all) return;
      const left = length - edges.length;
      this.forEachStep(at, pattern, forward, (edge, other) => {
        if (landed && !all) return;
        if (!this.relMatches(pattern, edge, row)) return;
        if (other === from) {
          if (left !== 1) return;
          edges.push(edge);
          const hop = forward ? { edges: [...edges], inner: [...inner] } : { edges: [...edges].reverse(), inner: [...inner].reverse() };
          // The walk holds the other edges already.
          this.usedRels.add(edge);
          land(hop, from);
          this.usedRels.delete(edge);
          edges.pop();
          landed = true;
          return;
        }
        const home = back.get(other);
        if (left < 2 || home === undefined || home > left - 1) return;
        edges.push(edge);
        inner.push(other);
        this.usedRels.add(edge);
        walk(other);
        this.usedRels.delete(edge);
        inner.pop();
        edges.pop();
      });
    };
    walk(from);
  }

  /** The fewest moves (relationships, or repetitions of a group) from `from` to each node within `limit`, along the pattern taken the given way; with a `goal`, only until it is reached. */
  private hopsFrom(from: PointId, pattern: RelPattern, forward: boolean, limit: number, row: Row, each: EdgeTest[] = [], goal?: PointId): Map<PointId, number> {
    const hops = new Map<PointId, number>([[from, 0]]);
    let frontier = [from];
    for (let d = 1; d <= limit && frontier.length > 0 && !(goal !== undefined && hops.has(goal)); d++) {
      const next: PointId[] = [];
      for (const at of frontier) {
        this.movesFrom(at, pattern, forward, row, ({ to }) => {
          if (hops.has(to)) return;
          hops.set(to, d);
          next.push(to);
        }, each);
      }
      frontier = next;
    }
    return hops;
  }

  /** Whether a predicate is true for the row; what evaluating it held is let go. */
  private holds(e: Expr, row: Row): boolean {
    const { guard } = this.ctx;
    const before = guard.used;
    const ok = isTrue(e, row, this.ctx);
    guard.release(guard.used - before);
    return ok;
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
    if (pattern.group) return this.repeatGroup(pattern.group, pattern.length!, forward, from, row, land);
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
   * A quantified path pattern: its inside matched again and again, each repetition from the node
   * the last one ended on (right to left when the match grows left), landing after each number of
   * repetitions within the bounds with the group's variables bound to lists in path order.
   * Relationships stay unique across repetitions, so an unbounded group ends.
   */
  private repeatGroup(group: PathGroup, bounds: { min: number; max: number }, forward: boolean, from: PointId, row: Row, land: (hop: Hop, other: PointId) => void): void {
    const names = groupVariables(group);
    const done: Repetition[] = [];
    const landHere = (at: PointId) => {
      const inOrder = forward ? done : [...done].reverse();
      const hop = { edges: inOrder.flatMap((r) => r.edges), inner: inOrder.flatMap((r) => r.nodes.slice(1)).slice(0, -1) };
      names.forEach((name, i) => setEntry(row, name, inOrder.map((r) => r.values[i]!)));
      land(hop, at);
      for (const name of names) delete row[name];
    };
    const extend = (at: PointId) => {
      if (done.length >= bounds.min) landHere(at);
      if (done.length >= bounds.max) return;
      this.repeatOnce(group, names, forward, at, row, (r) => {
        done.push(r);
        extend(forward ? r.nodes[r.nodes.length - 1]! : r.nodes[0]!);
        done.pop();
      });
    };
    extend(from);
  }

  /**
   * Each fit of a group's inside from `start` (its first node, or its last when going backward),
   * passing the group's WHERE. While `found` runs, the inside's variables are unbound again, so the
   * next repetition binds them afresh.
   */
  private repeatOnce(group: PathGroup, names: string[], forward: boolean, start: PointId, row: Row, found: (r: Repetition) => void): void {
    let plan = this.groupPlans.get(group);
    if (!plan) {
      plan = { part: { pathVariable: null, nodes: group.nodes, rels: group.rels, pos: group.pos }, anchor: 0, seek: { kind: 'all' } };
      this.groupPlans.set(group, plan);
    }
    this.fit({ ...plan, anchor: forward ? 0 : group.nodes.length - 1 }, start, row, (nodes, hops) => {
      if (group.where && !this.holds(group.where, row)) return;
      const values = names.map((name) => row[name]!);
      for (const name of names) delete row[name];
      found({ nodes: [...nodes], edges: hops.map((h) => h.edges[0]!), values });
      names.forEach((name, i) => setEntry(row, name, values[i]!));
    });
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
