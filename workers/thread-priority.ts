import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Gives the calling thread the nice value `nice` (higher: less CPU when cores are contended).
 * On Linux a thread's nice value is its own, and /proc/thread-self names the thread's id; where
 * either is not so, or the system refuses, the thread keeps the process's priority. Answers
 * whether it was set.
 */
export function niceThisThread(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
