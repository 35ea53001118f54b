import { expect } from 'chai';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** The nice value of each of this process's threads (Linux: field 19 of /proc/<pid>/task/<tid>/stat). */
function niceValues(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      return [Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])];
    } catch {
      return [];
    }
  });
}

const count = (nice: number): number => niceValues().filter((n) => n === nice).length;
const mine = (): number => Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')[16]);

describe('workers: thread priority', function () {
  this.timeout(30_000);
  before(function () {
    // Nice values are per thread on Linux; a suite run already lowered could not be compared.
    if (process.platform !== 'linux' || mine() !== 0) this.skip();
  });

  it('a worker lowers its own thread only: the process and its other threads keep their nice value', async () => {
    const sevens = count(7);
    // Kept alive (the interval) until terminated, so its thread is there to be counted.
    const thread = new Worker(`import(${JSON.stringify(new URL('../../workers/thread-priority.js', import.meta.url).href)}).then((m) => { require('node:worker_threads').parentPort.postMessage(m.niceThisThread(7)); setInterval(() => {}, 1000); })`, { eval: true });
    try {
      const [set] = (await once(thread, 'message')) as [boolean];
      expect(set).to.equal(true);
      expect(count(7)).to.equal(sevens + 1);
      expect(mine(), 'this thread').to.equal(0);
    } finally {
      await thread.terminate();
    }
  });

  it('a Cypher replica thread runs at nice 10, below the request thread and the search workers', async () => {
    const tens = count(10);
    const thread = new Worker(new URL('../../workers/cypher-replica-thread.js', import.meta.url));
    try {
      await once(thread, 'online');
      for (let i = 0; i < 100 && count(10) === tens; i++) await new Promise((r) => setTimeout(r, 20));
      expect(count(10)).to.equal(tens + 1);
      expect(mine(), 'this thread').to.equal(0);
    } finally {
      await thread.terminate();
    }
  });
});
