import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;
let scheduled = false;

/**
 * Runs a full garbage collection now, so that a large buffer just let go of (float vectors moved
 * into a file) goes back to the OS at once rather than at the next major collection, which a
 * thread that allocates little may not reach for a long time. Node has no API for it: V8's
 * --expose-gc, set at runtime, makes a gc function in a new context (as jest's leak detector does).
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/** collectGarbage once the current work is done (once, however often it is asked for before it runs). */
export function collectGarbageSoon(): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    collectGarbage();
  }, 0).unref();
}
