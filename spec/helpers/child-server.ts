export { exited, spawnServer, type ChildServer } from '../../tools/lib/spawn-server.js';
