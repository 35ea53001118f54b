import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Collection } from '../../storage/collection.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { call, startTestServer, useTestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';

const REPLAY = fileURLToPath(new URL('../../tools/replay/main.js', import.meta.url));

function replay(...args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [REPLAY, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

const upsert = (url: string, name: string, id: number) => call(url, 'PUT', `/collections/${name}/points`, { points: [{ id, vector: [id, 1], payload: {} }] });
const ids = async (url: string, name: string): Promise<number[]> =>
  (await call(url, 'POST', `/collections/${name}/points/scroll`, { limit: 100 })).body.result.points.map((p: { id: number }) => p.id);

/** Makes the collection's views throw on the next upsert, as a view past one of its limits would. */
function breakUpsert(c: Collection): void {
  c.upsert = () => {
    throw new RangeError('Map maximum size exceeded');
  };
}

describe('server: a logged entry whose apply throws', function () {
  this.timeout(60_000);

  describe('while running', () => {
    const s = useTestServer({}, 'each');

    it('stops writes with 503 naming the operation, answers every waiting request, and reports not ready', async () => {
      await call(s.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Euclid' } });
      await call(s.url, 'PUT', '/collections/d', { vectors: { size: 2, distance: 'Euclid' } });
      await upsert(s.url, 'c', 1);
      const failing = s.service.engine.log.lastOperationId + 1;
      breakUpsert(s.service.engine.collections.get('c')!);
      const answers = await Promise.all([upsert(s.url, 'c', 2), upsert(s.url, 'd', 3), upsert(s.url, 'd', 4)]);
      expect(answers.map((a) => a.status)).to.deep.equal([503, 503, 503]);
      expect(answers[0]!.body.message).to.equal(`log entry ${failing} (upsert_points on collection "c") could not be applied: Map maximum size exceeded; writes are stopped`);
      for (const later of answers.slice(1)) expect(later.body.message).to.match(new RegExp(`(writes stopped before this one was applied: |writes are stopped after )log entry ${failing} `));

      const ready = await call(s.url, 'GET', '/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.body.message).to.match(new RegExp(`^writes are stopped: log entry ${failing} \\(upsert_points on collection "c"\\)`));
      expect((await call(s.url, 'PUT', '/collections/e', { vectors: { size: 2, distance: 'Euclid' } })).status).to.equal(503);
      expect(s.service.engine.lastAppliedOperationId, 'nothing after the failed entry applied').to.equal(failing - 1);
      expect(await ids(s.url, 'd'), 'reads still answer').to.deep.equal([]);

      // A write that was waiting when the entry failed is in the log; one that arrived after was
      // refused before logging (which of the two depends on timing). The views restored from the
      // log at the next start hold the failed entry and every logged one.
      const logged = [3, 4].filter((_, i) => /^writes stopped before this one was applied/.test(answers[i + 1]!.body.message));
      await s.restart();
      expect((await call(s.url, 'GET', '/readyz')).status).to.equal(200);
      expect(await ids(s.url, 'c')).to.deep.equal([1, 2]);
      expect(await ids(s.url, 'd')).to.deep.equal(logged);
    });
  });

  describe('at start-up', () => {
    const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 32, ml: 0.5 };
    let dir: ReturnType<typeof tempDir>;
    beforeEach(() => {
      dir = tempDir();
    });
    afterEach(() => dir.remove());

    it('refuses to start naming the entry and the command; repair --skip sets it aside durably and verify and inspect report it', async () => {
      const first = await startTestServer({}, dir.path);
      await call(first.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Euclid' } });
      await upsert(first.url, 'c', 1);
      await first.stop();

      // An entry validation would refuse (an m0 no graph can allocate), written straight into the stopped data dir, and a good one after it.
      const log = LmdbLog.open(dir.path);
      const bad = log.append({ type: 'create_collection', name: 'bad', config: { ...config, m0: 2 ** 32 - 1 } });
      const good = log.append({ type: 'upsert_points', collection: 'c', points: [{ id: 2, vector: Float32Array.of(2, 1), payload: {}, labels: [] }] });
      await Promise.all([bad.durable, good.durable]);
      await log.close();

      let refusal = '';
      await startTestServer({}, dir.path).then(
        () => expect.fail('the server started on a log it cannot apply'),
        (err: Error) => (refusal = err.message),
      );
      expect(refusal).to.match(new RegExp(`^log entry ${bad.opId} \\(create_collection on collection "bad"\\) could not be applied: .*Invalid typed array length`));
      expect(refusal).to.contain(`run: npm run replay -- repair --skip ${bad.opId} --data-dir ${dir.path} --yes`);

      const failing = replay('verify', '--data-dir', dir.path);
      expect(failing.code, failing.out).to.equal(1);
      expect(failing.out).to.contain(`FAIL log entry ${bad.opId} (create_collection on collection "bad") could not be applied`);
      expect(failing.out).to.contain(`run repair --skip ${bad.opId} --yes`);

      const applies = replay('repair', '--data-dir', dir.path, '--skip', String(bad.opId - 1), '--yes');
      expect(applies.code, applies.out).to.equal(1);
      expect(applies.out).to.contain(`entry ${bad.opId - 1} (upsert_points on "c") applies: nothing to skip`);
      const later = replay('repair', '--data-dir', dir.path, '--skip', String(good.opId), '--yes');
      expect(later.code, later.out).to.equal(1);
      expect(later.out).to.contain(`an earlier one fails first (log entry ${bad.opId} `);
      const dryRun = replay('repair', '--data-dir', dir.path, '--skip', String(bad.opId));
      expect(dryRun.code).to.equal(1);
      expect(dryRun.out).to.contain('run again with --yes');
      const skipped = replay('repair', '--data-dir', dir.path, '--skip', String(bad.opId), '--yes');
      expect(skipped.code, skipped.out).to.equal(0);

      const verified = replay('verify', '--data-dir', dir.path);
      expect(verified.code, verified.out).to.equal(0);
      expect(verified.out).to.match(new RegExp(`entry ${bad.opId} is SKIPPED by repair --skip at \\S+: Invalid typed array length`));
      const listed = replay('inspect', '--data-dir', dir.path, '--from', String(bad.opId), '--to', String(bad.opId));
      expect(listed.out).to.match(new RegExp(`^${bad.opId}\\tcreate_collection\\tbad\\t\\d+ B\\tSKIPPED by repair --skip`));

      for (let start = 0; start < 2; start++) {
        const server = await startTestServer({}, dir.path);
        try {
          expect(await ids(server.url, 'c'), 'the entry after the skipped one applies').to.deep.equal(start === 0 ? [1, 2] : [1, 2, 3]);
          expect((await call(server.url, 'GET', '/collections/bad')).status).to.equal(404);
          expect((await upsert(server.url, 'c', 3 + start)).status).to.equal(200);
        } finally {
          await server.stop();
        }
      }
    });
  });
});
