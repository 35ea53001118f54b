/** Resolves after the event loop has had a turn (pending I/O and timers run first): where a long query lets other requests in. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
