import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { costOf, pricesFor } from '../billing/pricing.js';
import type { Usage } from '../billing/usage.js';
import { seedToken } from './seed.js';
import { settledToken } from './settled-token.js';
import { createTestApp, type TestApp } from './test-app.js';

/** What the harness needs of a local upstream: the requests it recorded, and a way to stop it. */
export interface Upstream {
  requests: unknown[];
  close(): Promise<void>;
}

type Starters = Record<string, () => Promise<Upstream>>;
type Settled = Awaited<ReturnType<typeof settledToken>>;

export interface VendorGateway<M extends Upstream, O extends Starters> {
  /** The app (a 5 s relay timeout), listening on `url`; set in beforeAll, like `mock`, `others` and `userId`. */
  t: TestApp;
  mock: M;
  others: { [K in keyof O]: Awaited<ReturnType<O[K]>> };
  /** The gateway's base URL, http://127.0.0.1:<port>. */
  url: string;
  /** root's id. */
  userId: number;
  /** A new key of root's with 10,000,000 quota (what expectCharged counts from). */
  seedKey(): Promise<{ id: number; key: string }>;
  /** The official SDKs, calling the gateway with `sk-<key>` and no retries of their own. */
  openai(key: string): OpenAI;
  anthropic(key: string): Anthropic;
  /** The key's state once `logs` of its requests are settled (settledToken). */
  settled(tokenId: number, logs: number): Promise<Settled>;
  /**
   * Requests of a key seeded with 10,000,000 quota, settled exactly once each in this order: each logged with its
   * usage's tokens and charged what the usage prices at for `model` (more than nothing), the key's balance down by
   * their sum, no reservation left open. Returns the log rows.
   */
  expectCharged(tokenId: number, model: string, ...usages: Usage[]): Promise<Settled['logs']>;
  /** expectCharged for one request; returns its log row. */
  expectChargedOnce(tokenId: number, model: string, usage: Usage): Promise<Settled['logs'][number]>;
  /**
   * One request of a key seeded with 10,000,000 quota, settled exactly once whatever it was charged (a stream cut or
   * left mid-way): one log row, the balance down by its quota, no reservation left open. Returns the log row.
   */
  expectSettledOnce(tokenId: number): Promise<Settled['logs'][number]>;
}

/**
 * The harness of a vendor's end-to-end tests (relay/e2e/<vendor>.test.ts): the official SDKs -> the gateway -> a
 * local upstream playing the vendor. Call it once at the top of the file; it registers the hooks:
 * - beforeAll: starts `mock` (then `others`, in order), the app, and prices the models given;
 * - beforeEach: no channels, RetryTimes 0, automatic disabling off, every upstream's `requests` emptied;
 * - afterAll: stops the app, then the upstreams.
 * The vendor's own helpers (its channels, its key format) stay in its file.
 */
export function vendorGateway<M extends Upstream, O extends Starters = Record<never, never>>(setup: {
  mock: () => Promise<M>;
  /** More upstreams the file's channels reach, by name. */
  others?: O;
  modelRatio?: Record<string, number>;
  completionRatio?: Record<string, number>;
}): VendorGateway<M, O> {
  const upstreams = () => [gw.mock, ...Object.values(gw.others)] as Upstream[];
  // t, mock, others, url and userId are set in beforeAll, before any test reads them.
  const gw = {
    seedKey: () => seedToken(gw.t.ctx.storage, gw.userId, { remain_quota: 10_000_000 }),
    openai: (key: string) => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    anthropic: (key: string) => new Anthropic({ apiKey: `sk-${key}`, baseURL: gw.url, maxRetries: 0 }),
    settled: (tokenId: number, logs: number) => settledToken(gw.t.ctx.storage, tokenId, logs),
    async expectCharged(tokenId: number, model: string, ...usages: Usage[]) {
      const after = await gw.settled(tokenId, usages.length);
      expect(after.logs.map((l) => [l.prompt_tokens, l.completion_tokens])).toEqual(usages.map((u) => [u.prompt_tokens, u.completion_tokens]));
      const costs = usages.map((u) => costOf(u, pricesFor(gw.t.ctx.options, model, 'default')));
      for (const cost of costs) expect(cost).toBeGreaterThan(0);
      expect(after.logs.map((l) => l.quota)).toEqual(costs);
      expect(after.token.remain_quota).toBe(10_000_000 - costs.reduce((a, b) => a + b, 0));
      expect(after.open).toEqual([]);
      return after.logs;
    },
    expectChargedOnce: async (tokenId: number, model: string, usage: Usage) => (await gw.expectCharged(tokenId, model, usage))[0],
    async expectSettledOnce(tokenId: number) {
      const after = await gw.settled(tokenId, 1);
      expect(after.logs).toHaveLength(1);
      expect(after.token.remain_quota).toBe(10_000_000 - after.logs[0].quota);
      expect(after.open).toEqual([]);
      return after.logs[0];
    },
  } as VendorGateway<M, O>;

  beforeAll(async () => {
    gw.mock = await setup.mock();
    const others: Record<string, Upstream> = {};
    for (const [name, start] of Object.entries(setup.others ?? {})) others[name] = await start();
    gw.others = others as VendorGateway<M, O>['others'];
    gw.t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '5' });
    gw.url = await gw.t.app.listen({ port: 0, host: '127.0.0.1' });
    gw.userId = (await gw.t.ctx.repositories.users.findByUsername('root'))!.id;
    if (setup.modelRatio) await gw.t.ctx.options.set('ModelRatio', JSON.stringify(setup.modelRatio));
    if (setup.completionRatio) await gw.t.ctx.options.set('CompletionRatio', JSON.stringify(setup.completionRatio));
  });
  afterAll(async () => {
    // fetch (undici) leaves a spare connection open after an aborted request; it would hold the server's close.
    gw.t.app.server.closeAllConnections();
    await gw.t.close();
    for (const upstream of upstreams()) await upstream.close();
  });
  beforeEach(async () => {
    await gw.t.ctx.storage.db.deleteFrom('abilities').execute();
    await gw.t.ctx.storage.db.deleteFrom('channels').execute();
    await gw.t.ctx.options.set('RetryTimes', '0');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
    for (const upstream of upstreams()) upstream.requests.length = 0;
  });
  return gw;
}
