/** Bolt's opening: the magic preamble, four version offers, and the version chosen (or none). */

export const BOLT_MAGIC = 0x6060b017;
export const HANDSHAKE_BYTES = 20;

export interface BoltVersion {
  major: number;
  minor: number;
}

/**
 * What this server speaks: Bolt 5.0 to 5.8 except 5.5 (which Neo4j never shipped, and drivers
 * do not speak), and 4.4 (the newest of Neo4j 4). Beyond 5.4 the messages are the same as far
 * as this server is concerned: 5.6 renames the notification filters it accepts and ignores,
 * 5.7 adds the GQL fields every FAILURE carries, 5.8 lets a driver learn the home database from
 * the `db` every RUN and BEGIN answer names.
 */
const NEWEST_5 = 8;
const NEVER_SHIPPED_5 = 5;

/**
 * The first offer (in the client's order of preference) this server can serve. Each offer is
 * [reserved, range, minor, major]: the versions major.minor down to major.(minor - range).
 * Offers of other majors (the 255.x manifest handshake, 6.x, 3.x) are passed over.
 */
export function chooseVersion(handshake: Buffer): BoltVersion | null {
  for (let i = 4; i < HANDSHAKE_BYTES; i += 4) {
    const range = handshake[i + 1]!;
    const minor = handshake[i + 2]!;
    const major = handshake[i + 3]!;
    const lowest = Math.max(0, minor - range);
    if (major === 5) {
      let best = Math.min(minor, NEWEST_5);
      if (best === NEVER_SHIPPED_5) best--;
      if (best >= lowest) return { major: 5, minor: best };
    }
    if (major === 4 && minor >= 4 && lowest <= 4) return { major: 4, minor: 4 };
  }
  return null;
}

/** The four bytes that answer the handshake (all zero: no version in common). */
export function versionReply(v: BoltVersion | null): Buffer {
  return Buffer.from([0, 0, v?.minor ?? 0, v?.major ?? 0]);
}
