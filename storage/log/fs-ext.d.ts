/** The part of the native fs-ext package used here (it ships no types). */
declare module 'fs-ext' {
  /** flock(2) on an open descriptor; throws an error with code EAGAIN when LOCK_NB finds the lock held. */
  function flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void;
  const fsExt: { flockSync: typeof flockSync };
  export default fsExt;
}
