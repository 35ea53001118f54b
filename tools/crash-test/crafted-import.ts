import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { writeConfig, writePointId } from '../../storage/events/codec.js';
import type { CollectionConfig, PointId } from '../../storage/events/types.js';
import { BLOCK, block, preamble } from '../../storage/export/format.js';

/**
 * An export file written byte by byte, so that it can carry payload JSON no collection would
 * export (nested thousands deep): the import must refuse it as the upsert does.
 */
export function craftedImport(config: CollectionConfig, points: { id: PointId; vector: number[]; payloadJson: string }[]): Buffer {
  const header = new ByteWriter(128).str('crafted');
  writeConfig(header, config);
  const body = new ByteWriter(1024).u32(points.length);
  for (const p of points) {
    writePointId(body, p.id);
    body.u8(1).u32(p.vector.length).floats(Float32Array.from(p.vector)).str(p.payloadJson).u16(0);
  }
  return Buffer.concat([
    preamble(),
    // no operation_id to give (0) and no settings
    block(BLOCK.header, header.f64(points.length).f64(0).f64(0).str('{}').str('').finish()),
    block(BLOCK.points, body.finish()),
    // the trailer counts the blocks before it: the header and one points block
    block(BLOCK.trailer, new ByteWriter(24).f64(points.length).f64(0).u32(2).finish()),
  ]);
}
