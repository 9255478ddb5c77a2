import { LogType, type LogAttempt } from '@model-relay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionStore } from '../options/option-store.js';
import { InFlightRequests } from '../relay/pipeline/in-flight.js';
import type { Storage } from '../storage/database.js';
import { OptionsRepository } from '../storage/repositories/options.js';
import type { ChannelRow, TokenRow, UserRow } from '../storage/schema.js';
import { testDatabases } from '../test-support/databases.js';
import { seedToken, seedUser } from '../test-support/seed.js';
import { TokenCounter } from './count-tokens.js';
import { QuotaLedger } from './ledger.js';
import { BillingMeter, InsufficientQuotaError, ReservationRefused, type MeterDeps, type MeteredRequest } from './meter.js';
import { costOf, describePrice, pricesFor } from './pricing.js';
import { UsageLimits } from './usage-limits.js';

/** The billing meter on a real ledger: open reserves, close settles exactly once whatever happens inside it. */
describe.each(testDatabases())('billing meter on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let ledger: QuotaLedger;
  let options: OptionStore;
  let counter: TokenCounter;
  let serial = 0;
  const errors: string[] = [];
  const log = { error: (_: object, message: string) => void errors.push(message), warn: () => undefined };

  beforeAll(async () => {
    storage = await database.open();
    ledger = new QuotaLedger(storage);
    options = new OptionStore(new OptionsRepository(storage.db));
    await options.set('PreConsumedQuota', '0');
    await options.set('ModelRatio', JSON.stringify({ 'dear-model': 10, 'cheap-model': 1 }));
    await options.set('CompletionRatio', JSON.stringify({ 'dear-model': 2, 'cheap-model': 2 }));
    counter = new TokenCounter();
  });
  afterAll(async () => {
    await counter.close();
    await ledger.drain();
    await storage?.drop();
  });

  /** A user with `quota` and a key with `keyQuota`, as the relay read them (`seen`: the user's balance it saw). */
  async function payer(quota: number, keyQuota: number, seen = quota) {
    serial++;
    const userId = await seedUser(storage, `meter${serial}`, quota, `MTR${serial}`);
    const seeded = await seedToken(storage, userId, { remain_quota: keyQuota });
    const user = { ...(await storage.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow()), quota: seen } as UserRow;
    const token = (await storage.db.selectFrom('tokens').selectAll().where('id', '=', seeded.id).executeTakeFirstOrThrow()) as TokenRow;
    return { user, token };
  }

  const balances = async (auth: { user: UserRow; token: TokenRow }) => ({
    user: Number((await storage.db.selectFrom('users').select('quota').where('id', '=', auth.user.id).executeTakeFirstOrThrow()).quota),
    key: Number((await storage.db.selectFrom('tokens').select('remain_quota').where('id', '=', auth.token.id).executeTakeFirstOrThrow()).remain_quota),
  });
  const logsOf = (auth: { token: TokenRow }) => storage.db.selectFrom('logs').selectAll().where('token_id', '=', auth.token.id).execute();
  const openReservations = (requestId: string) => storage.db.selectFrom('quota_reservations').selectAll().where('request_id', '=', requestId).execute();

  function deps(extra: Partial<Omit<MeterDeps, 'holds'>> = {}): MeterDeps & { holds: InFlightRequests } {
    return { ledger, options, counter, limits: new UsageLimits(undefined), ...extra, holds: new InFlightRequests() };
  }

  function requestOf(models: string[], fields: Partial<MeteredRequest['facts']> = {}): MeteredRequest {
    serial++;
    return {
      requestId: `meter-${database.name}-${serial}`,
      started: Date.now(),
      endpoint: 'chat',
      dialect: 'openai-chat',
      models,
      facts: { model: models[0], stream: false, maxTokens: 100, choices: 1, promptBound: 40, promptText: () => 'Hello there', ...fields },
      log,
    };
  }

  const channel = { id: 7, name: 'meter-channel', type: 1 } as ChannelRow;
  const answer = { kind: 'success' as const, usage: { prompt_tokens: 10, completion_tokens: 20 }, text: 'an answer of twenty tokens', firstByteAt: Date.now() };

  it('closes exactly once: a second close answers the first and settles nothing more', async () => {
    const auth = await payer(100_000, 100_000);
    const meterDeps = deps();
    let settles = 0;
    meterDeps.ledger = {
      reserve: (input) => ledger.reserve(input),
      progress: (progress) => ledger.progress(progress),
      settle: (...args) => {
        settles++;
        return ledger.settle(...args);
      },
    } as Pick<QuotaLedger, 'reserve' | 'settle' | 'progress'> as QuotaLedger;
    const request = requestOf(['cheap-model']);
    const meter = await new BillingMeter(meterDeps).open(auth, request);
    expect(meterDeps.holds.holding(`user:${auth.user.id}`)).toBe(meter.plan.amount);
    const finish = { model: 'cheap-model', outcome: answer, channel, attempts: [] };
    const [first, second] = await Promise.all([meter.close(finish), meter.close(finish)]);
    const third = await meter.close({ model: 'cheap-model', attempts: [], failure: { message: 'late', status: 500 } });
    const cost = costOf(answer.usage, pricesFor(options, 'cheap-model', 'default'));
    expect(first).toEqual({ charged: cost, tokens: 30 });
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(settles).toBe(1);
    expect(meterDeps.holds.holding(`user:${auth.user.id}`)).toBe(0);
    expect(await balances(auth)).toEqual({ user: 100_000 - cost, key: 100_000 - cost });
    expect((await logsOf(auth)).map((l) => [l.type, Number(l.quota), l.model_name])).toEqual([[LogType.Consume, cost, 'cheap-model']]);
    expect(await openReservations(request.requestId)).toEqual([]);
  });

  it('a throw inside close (counting, the log row, the metrics) still settles the reservation and corrects the limits', async () => {
    const auth = await payer(100_000, 100_000);
    const failingCounter = { count: () => Promise.reject(new Error('counter down')) } as unknown as TokenCounter;
    const metrics = { observeRequest: () => { throw new Error('metrics down'); } } as unknown as MeterDeps['metrics'];
    const limits = new UsageLimits(undefined);
    const settled: Array<{ tokens: number; charged: number }> = [];
    const watched = {
      admit: (subjects, tokens) => limits.admit(subjects, tokens),
      hold: (admission, quota) => limits.hold(admission, quota),
      settle: (admission, used) => {
        settled.push(used);
        return limits.settle(admission, used);
      },
    } as Pick<UsageLimits, 'admit' | 'hold' | 'settle'> as UsageLimits;
    const meter = await new BillingMeter(deps({ counter: failingCounter, metrics, limits: watched })).open(auth, requestOf(['cheap-model']));
    errors.length = 0;
    // No usage reported: counted, and the counter fails; an attempt the log cannot write (a BigInt) breaks the log row.
    const unwritable = [{ channel_id: 1n, channel_name: 'x', status: 502, reason: 'down' }] as unknown as LogAttempt[];
    const used = await meter.close({ model: 'cheap-model', outcome: { kind: 'success', text: 'some answer' }, channel, attempts: unwritable });
    expect(errors).toEqual(['usage counting failed; billing an approximate count', 'metering failed; settling what is known', 'recording the request in the metrics failed']);
    // The approximate count: the prompt bound over four, the answer's characters approximated.
    expect(used.tokens).toBeGreaterThan(0);
    expect(used.charged).toBeGreaterThan(0);
    expect(settled).toEqual([used]);
    expect(await balances(auth)).toEqual({ user: 100_000 - used.charged, key: 100_000 - used.charged });
    expect(await openReservations(`meter-${database.name}-${serial}`)).toEqual([]);
  });

  it('a fallback model is billed at its own prices, under a reservation planned for the dearest of the chain', async () => {
    const auth = await payer(1_000_000, 1_000_000);
    const meter = await new BillingMeter(deps()).open(auth, requestOf(['dear-model', 'cheap-model']));
    const dear = pricesFor(options, 'dear-model', 'default');
    const cheap = pricesFor(options, 'cheap-model', 'default');
    // The plan covers the dear model's whole allowance (100 output tokens): prompt 40 + 100 x 2, at ratio 10.
    expect(meter.plan.amount).toBe(costOf({ prompt_tokens: 40, completion_tokens: 100 }, dear));
    expect(meter.cap).toBeUndefined();
    const routing = { affinity: false, requested: 'dear-model', models: ['dear-model', 'cheap-model'] };
    const used = await meter.close({ model: 'cheap-model', outcome: answer, channel, routing, attempts: [] });
    const cost = costOf(answer.usage, cheap);
    expect(used.charged).toBe(cost);
    const [row] = await logsOf(auth);
    expect(row.model_name).toBe('cheap-model');
    expect(row.content).toBe(describePrice(cheap, answer.usage, cost));
    expect(JSON.parse(row.routing ?? 'null')).toEqual({ affinity: false, requested_model: 'dear-model', models: ['dear-model', 'cheap-model'] });
    expect(await balances(auth)).toEqual({ user: 1_000_000 - cost, key: 1_000_000 - cost });
  });

  it('a partial reservation caps the output, and the usage beyond the cap is billed at it', async () => {
    const dear = pricesFor(options, 'dear-model', 'default');
    // Enough for the prompt and 30 of the 100 output tokens.
    const affordable = costOf({ prompt_tokens: 40, completion_tokens: 30 }, dear);
    const auth = await payer(1_000_000, affordable);
    const meter = await new BillingMeter(deps()).open(auth, requestOf(['dear-model']));
    expect(meter.cap).toBe(30);
    expect(meter.allowance).toBe(30);
    const used = await meter.close({ model: 'dear-model', outcome: { ...answer, usage: { prompt_tokens: 10, completion_tokens: 90 } }, channel, attempts: [] });
    expect(used.tokens).toBe(40);
    expect(used.charged).toBe(costOf({ prompt_tokens: 10, completion_tokens: 30 }, dear));
  });

  it('an optimistic reservation refused after all: nothing held, a careful one taken instead, closed once', async () => {
    const dear = pricesFor(options, 'dear-model', 'default');
    const affordable = costOf({ prompt_tokens: 40, completion_tokens: 30 }, dear);
    // The relay read a balance that covered the whole amount; the database no longer holds it.
    const auth = await payer(affordable, 1_000_000, 1_000_000);
    const meter = await new BillingMeter(deps()).open(auth, requestOf(['dear-model'], { stream: true }));
    expect(meter.cap).toBeUndefined();
    await expect(meter.ready()).rejects.toBeInstanceOf(ReservationRefused);
    expect(await meter.confirm()).toBe(false);
    expect(meter.cap).toBe(30);
    await meter.ready();
    expect(await meter.confirm()).toBe(true);
    const used = await meter.close({ model: 'dear-model', outcome: answer, channel, attempts: [] });
    expect(used.charged).toBe(costOf(answer.usage, dear));
    expect(await balances(auth)).toEqual({ user: affordable - used.charged, key: 1_000_000 - used.charged });
  });

  it('a refused reservation holds nothing: open throws and nothing stays reserved or held', async () => {
    const auth = await payer(1, 1);
    const meterDeps = deps();
    const request = requestOf(['dear-model']);
    await expect(new BillingMeter(meterDeps).open(auth, request)).rejects.toBeInstanceOf(InsufficientQuotaError);
    expect(meterDeps.holds.holding(`user:${auth.user.id}`)).toBe(0);
    expect(await openReservations(request.requestId)).toEqual([]);
    expect(await balances(auth)).toEqual({ user: 1, key: 1 });
  });
});
