import { headers, type MsgHdrs } from '@nats-io/transport-node';
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';

/** The subject the log is published on; the stream holds it alone, so stream sequences go up by one per message. */
export const SUBJECT = 'vgdb.log';

/**
 * Headers a message carries beside Nats-Msg-Id (the operation_id for a log entry):
 * the operation_id of the entry published before it (a follower checks that none was missed),
 * the URL of the primary that published it, and, on a promotion marker, the entry it follows.
 */
export const PREVIOUS = 'Vgdb-Previous';
export const PRIMARY = 'Vgdb-Primary';
export const PROMOTED_AFTER = 'Vgdb-Promoted-After';
/**
 * On an entry too large for one message (the NATS servers' max_payload), sent as pieces in
 * consecutive messages: `<byte offset of this piece>/<bytes of the whole record>`. A piece's
 * Nats-Msg-Id is `<operation_id>@<byte offset>#<CRC-32 of the whole record>`: the CRC tells a
 * retried piece (stored once) from the same place in another record of that operation_id, which
 * a promoted replica may write after pieces its primary never finished.
 */
export const PIECE = 'Vgdb-Piece';
/**
 * On a piece of a streamed import's staged blocks (storage/log/import-stage.ts), published in
 * consecutive messages before the import's own entry, which names the stage:
 * `<stage>:<byte offset of this piece>/<bytes of the stage file>`. Its Nats-Msg-Id is
 * `<operation_id>+<byte offset>#<CRC-32 of the entry's record>`: the record names the stage, the
 * blocks' SHA-256 and (its chain hash) the history before it, so, as for an entry's pieces, a
 * promoted replica's own import at that operation_id is not taken for a retry of its old
 * primary's unfinished one.
 */
export const STAGE = 'Vgdb-Stage';

/** Where a piece of an entry lies in its record. */
export interface Piece {
  at: number;
  total: number;
}

/** Where a piece of a staged import's blocks lies in its stage file. */
export interface StagePiece extends Piece {
  stage: number;
}

/** What a message in the stream is: a log entry (or a piece of one, or of its staged blocks), or the marker a promoted replica publishes to claim the stream. */
export type StreamMessage =
  | { kind: 'entry'; seq: number; opId: number; previous: number; primary: string | null; record: Uint8Array; piece: Piece | null; stage: StagePiece | null }
  | { kind: 'promotion'; seq: number; id: string; after: number; primary: string | null };

export function entryHeaders(previous: number, primary: string | null, piece: Piece | null = null, stage: StagePiece | null = null): MsgHdrs {
  const h = headers();
  h.set(PREVIOUS, String(previous));
  if (primary) h.set(PRIMARY, primary);
  if (piece) h.set(PIECE, `${piece.at}/${piece.total}`);
  if (stage) h.set(STAGE, `${stage.stage}:${stage.at}/${stage.total}`);
  return h;
}

/** The message id an entry, or a piece of one, is published under (JetStream stores a retried one once); `recordCrc`: the whole record's CRC-32. */
export const entryMessageId = (opId: number, piece: Piece | null, recordCrc: number): string => (piece ? `${opId}@${piece.at}#${recordCrc.toString(16).padStart(8, '0')}` : String(opId));

/** The message id of a piece of an entry's staged blocks; `recordCrc`: the CRC-32 of the entry's record. */
export const stageMessageId = (opId: number, at: number, recordCrc: number): string => `${opId}+${at}#${recordCrc.toString(16).padStart(8, '0')}`;

const notOurs = (seq: number, what: string): Error => new Error(`stream message ${seq} ${what}: the stream holds something other than this database's log`);

/** Reads a stored or delivered message: its headers say which kind it is. */
export function readMessage(seq: number, h: MsgHdrs | undefined, data: Uint8Array): StreamMessage {
  const id = h?.get('Nats-Msg-Id') ?? '';
  const primary = h?.get(PRIMARY) || null;
  const after = h?.get(PROMOTED_AFTER);
  if (after) return { kind: 'promotion', seq, id, after: Number(after), primary };
  const named = /^(\d{1,16})(?:([@+])(\d{1,16})#[0-9a-f]{8})?$/.exec(id);
  if (!named) throw notOurs(seq, `has no operation_id (Nats-Msg-Id ${JSON.stringify(id)})`);
  const base = { kind: 'entry', seq, opId: Number(named[1]), previous: Number(h?.get(PREVIOUS) || 0), primary, record: data, piece: null, stage: null } as const;
  const stageText = h?.get(STAGE) || null;
  if (stageText !== null || named[2] === '+') {
    const place = stageText === null ? null : /^(\d{1,16}):(\d{1,16})\/(\d{1,16})$/.exec(stageText);
    if (!place || named[2] !== '+' || named[3] !== place[2]) throw notOurs(seq, `names a piece of staged blocks as ${JSON.stringify(stageText)} (Nats-Msg-Id ${JSON.stringify(id)})`);
    const stage = { stage: Number(place[1]), at: Number(place[2]), total: Number(place[3]) };
    if (stage.at + data.length > stage.total) throw notOurs(seq, `holds bytes ${stage.at} to ${stage.at + data.length} of staged blocks of ${stage.total}`);
    return { ...base, stage };
  }
  const pieceText = h?.get(PIECE) || null;
  const place = pieceText === null ? null : /^(\d{1,16})\/(\d{1,16})$/.exec(pieceText);
  if (pieceText !== null && (!place || named[3] !== place[1])) throw notOurs(seq, `names a piece of an entry as ${JSON.stringify(pieceText)} (Nats-Msg-Id ${JSON.stringify(id)})`);
  if (pieceText === null && named[3] !== undefined) throw notOurs(seq, `is a piece of an entry without its ${PIECE} header`);
  const piece = place ? { at: Number(place[1]), total: Number(place[2]) } : null;
  if (piece && piece.at + data.length > piece.total) throw notOurs(seq, `holds bytes ${piece.at} to ${piece.at + data.length} of an entry of ${piece.total}`);
  return { ...base, piece };
}

/** Whether a message is a piece of an entry that more messages follow: of its record, or of its staged blocks (its record follows them). */
export const isPartial = (m: StreamMessage): boolean => m.kind === 'entry' && (m.stage !== null || (m.piece !== null && m.piece.at + m.record.length < m.piece.total));

const stored = (m: StoredMsg): StreamMessage => readMessage(m.seq, m.header, m.data);

export interface StreamSettings {
  name: string;
  /** How many NATS nodes hold each message (3 in a 3-node cluster: an acknowledgement means a quorum has it). */
  replicas: number;
}

/** Creates the stream when it is missing (primary and replicas alike may be first). */
export async function ensureStream(jsm: JetStreamManager, settings: StreamSettings): Promise<void> {
  try {
    await jsm.streams.info(settings.name);
    return;
  } catch (err) {
    if (!/stream not found/i.test((err as Error).message)) throw err;
  }
  try {
    await jsm.streams.add({
      name: settings.name,
      subjects: [SUBJECT],
      num_replicas: settings.replicas,
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
    });
  } catch (err) {
    // Another server created it in the meantime.
    if (!/already in use|exists/i.test((err as Error).message)) throw err;
  }
}

/** The stream's newest message and its sequence (seq 0 and no message: the stream is empty). */
export async function streamHead(jsm: JetStreamManager, stream: string): Promise<{ seq: number; first: number; last: StreamMessage | null }> {
  const info = await jsm.streams.info(stream);
  const seq = info.state.last_seq;
  if (info.state.messages === 0) return { seq, first: info.state.first_seq, last: null };
  const m = await jsm.streams.getMessage(stream, { seq });
  return { seq, first: info.state.first_seq, last: m ? stored(m) : null };
}

/** The message at a sequence, or null when the stream does not hold it. */
export async function messageAt(jsm: JetStreamManager, stream: string, seq: number): Promise<StreamMessage | null> {
  const m = await jsm.streams.getMessage(stream, { seq });
  return m ? stored(m) : null;
}

/**
 * The operation_id the stream stands at after a message: an entry's own once it is whole (a
 * piece that more follow, and a piece of its staged blocks, stand at the entry before it), the
 * one it follows for a marker.
 */
export const positionOf = (m: StreamMessage): number => (m.kind === 'promotion' ? m.after : isPartial(m) ? m.previous : m.opId);

/** The operation_id a message belongs to: an entry's (each of its pieces too), or the one a marker follows. */
const entryOf = (m: StreamMessage): number => (m.kind === 'entry' ? m.opId : m.after);

/**
 * The first stream sequence whose message belongs above `opId` (operation_ids rise with the
 * sequence: an entry sent as pieces is found at its first), by binary search over the messages
 * held; one past the last when none does. The pieces of an entry a primary never finished, then
 * a marker, may stand out of order; the search lands on them or on the marker, and a follower
 * drops such pieces at the marker either way.
 */
export async function firstSeqAfter(jsm: JetStreamManager, stream: string, opId: number): Promise<number> {
  const info = await jsm.streams.info(stream);
  let lo = info.state.first_seq;
  let hi = info.state.last_seq + 1;
  if (info.state.messages === 0) return hi;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const m = await messageAt(jsm, stream, mid);
    if (m === null || entryOf(m) <= opId) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
