import { VectorGraphDB } from './vectorgraphdb.js';

const out = document.getElementById('out');
const show = (title, value) => (out.textContent = `${title}\n\n${JSON.stringify(value, null, 2)}`);

const db = await VectorGraphDB.init();
const N = 5000;
db.createCollection('ring', { vectors: { size: 8, distance: 'Cosine' } });
const vectorOf = (i) => Float32Array.from({ length: 8 }, (_, k) => Math.cos((2 * Math.PI * i * (k + 1)) / N));
const t0 = performance.now();
for (let from = 0; from < N; from += 500) {
  const points = [];
  for (let i = from; i < from + 500; i++) points.push({ id: i, vector: vectorOf(i), payload: { name: `p${i}`, bucket: i % 10 }, labels: ['Point'] });
  db.upsert('ring', points);
}
for (let i = 0; i < N; i++) db.addEdge('ring', i, (i + 1) % N, 'NEXT', 1);
db.flushIndex();
let current = 42;
show(`loaded ${N} points and ${N} edges in ${(performance.now() - t0).toFixed(0)} ms`, db.getCollection('ring'));

document.getElementById('search').onclick = () => {
  current = Math.floor(Math.random() * N);
  const t = performance.now();
  const hits = db.search('ring', vectorOf(current), 5, { with_payload: ['name'] });
  show(`nearest 5 to point ${current} (${(performance.now() - t).toFixed(2)} ms)`, hits);
};
document.getElementById('traverse').onclick = () => show(`traverse from ${current}, depth 3`, db.traverse('ring', current, 3, ['NEXT']));
document.getElementById('cypher').onclick = () =>
  show('Cypher', db.query('ring', 'MATCH (a:Point)-[:NEXT*1..3]->(b) WHERE id(a) = $id RETURN b.name, b.bucket ORDER BY b.name', { id: current }));
