import { Counter, type Registry } from 'prom-client';

/** A counter that follows a running total kept elsewhere, read on scrape. */
export function followTotal(registry: Registry, name: string, help: string, total: () => number): void {
  let counted = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = total();
      this.inc(now - counted);
      counted = now;
    },
  });
}
