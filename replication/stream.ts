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

/** What a message in the stream is: a log entry, or the marker a promoted replica publishes to claim the stream. */
export type StreamMessage =
  | { kind: 'entry'; seq: number; opId: number; previous: number; primary: string | null; record: Uint8Array }
  | { kind: 'promotion'; seq: number; id: string; after: number; primary: string | null };

export function entryHeaders(previous: number, primary: string | null): MsgHdrs {
  const h = headers();
  h.set(PREVIOUS, String(previous));
  if (primary) h.set(PRIMARY, primary);
  return h;
}

/** Reads a stored or delivered message: its headers say which kind it is. */
export function readMessage(seq: number, h: MsgHdrs | undefined, data: Uint8Array): StreamMessage {
  const id = h?.get('Nats-Msg-Id') ?? '';
  const primary = h?.get(PRIMARY) || null;
  const after = h?.get(PROMOTED_AFTER);
  if (after) return { kind: 'promotion', seq, id, after: Number(after), primary };
  if (!/^\d{1,16}$/.test(id)) throw new Error(`stream message ${seq} has no operation_id (Nats-Msg-Id ${JSON.stringify(id)}): the stream holds something other than this database's log`);
  return { kind: 'entry', seq, opId: Number(id), previous: Number(h?.get(PREVIOUS) || 0), primary, record: data };
}

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

/** The operation_id a message stands at: its own for an entry, the one it follows for a marker. */
export const positionOf = (m: StreamMessage): number => (m.kind === 'entry' ? m.opId : m.after);

/**
 * The first stream sequence whose message stands above `opId` (operation_ids rise with the
 * sequence), by binary search over the messages held; one past the last when none does.
 */
export async function firstSeqAfter(jsm: JetStreamManager, stream: string, opId: number): Promise<number> {
  const info = await jsm.streams.info(stream);
  let lo = info.state.first_seq;
  let hi = info.state.last_seq + 1;
  if (info.state.messages === 0) return hi;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const m = await messageAt(jsm, stream, mid);
    if (m === null || positionOf(m) <= opId) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
