export { ReplicaSet } from '../../tools/lib/replica-set.js';
export { natsServerPresent, NATS_SERVER } from '../../tools/lib/nats-cluster.js';
