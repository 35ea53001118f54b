const queues = new WeakMap<object, Promise<unknown>>();

/**
 * Runs Cypher writes against one engine one at a time, each against the state its predecessor
 * left, so the ids one hands out are still free when its event applies. Every route that turns
 * Cypher into a log event (REST and Bolt) goes through here.
 */
export function serialWrite<T>(engine: object, run: () => Promise<T>): Promise<T> {
  const next = (queues.get(engine) ?? Promise.resolve()).then(run);
  queues.set(engine, next.catch(() => undefined));
  return next;
}
