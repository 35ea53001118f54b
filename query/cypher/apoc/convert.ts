import { md5, sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { javaText } from '../apoc-functions.js';
import { propertiesOf, type FunctionDef } from '../functions.js';
import type { GraphTx } from '../graph-tx.js';
import { isFloat, isNumber, numberText } from '../numbers.js';
import { formatTemporal } from '../temporal/format.js';
import { isTemporal } from '../temporal/types.js';
import { isEntity, isMap, keyOf, NodeRef, PathValue, RelRef, VirtualNode, VirtualRel, fromJson, typeName, type MapValue, type Value } from '../values.js';
import { apocFunction, given, listArg, stringArg } from './args.js';

/** apoc.convert's JSON functions and apoc.util's hashes, as APOC 5 computes them. */

function nodeJson(tx: GraphTx, n: NodeRef | VirtualNode): string {
  const labels = n instanceof VirtualNode ? [...n.labels] : [...(tx.labelsOf(n.id) ?? [])];
  return `{"id":"${String(n.id)}","type":"node","labels":${JSON.stringify(labels)},"properties":${json(tx, propertiesOf(n, tx))}}`;
}

function relJson(tx: GraphTx, r: RelRef | VirtualRel): string {
  const type = r instanceof VirtualRel ? r.type : (tx.edge(r.id)?.type ?? null);
  const [start, end] = r instanceof VirtualRel ? [r.start, r.end] : [new NodeRef(tx.edgeFrom(r.id)), new NodeRef(tx.edgeTo(r.id))];
  return `{"id":"${r.id}","type":"relationship","label":${JSON.stringify(type)},"start":${nodeJson(tx, start)},"end":${nodeJson(tx, end)},"properties":${json(tx, propertiesOf(r, tx))}}`;
}

/** JSON text as APOC's Jackson writes it: no spaces, a float with its '.0', nodes and relationships as APOC shapes them, a path as the list of its parts. */
function json(tx: GraphTx, v: Value): string {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (isNumber(v)) return isFloat(v) ? numberText(v) : String(v);
  if (Array.isArray(v)) return `[${v.map((x) => json(tx, x)).join(',')}]`;
  if (v instanceof NodeRef || v instanceof VirtualNode) return nodeJson(tx, v);
  if (v instanceof RelRef || v instanceof VirtualRel) return relJson(tx, v);
  if (v instanceof PathValue) {
    const parts = v.nodes.flatMap((id, i) => (i < v.rels.length ? [nodeJson(tx, new NodeRef(id)), relJson(tx, new RelRef(v.rels[i]!))] : [nodeJson(tx, new NodeRef(id))]));
    return `[${parts.join(',')}]`;
  }
  if (isTemporal(v)) return JSON.stringify(formatTemporal(v));
  if (isMap(v)) return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${json(tx, x)}`).join(',')}}`;
  return JSON.stringify(javaText(v));
}

/** JSON text as a Cypher value; a JSON path (APOC's third argument) is refused by name. */
function parse(text: Value, path: Value | undefined, fail: (m: string) => Error): Value {
  if (given(path) && path !== '' && path !== '$') throw fail(`a JSON path (${javaText(path)}) is not supported by this server: pass the whole document and navigate the result`);
  try {
    return fromJson(JSON.parse(stringArg(text, fail)) as unknown);
  } catch (e) {
    if (e instanceof SyntaxError) throw fail(`Can't convert ${javaText(text)} to JSON: ${e.message}`);
    throw e;
  }
}

/** APOC's convertToList: a list as it is, a path as its nodes and relationships in order, any other value a list of one. */
function toList(v: Value): Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PathValue) return v.nodes.flatMap((id, i): Value[] => (i < v.rels.length ? [new NodeRef(id), new RelRef(v.rels[i]!)] : [new NodeRef(id)]));
  return [v];
}

// @noble/hashes, not node:crypto: the browser library bundles this module.
const hash = (digest: (bytes: Uint8Array) => Uint8Array) => ([values]: Value[], fail: (m: string) => Error): Value =>
  bytesToHex(digest(utf8ToBytes(listArg(values ?? null, fail).map((v) => (v === null ? '' : javaText(v))).join(''))));

export const APOC_CONVERT_FUNCTIONS: Record<string, FunctionDef> = Object.fromEntries([
  apocFunction('apoc.convert.toJson', 1, 1, ([v], _fail, ctx) => json(ctx.tx, v ?? null)),
  apocFunction('apoc.convert.fromJsonMap', 1, 3, ([text, path], fail) => {
    if (!given(text)) return null;
    const v = parse(text, path, fail);
    if (!isMap(v)) throw fail(`expected a JSON object, got ${typeName(v)} text`);
    return v;
  }),
  apocFunction('apoc.convert.fromJsonList', 1, 3, ([text, path], fail) => {
    if (!given(text)) return null;
    const v = parse(text, path, fail);
    if (!Array.isArray(v)) throw fail(`expected a JSON array, got ${typeName(v)} text`);
    return v;
  }),
  apocFunction('apoc.convert.toMap', 1, 1, ([v], fail, ctx) => {
    if (!given(v)) return null;
    if (isEntity(v)) return propertiesOf(v, ctx.tx);
    if (isMap(v)) return v as MapValue;
    throw fail(`can't convert a ${typeName(v)} to a map`);
  }),
  apocFunction('apoc.convert.toList', 1, 1, ([v]) => (given(v) ? toList(v) : null)),
  apocFunction('apoc.convert.toSet', 1, 1, ([v]) => {
    if (!given(v)) return null;
    const seen = new Map<string, Value>();
    for (const x of toList(v)) if (!seen.has(keyOf(x))) seen.set(keyOf(x), x);
    return [...seen.values()];
  }),
  apocFunction('apoc.util.md5', 1, 1, hash(md5)),
  apocFunction('apoc.util.sha1', 1, 1, hash(sha1)),
  apocFunction('apoc.util.sha256', 1, 1, hash(sha256)),
]);
