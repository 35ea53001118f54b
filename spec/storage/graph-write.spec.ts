import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { applyEvent } from '../../storage/engine/apply-event.js';
import { Engine } from '../../storage/engine/engine.js';
import type { CollectionConfig, GraphChange } from '../../storage/events/types.js';
import { MemoryLog } from '../../storage/log/memory-log.js';

const config: CollectionConfig = { size: 2, distance: 'Euclid', m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
const point = (id: number) => ({ id, vector: null, payload: { id }, labels: ['N'] });

function state() {
  const collections = new Map<string, Collection>();
  applyEvent(collections, 1, { type: 'create_collection', name: 'g', config });
  applyEvent(collections, 2, { type: 'upsert_points', collection: 'g', points: [point(1), point(2)] });
  return { collections, c: collections.get('g')! };
}

const write = (collections: Map<string, Collection>, changes: GraphChange[]) => applyEvent(collections, 3, { type: 'graph_write', collection: 'g', changes });

describe('storage: graph_write events', () => {
  it('applies creations, updates and deletions in order, with the ids the writer chose', () => {
    const { collections, c } = state();
    const r = write(collections, [
      { kind: 'create_node', point: point(3) },
      { kind: 'create_edge', id: 0, edge: { from: 1, to: 3, relation: 'T', weight: 2, properties: { p: 1 } } },
      { kind: 'create_edge', id: 1, edge: { from: 1, to: 3, relation: 'T', weight: 1 } },
      { kind: 'update_edge', id: 1, weight: 5, properties: { q: true } },
      { kind: 'update_node', point: { ...point(2), payload: { changed: true } } },
      { kind: 'delete_node', id: 1 },
    ]);
    expect(r.error).to.equal(undefined);
    expect([...c.store.sortedIds()]).to.deep.equal([2, 3]);
    expect(c.store.payloads[c.store.slotOf(2)]).to.deep.equal({ changed: true });
    expect(c.graph.edgeCount, 'deleting node 1 took its edges').to.equal(0);
    expect(c.graph.nextEdgeId).to.equal(2);
    expect(c.nextNodeId).to.equal(4);
  });

  it('is a no-op (409) when a concurrent write took an id or removed what it changes', () => {
    const cases: GraphChange[][] = [
      [{ kind: 'create_node', point: point(2) }],
      [{ kind: 'create_node', point: point(5) }, { kind: 'update_node', point: point(9) }],
      [{ kind: 'create_node', point: point(5) }, { kind: 'create_edge', id: 0, edge: { from: 5, to: 8, relation: 'T', weight: 1 } }],
      [{ kind: 'create_node', point: point(5) }, { kind: 'delete_edge', id: 3 }],
      [{ kind: 'create_node', point: point(5) }, { kind: 'delete_node', id: 1 }, { kind: 'delete_node', id: 1 }],
    ];
    for (const changes of cases) {
      const { collections, c } = state();
      const r = write(collections, changes);
      expect(r.error?.code, JSON.stringify(changes)).to.equal(409);
      expect([...c.store.sortedIds()], 'nothing applied').to.deep.equal([1, 2]);
    }
  });

  it('refuses an edge id below the store counter and replays to the same state', async () => {
    const { collections } = state();
    write(collections, [{ kind: 'create_edge', id: 4, edge: { from: 1, to: 2, relation: 'T', weight: 1 } }]);
    expect(write(collections, [{ kind: 'create_edge', id: 2, edge: { from: 1, to: 2, relation: 'T', weight: 1 } }]).error?.code).to.equal(409);

    const log = new MemoryLog();
    const engine = new Engine(log);
    await engine.submit({ type: 'create_collection', name: 'g', config });
    await engine.submit({ type: 'upsert_points', collection: 'g', points: [point(1), point(2)] });
    await engine.submit({ type: 'graph_write', collection: 'g', changes: [{ kind: 'create_edge', id: 0, edge: { from: 1, to: 2, relation: 'T', weight: 3, properties: { a: 1 } } }] });
    const again = new Engine(log);
    again.replay();
    expect(again.collections.get('g')!.graph.allEdges()).to.deep.equal(engine.collections.get('g')!.graph.allEdges());
  });

  it('validates what it writes before logging it', async () => {
    const engine = new Engine(new MemoryLog());
    await engine.submit({ type: 'create_collection', name: 'g', config });
    const bad = engine.submit({ type: 'graph_write', collection: 'g', changes: [{ kind: 'create_node', point: { id: 1, vector: Float32Array.of(1, 2, 3), payload: {}, labels: [] } }] });
    await bad.then(() => expect.fail('accepted'), (err: Error & { code: number }) => expect(err.code).to.equal(400));
    expect(engine.log.lastOperationId).to.equal(1);
  });
});
