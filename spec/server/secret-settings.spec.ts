import { expect } from 'chai';
import { readConfig } from '../../server/config.js';

describe('credential settings', () => {
  it('refuses the singular SERVICE_API_KEY and SERVICE_BEARER_TOKEN by name, which would leave the server open', () => {
    expect(() => readConfig({ SERVICE_API_KEY: 'sesame' })).to.throw('SERVICE_API_KEY is not a setting: put the keys in SERVICE_API_KEYS (comma-separated); without it authentication is off');
    expect(() => readConfig({ SERVICE_BEARER_TOKEN: 't' })).to.throw('SERVICE_BEARER_TOKEN is not a setting: put the keys in SERVICE_BEARER_TOKENS');
  });

  it('reads the plural settings as lists', () => {
    const config = readConfig({ SERVICE_API_KEYS: 'a, b', SERVICE_BEARER_TOKENS: 't' });
    expect(config.apiKeys).to.deep.equal(['a', 'b']);
    expect(config.bearerTokens).to.deep.equal(['t']);
  });
});
