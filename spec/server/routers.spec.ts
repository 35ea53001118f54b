import { expect } from 'chai';
import Koa from 'koa';
import Router from '@koa/router';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { fixedPathRoutes, rememberMatches } from '../../server/routers.js';

/** A real Koa app on a loopback port: `mount` puts its routers in; with `passed`, whatever they pass by answers "passed". */
async function serve(mount: (app: Koa) => void, passed = true): Promise<{ url: string; server: Server }> {
  const app = new Koa();
  mount(app);
  if (passed) {
    app.use((ctx) => {
      ctx.body = 'passed';
    });
  }
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const text = async (url: string, method = 'GET') => {
  const res = await fetch(url, { method });
  return `${res.status} ${await res.text()}`;
};

describe('server: routers', () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));

  it('fixedPathRoutes answers every path its router answers (any case, trailing slash) and passes the rest by', async () => {
    const health = new Router();
    health.get('/', (ctx) => void (ctx.body = 'root'));
    health.get('/healthz', (ctx) => void (ctx.body = 'healthy'));
    const plain = await serve((app) => app.use(health.routes()));
    const fixed = await serve((app) => app.use(fixedPathRoutes(health)));
    servers.push(plain.server, fixed.server);
    for (const [path, method] of [['/', 'GET'], ['/healthz', 'GET'], ['/HEALTHZ', 'GET'], ['/healthz/', 'GET'], ['/healthz//', 'GET'], ['/healthz', 'HEAD'], ['/healthz', 'POST'], ['/healthz/x', 'GET'], ['/health%7A', 'GET'], ['//', 'GET'], ['/collections/c/points/search', 'POST']] as const) {
      expect(await text(fixed.url + path, method), `${method} ${path}`).to.equal(await text(plain.url + path, method));
    }
    expect(await text(`${fixed.url}/collections/c/points/search`, 'POST')).to.equal('200 passed');
  });

  it('fixedPathRoutes refuses a router with a parameter in a path', () => {
    const r = new Router();
    r.get('/points/:id', (ctx) => void (ctx.body = ctx.params.id));
    expect(() => fixedPathRoutes(r)).to.throw(/without parameters, not \/points\/:id/);
  });

  it('rememberMatches answers what the router matches, a copy each time, past the paths it keeps and for long paths it does not keep', async () => {
    const build = () => {
      const r = new Router();
      r.get('/collections/:name', (ctx) => void (ctx.body = `get ${ctx.params.name}`));
      r.post('/collections/:name/points/search', (ctx) => void (ctx.body = `search ${ctx.params.name}`));
      r.get('/collections/:name/points/:id', (ctx) => void (ctx.body = `point ${ctx.params.id}`));
      return r;
    };
    const plain = build();
    const remembering = rememberMatches(build());
    for (let i = 0; i < 2_100; i++) {
      const path = i % 3 === 0 ? `/collections/c${i % 7}/points/search` : i % 3 === 1 ? `/collections/c/points/${i}` : `/collections/${'c'.repeat(300)}/points/${i}`;
      for (const method of ['GET', 'POST', 'HEAD']) {
        const want = plain.match(path, method);
        const got = remembering.match(path, method);
        expect(got.route, `${method} ${path}`).to.equal(want.route);
        expect(got.path.map((l) => l.path)).to.deep.equal(want.path.map((l) => l.path));
        expect(got.pathAndMethod.map((l) => l.path)).to.deep.equal(want.pathAndMethod.map((l) => l.path));
        got.path.push(got.path[0]!);
        expect(remembering.match(path, method).path).to.have.length(want.path.length);
      }
    }
    const app = await serve((a) => {
      a.use(remembering.routes());
      a.use(remembering.allowedMethods());
    }, false);
    servers.push(app.server);
    expect(await text(`${app.url}/collections/c1/points/search`, 'POST')).to.equal('200 search c1');
    expect(await text(`${app.url}/collections/c2/points/search`, 'POST')).to.equal('200 search c2');
    expect(await text(`${app.url}/collections/c/points/42`)).to.equal('200 point 42');
    expect(await text(`${app.url}/collections/c/points/search`, 'PUT')).to.equal('405 Method Not Allowed');
    expect(await text(`${app.url}/nowhere`)).to.equal('404 Not Found');
  });
});
