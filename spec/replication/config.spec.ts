import { expect } from 'chai';
import { readConfig } from '../../server/config.js';

describe('replication: configuration (SERVICE_NATS_URL and the rest)', () => {
  it('is off without SERVICE_NATS_URL, and refuses its other settings by name then', () => {
    expect(readConfig({}).replication).to.equal(null);
    expect(() => readConfig({ SERVICE_ROLE: 'replica' })).to.throw(/SERVICE_ROLE needs SERVICE_NATS_URL/);
    expect(() => readConfig({ SERVICE_REPLICATION: 'async' })).to.throw(/SERVICE_REPLICATION needs SERVICE_NATS_URL/);
  });

  it('reads the servers, role, mode and URLs, with sync and primary by default', () => {
    const primary = readConfig({ SERVICE_NATS_URL: 'nats://a:4222, nats://b:4222' }).replication!;
    expect(primary).to.include({ role: 'primary', mode: 'sync', stream: 'VGDB_LOG', streamReplicas: 3, ackTimeoutMs: 5000, primaryUrl: null });
    expect(primary.natsServers).to.deep.equal(['nats://a:4222', 'nats://b:4222']);
    const replica = readConfig({ SERVICE_NATS_URL: 'nats://a:4222', SERVICE_ROLE: 'Replica', SERVICE_REPLICATION: 'async', SERVICE_PRIMARY_URL: 'http://p:6333/', SERVICE_PRIMARY_API_KEY: 'k' }).replication!;
    expect(replica).to.include({ role: 'replica', mode: 'async', primaryUrl: 'http://p:6333', primaryApiKey: 'k' });
  });

  it('refuses a replica without its primary, and malformed values, naming the variable', () => {
    const nats = { SERVICE_NATS_URL: 'nats://a:4222' };
    expect(() => readConfig({ ...nats, SERVICE_ROLE: 'replica' })).to.throw(/SERVICE_ROLE=replica needs SERVICE_PRIMARY_URL/);
    expect(() => readConfig({ ...nats, SERVICE_ROLE: 'leader' })).to.throw(/SERVICE_ROLE must be one of primary, replica, got "leader"/);
    expect(() => readConfig({ ...nats, SERVICE_REPLICATION: 'quorum' })).to.throw(/SERVICE_REPLICATION must be one of sync, async/);
    expect(() => readConfig({ ...nats, SERVICE_PRIMARY_URL: 'p:6333' })).to.throw(/SERVICE_PRIMARY_URL must be an http:\/\/ or https:\/\/ URL/);
    expect(() => readConfig({ ...nats, SERVICE_NATS_STREAM: 'a.b' })).to.throw(/SERVICE_NATS_STREAM must be/);
    expect(() => readConfig({ ...nats, SERVICE_NATS_REPLICAS: '7' })).to.throw(/SERVICE_NATS_REPLICAS must be an integer from 0 to 5/);
  });
});
