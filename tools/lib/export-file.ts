import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { writeConfig, writeEdge, writePoint } from '../../storage/events/codec.js';
import type { CollectionConfig, CollectionSettings, EdgeRecord, PointRecord } from '../../storage/events/types.js';
import { block, BLOCK, preamble } from '../../storage/export/format.js';

export interface ExportFileSpec {
  name: string;
  config: CollectionConfig;
  points: number;
  /** The point numbered i (0-based), made on demand so no file is ever held whole. */
  pointAt(i: number): PointRecord;
  edges?: readonly EdgeRecord[];
  /** The collection's settings (quantization, on_disk), as an export file keeps them. */
  settings?: CollectionSettings;
  /** Flip a byte in this POINTS block (0-based), to test damage far into a file. */
  damageBlock?: number;
}

const POINTS_PER_BLOCK = 1000;

/** An export file's blocks, made a block at a time (the format of storage/export/format.ts). */
export function* exportFileChunks(spec: ExportFileSpec): Generator<Uint8Array> {
  const edges = spec.edges ?? [];
  yield preamble();
  const header = new ByteWriter(128).str(spec.name);
  writeConfig(header, spec.config);
  yield block(BLOCK.header, header.f64(spec.points).f64(edges.length).f64(0).str(JSON.stringify(spec.settings ?? {})).str('').finish());
  yield block(BLOCK.indexes, new ByteWriter(8).u32(0).finish());
  let blocks = 2;
  for (let from = 0, n = 0; from < spec.points; from += POINTS_PER_BLOCK, n++) {
    const count = Math.min(POINTS_PER_BLOCK, spec.points - from);
    const w = new ByteWriter(64 + count * (spec.config.size * 4 + 64)).u32(count);
    for (let i = from; i < from + count; i++) writePoint(w, spec.pointAt(i));
    const framed = block(BLOCK.points, w.finish());
    if (n === spec.damageBlock) framed[framed.length - 10]! ^= 0x01;
    yield framed;
    blocks++;
  }
  if (edges.length > 0) {
    const w = new ByteWriter(64 + edges.length * 40).u32(edges.length);
    for (const e of edges) writeEdge(w, e);
    yield block(BLOCK.edges, w.finish());
    blocks++;
  }
  yield block(BLOCK.trailer, new ByteWriter(24).f64(spec.points).f64(edges.length).u32(blocks).finish());
}

/** Writes an export file to `path` a block at a time; answers its size in bytes. */
export async function writeExportFile(path: string, spec: ExportFileSpec): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  for (const chunk of exportFileChunks(spec)) {
    bytes += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}
