import { PROVIDER_CATALOGUE, providerInfo } from '@model-relay/contract';
import { describe, expect, it } from 'vitest';
import { BALANCE_READERS } from '../channel-health/query-balance.js';
import { PROVIDERS } from './registry.js';

/** One catalogue of provider facts (contract providers.ts), and every part of the server agreeing with it. */
describe('provider catalogue', () => {
  it('the types with a balance are exactly those the balance query can read', () => {
    expect(PROVIDER_CATALOGUE.filter((p) => p.balance).map((p) => p.value).sort((a, b) => a - b)).toEqual(Object.keys(BALANCE_READERS).map(Number).sort((a, b) => a - b));
  });

  it('the relay calls the catalogue default URL of every type it serves when a channel leaves the base URL empty', () => {
    for (const provider of PROVIDERS) {
      for (const type of provider.channelTypes) {
        const base = providerInfo(type).baseUrl;
        if (!base) continue; // types whose URL comes from the channel (Azure, AWS region, Vertex region, custom)
        const channel = { type, baseUrl: '', key: 'k', other: '', config: {}, credentials: undefined };
        const model = providerInfo(type).models[0] ?? 'model';
        const dialect = provider.dialects(channel, model)[0];
        const request = provider.build({ endpoint: 'chat', dialect, channel, model, stream: false, body: { model, messages: [] }, path: '/v1/chat/completions' });
        expect(request.url.startsWith(base), `type ${type}: ${request.url}`).toBe(true);
      }
    }
  });

  it('every served type is in the catalogue', () => {
    for (const provider of PROVIDERS) for (const type of provider.channelTypes) expect(providerInfo(type).text).not.toBe('未知类型');
  });
});
