import type { PointId } from '../storage/point-id.js';
import { runtimeError } from '../query/cypher/errors.js';
import type { GraphTx } from '../query/cypher/graph-tx.js';
import { floorDiv, floorMod, NANOS_PER_SECOND, SECONDS_PER_DAY } from '../query/cypher/temporal/calendar.js';
import { CypherDate, CypherDateTime, CypherDuration, CypherLocalDateTime, CypherLocalTime, CypherTime } from '../query/cypher/temporal/types.js';
import { checkZone, offsetAt, offsetForLocal } from '../query/cypher/temporal/zones.js';
import { resolveValue, type Resolved, type ResolvedMap, type ResolvedNode, type ResolvedPath, type ResolvedPoint, type ResolvedRel, type TemporalFields } from '../query/cypher/resolved-values.js';
import { setEntry, type Value } from '../query/cypher/values.js';
import { PackFloat, Structure, type PackValue } from './packstream/structure.js';
import { WholeFloat } from '../query/cypher/numbers.js';
import { CRS, crsOf, CypherPoint } from '../query/cypher/spatial/point.js';

/** PackStream structure signatures of the graph and temporal types. */
const SIG = {
  node: 0x4e,
  relationship: 0x52,
  unbound: 0x72,
  path: 0x50,
  date: 0x44,
  time: 0x54,
  localTime: 0x74,
  dateTime: 0x49,
  dateTimeZoneId: 0x69,
  legacyDateTime: 0x46,
  legacyDateTimeZoneId: 0x66,
  localDateTime: 0x64,
  duration: 0x45,
  point2d: 0x58,
  point3d: 0x59,
} as const;

/**
 * How one connection writes values: Bolt 5 adds element ids to nodes and relationships, and
 * sends date-times as UTC instants (4.4 does too once the client asked for the `utc` patch).
 * A node's integer id is its point id; a UUID point id gets a negative integer, the same one
 * for the life of the connection, and its element id is the UUID.
 */
export class ValueWriter {
  private readonly uuidIds = new Map<string, number>();

  constructor(
    readonly elementIds: boolean,
    readonly utc: boolean,
  ) {}

  nodeId(id: PointId): number {
    if (typeof id === 'number') return id;
    let n = this.uuidIds.get(id);
    if (n === undefined) this.uuidIds.set(id, (n = -1 - this.uuidIds.size));
    return n;
  }

  /** A query result value, read while the query's overlay is at hand (deleted entities show what they held). */
  write(v: Value, tx: GraphTx): PackValue {
    return this.pack(resolveValue(v, tx));
  }

  /** A value whose entities were read already (here, or on a Cypher replica). */
  pack(r: Resolved): PackValue {
    if (r === null || typeof r !== 'object' || r instanceof Uint8Array) return r;
    if (Array.isArray(r)) return r.map((x) => this.pack(x));
    if (r instanceof Map) return this.map(r);
    switch (r.$) {
      case 'float':
        return new PackFloat(r.value);
      case 'node':
        return this.node(r);
      case 'rel':
        return this.relationship(r);
      case 'path':
        return this.path(r);
      case 'temporal':
        return this.temporal(r.value);
      case 'point':
        return pointStructure(r);
    }
  }

  private map(m: ResolvedMap): { [key: string]: PackValue } {
    const out: { [key: string]: PackValue } = {};
    for (const [k, x] of m) setEntry(out, k, this.pack(x));
    return out;
  }

  private node(n: ResolvedNode): Structure {
    const fields: PackValue[] = [this.nodeId(n.id), n.labels, this.map(n.properties)];
    if (this.elementIds) fields.push(String(n.id));
    return new Structure(SIG.node, fields);
  }

  private relationship(e: ResolvedRel): Structure {
    const fields: PackValue[] = [e.id, this.nodeId(e.from), this.nodeId(e.to), e.type, this.map(e.properties)];
    if (this.elementIds) fields.push(String(e.id), String(e.from), String(e.to));
    return new Structure(SIG.relationship, fields);
  }

  /** Path: its distinct nodes and relationships, and the walk as indices (relationship 1-based, negative when walked backwards). */
  private path(p: ResolvedPath): Structure {
    const nodeAt = new Map<PointId, number>();
    const relAt = new Map<number, number>();
    const nodes: PackValue[] = [];
    const rels: PackValue[] = [];
    const nodeIndex = (n: ResolvedNode): number => {
      let i = nodeAt.get(n.id);
      if (i === undefined) {
        nodeAt.set(n.id, (i = nodes.length));
        nodes.push(this.node(n));
      }
      return i;
    };
    nodeIndex(p.nodes[0]!);
    const indices: number[] = [];
    p.rels.forEach((e, step) => {
      let r = relAt.get(e.id);
      if (r === undefined) {
        relAt.set(e.id, (r = rels.length));
        const fields: PackValue[] = [e.id, e.type, this.map(e.properties)];
        if (this.elementIds) fields.push(String(e.id));
        rels.push(new Structure(SIG.unbound, fields));
      }
      // A relationship no longer found (ends -1) counts as walked forwards.
      const forward = e.from === -1 || e.from === p.nodes[step]!.id;
      indices.push(forward ? r + 1 : -(r + 1), nodeIndex(p.nodes[step + 1]!));
    });
    return new Structure(SIG.path, [nodes, rels, indices]);
  }

  private temporal(v: TemporalFields): Structure {
    switch (v.kind) {
      case 'date':
        return new Structure(SIG.date, [v.epochDay]);
      case 'localtime':
        return new Structure(SIG.localTime, [v.nanoOfDay]);
      case 'time':
        return new Structure(SIG.time, [v.nanoOfDay, v.offsetSeconds]);
      case 'localdatetime':
        return new Structure(SIG.localDateTime, [localSeconds(v.epochDay, v.nanoOfDay), v.nanoOfDay % NANOS_PER_SECOND]);
      case 'datetime': {
        const local = localSeconds(v.epochDay, v.nanoOfDay);
        const nanos = v.nanoOfDay % NANOS_PER_SECOND;
        const seconds = this.utc ? local - v.offsetSeconds : local;
        if (v.zone !== null) return new Structure(this.utc ? SIG.dateTimeZoneId : SIG.legacyDateTimeZoneId, [seconds, nanos, v.zone]);
        return new Structure(this.utc ? SIG.dateTime : SIG.legacyDateTime, [seconds, nanos, v.offsetSeconds]);
      }
      case 'duration':
        return new Structure(SIG.duration, [v.months, v.days, Number.isSafeInteger(v.seconds) ? v.seconds : v.exactSeconds, v.nanos]);
    }
  }
}

const localSeconds = (epochDay: number, nanoOfDay: number) => epochDay * SECONDS_PER_DAY + Math.floor(nanoOfDay / NANOS_PER_SECOND);

const typeError = (message: string) => runtimeError('TypeError', 'InvalidParameterType', message);

/** A point as Bolt's Point2D or Point3D: srid, then the coordinates as floats. */
function pointStructure(p: ResolvedPoint): Structure {
  const coords = [p.x, p.y, ...(p.z === null ? [] : [p.z])].map((c) => new PackFloat(c));
  return new Structure(p.z === null ? SIG.point2d : SIG.point3d, [p.srid, ...coords]);
}

/** A Point2D or Point3D parameter. */
function pointOf(s: Structure): CypherPoint {
  const [srid, ...coords] = s.fields;
  const xyz = coords.map((c) => (c instanceof PackFloat ? c.value : c));
  const crs = typeof srid === 'number' ? crsOf(srid) : undefined;
  if (crs === undefined) throw typeError(`a point's srid must be 7203, 9157, 4326 or 4979, got ${String(srid)}`);
  if (!xyz.every((c): c is number => typeof c === 'number' && Number.isFinite(c))) throw typeError("a point's coordinates must be finite numbers");
  const dims = s.signature === SIG.point2d ? 2 : 3;
  if (xyz.length !== dims || CRS[crs].dims !== dims) throw typeError(`a ${crs} point has ${CRS[crs].dims} coordinates, got ${xyz.length}`);
  return new CypherPoint(srid as number, xyz[0]!, xyz[1]!, xyz[2] ?? null);
}

const int = (v: PackValue | undefined, what: string): number => {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError(`${what} must be an integer within ±2^53`);
  return v;
};

/** A parameter as the Cypher engine's value; types the engine has no counterpart for are refused by name. */
export function readParameter(v: PackValue): Value {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (v instanceof PackFloat) return new WholeFloat(v.value);
  if (typeof v === 'bigint') return v;
  if (v instanceof Uint8Array) return v;
  if (Array.isArray(v)) return v.map(readParameter);
  if (v instanceof Structure) return readStructure(v);
  const out: Record<string, Value> = {};
  for (const [k, x] of Object.entries(v)) setEntry(out, k, readParameter(x));
  return out;
}

function readStructure(s: Structure): Value {
  const f = s.fields;
  const epochParts = (seconds: number, nanos: number) => ({ epochDay: floorDiv(seconds, SECONDS_PER_DAY), nanoOfDay: floorMod(seconds, SECONDS_PER_DAY) * NANOS_PER_SECOND + nanos });
  switch (s.signature) {
    case SIG.date:
      return new CypherDate(int(f[0], 'a date'));
    case SIG.localTime:
      return new CypherLocalTime(int(f[0], 'a local time'));
    case SIG.time:
      return new CypherTime(int(f[0], 'a time'), int(f[1], 'a time offset'));
    case SIG.localDateTime: {
      const { epochDay, nanoOfDay } = epochParts(int(f[0], 'a local datetime'), int(f[1], 'nanoseconds'));
      return new CypherLocalDateTime(epochDay, nanoOfDay);
    }
    case SIG.dateTime:
    case SIG.legacyDateTime: {
      const offset = int(f[2], 'a datetime offset');
      const seconds = int(f[0], 'a datetime') + (s.signature === SIG.dateTime ? offset : 0);
      const { epochDay, nanoOfDay } = epochParts(seconds, int(f[1], 'nanoseconds'));
      return new CypherDateTime(epochDay, nanoOfDay, offset, null);
    }
    case SIG.dateTimeZoneId:
    case SIG.legacyDateTimeZoneId: {
      const zone = f[2];
      if (typeof zone !== 'string') throw typeError('a datetime zone id must be a string');
      checkZone(zone);
      const seconds = int(f[0], 'a datetime');
      const offset = s.signature === SIG.dateTimeZoneId ? offsetAt(zone, seconds) : offsetForLocal(zone, seconds);
      const local = s.signature === SIG.dateTimeZoneId ? seconds + offset : seconds;
      const { epochDay, nanoOfDay } = epochParts(local, int(f[1], 'nanoseconds'));
      return new CypherDateTime(epochDay, nanoOfDay, offset, zone);
    }
    case SIG.duration:
      return new CypherDuration(int(f[0], 'duration months'), int(f[1], 'duration days'), typeof f[2] === 'bigint' ? f[2] : int(f[2], 'duration seconds'), int(f[3], 'duration nanoseconds'));
    case SIG.point2d:
    case SIG.point3d:
      return pointOf(s);
  }
  const name = s.signature === SIG.node || s.signature === SIG.relationship ? 'nodes and relationships are' : `structure 0x${s.signature.toString(16)} is`;
  throw typeError(`${name} not supported as parameters`);
}
