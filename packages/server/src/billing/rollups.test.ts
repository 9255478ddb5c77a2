import { LogType } from '@model-relay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../storage/database.js';
import { testDatabases } from '../test-support/databases.js';
import { seedToken, seedUser } from '../test-support/seed.js';
import { QuotaLedger } from './ledger.js';

/**
 * The hourly usage rollups are written in the same transaction as the logs they sum: after concurrent load from
 * two instances, on every database, the rollups and the logs say exactly the same thing.
 */
describe.each(testDatabases())('usage rollups on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let users: number[];

  beforeAll(async () => {
    storage = await database.open();
    users = [];
    for (let i = 0; i < 3; i++) users.push(await seedUser(storage, `roll${i}`, 10_000_000, `ROLL${i}`));
  });
  afterAll(async () => {
    await storage?.drop();
  });

  it('equal the logs after 600 concurrent settlements from two instances, failures counted apart', async () => {
    const ledgers = [new QuotaLedger(storage, { instanceId: 'inst-a' }), new QuotaLedger(storage, { instanceId: 'inst-b' })];
    const tokens = await Promise.all(users.map((id) => seedToken(storage, id, { remain_quota: 5_000_000 })));
    const models = ['gpt-4o-mini', 'claude-sonnet-4-5-20250929'];
    await Promise.all(
      Array.from({ length: 600 }, async (_, i) => {
        const ledger = ledgers[i % 2];
        const user = users[i % 3];
        const token = tokens[i % 3];
        const model = models[i % 2];
        const failed = i % 10 === 0;
        const reservation = await ledger.reserve({ requestId: `roll-${database.name}-${i}`, userId: user, tokenId: token.id, unlimited: false, amount: 500 });
        const cost = failed ? 0 : 10 + (i % 7);
        await ledger.settle(reservation, {
          cost,
          channelId: failed ? 0 : 1 + (i % 2),
          usage: { model, promptTokens: failed ? 0 : 100 + i, completionTokens: failed ? 0 : 20 + (i % 5), cachedTokens: failed ? 0 : i % 3, reasoningTokens: failed ? 0 : i % 4, latencyMs: 50 + i, failed },
          log: {
            type: failed ? LogType.Error : LogType.Consume, user_id: user, username: 'u', created_at: Math.floor(Date.now() / 1000), token_id: token.id, model_name: model,
            prompt_tokens: failed ? 0 : 100 + i, completion_tokens: failed ? 0 : 20 + (i % 5), channel_id: failed ? 0 : 1 + (i % 2), cached_tokens: failed ? 0 : i % 3,
            reasoning_tokens: failed ? 0 : i % 4, elapsed_time: 50 + i, request_id: `roll-${database.name}-${i}`,
          },
        });
      }),
    );
    await Promise.all(ledgers.map((l) => l.drain()));

    const fromLogs = await storage.db
      .selectFrom('logs')
      .select((eb) => [
        'user_id', 'token_id', 'model_name', 'channel_id',
        eb.fn.sum<number>(eb.case().when('type', '=', LogType.Consume).then(1).else(0).end()).as('requests'),
        eb.fn.sum<number>(eb.case().when('type', '=', LogType.Error).then(1).else(0).end()).as('failures'),
        eb.fn.sum<number>('prompt_tokens').as('prompt'), eb.fn.sum<number>('completion_tokens').as('completion'),
        eb.fn.sum<number>('cached_tokens').as('cached'), eb.fn.sum<number>('reasoning_tokens').as('reasoning'),
        eb.fn.sum<number>('quota').as('quota'), eb.fn.sum<number>('elapsed_time').as('latency'),
      ])
      .where('request_id', 'like', `roll-${database.name}-%`)
      .groupBy(['user_id', 'token_id', 'model_name', 'channel_id'])
      .execute();
    const fromRollups = await storage.db
      .selectFrom('usage_rollups')
      .select((eb) => [
        'user_id', 'token_id', 'model', 'channel_id',
        eb.fn.sum<number>('requests').as('requests'), eb.fn.sum<number>('failures').as('failures'),
        eb.fn.sum<number>('prompt_tokens').as('prompt'), eb.fn.sum<number>('completion_tokens').as('completion'),
        eb.fn.sum<number>('cached_tokens').as('cached'), eb.fn.sum<number>('reasoning_tokens').as('reasoning'),
        eb.fn.sum<number>('quota').as('quota'), eb.fn.sum<number>('latency_ms').as('latency'),
      ])
      .groupBy(['user_id', 'token_id', 'model', 'channel_id'])
      .execute();
    const normalise = (rows: Array<Record<string, unknown>>) =>
      rows
        .map((r) => ({
          key: `${r.user_id}/${r.token_id}/${r.model_name ?? r.model}/${r.channel_id}`,
          requests: Number(r.requests),
          failures: Number(r.failures),
          prompt: Number(r.prompt),
          completion: Number(r.completion),
          cached: Number(r.cached),
          reasoning: Number(r.reasoning),
          quota: Number(r.quota),
          latency: Number(r.latency),
        }))
        .sort((a, b) => a.key.localeCompare(b.key));
    expect(normalise(fromRollups)).toEqual(normalise(fromLogs));
    expect(normalise(fromRollups).reduce((n, r) => n + r.requests + r.failures, 0)).toBe(600);
    // every instance writes its own rows: two instances, no row shared
    const instances = await storage.db.selectFrom('usage_rollups').select('instance_id').distinct().execute();
    expect(instances.map((r) => r.instance_id).sort()).toEqual(['inst-a', 'inst-b']);
    // failed requests are settled (refunded) but are not requests served
    const served = await storage.db.selectFrom('tokens').select(['request_count']).where('id', 'in', tokens.map((t) => t.id)).execute();
    expect(served.reduce((n, t) => n + Number(t.request_count), 0)).toBe(540);
  });
});
