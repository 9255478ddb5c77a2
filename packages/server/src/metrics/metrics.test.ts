import OpenAI from 'openai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/** GET /metrics (issue 11): protected by METRICS_TOKEN, parsed by a Prometheus text-format parser. */
let t: TestApp;
let mock: MockUpstream;
let url: string;

interface Family {
  name: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }>;
}

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp({ METRICS_TOKEN: 'scrape-me' });
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

const scrape = async () => {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-me' } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('text/plain');
  return parsePrometheusTextFormat(res.body) as Family[];
};
const family = (families: Family[], name: string) => families.find((f) => f.name === name);

describe('/metrics', () => {
  it('refuses a scraper without the token, and is off without one configured', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong-token' } })).statusCode).toBe(401);
    const off = await createTestApp();
    try {
      expect((await off.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('counts requests, latency, first byte, tokens, quota, ledger batches and channel health after relay calls', async () => {
    const channel = await seedChannel(t.ctx.storage, { name: 'metered', key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const root = (await t.ctx.repositories.users.findByUsername('root'))!.id;
    const token = await seedToken(t.ctx.storage, root, { unlimited: true });
    const openai = new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${url}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const chunk of stream) void chunk;
    const label = `${channel}:metered`;
    // The stream's request is counted when it settles, a moment after its last byte.
    let families = await scrape();
    for (let i = 0; i < 100 && family(families, 'relay_requests_total')?.metrics.find((m) => m.labels?.channel === label && m.labels?.outcome === 'success')?.value !== '2'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      families = await scrape();
    }

    const requests = family(families, 'relay_requests_total')!;
    expect(requests.type).toBe('COUNTER');
    expect(requests.metrics.find((m) => m.labels?.channel === label && m.labels?.outcome === 'success')).toMatchObject({ labels: { dialect: 'openai-chat', model: 'gpt-4o-mini' }, value: '2' });
    const tokens = family(families, 'relay_tokens_total')!.metrics.filter((m) => m.labels?.channel === label);
    expect(tokens.find((m) => m.labels?.kind === 'prompt')?.value).toBe('24');
    expect(tokens.find((m) => m.labels?.kind === 'completion')?.value).toBe('20');
    expect(Number(family(families, 'relay_quota_total')!.metrics.find((m) => m.labels?.channel === label)?.value)).toBe(8);
    // (the parser keeps a histogram's buckets; the +Inf bucket is its count)
    for (const name of ['relay_request_duration_seconds', 'relay_first_byte_seconds']) {
      const histogram = family(families, name)!;
      expect(histogram.type).toBe('HISTOGRAM');
      expect(Number(histogram.metrics[0].buckets?.['+Inf'])).toBeGreaterThanOrEqual(2);
    }
    expect(Number(family(families, 'ledger_batch_jobs')!.metrics[0].buckets?.['+Inf'])).toBeGreaterThan(0);
    expect(family(families, 'ledger_commit_seconds')!.type).toBe('HISTOGRAM');
    expect(family(families, 'ledger_lock_wait_seconds')!.type).toBe('COUNTER');
    expect(family(families, 'relay_in_flight_requests')!.metrics[0].value).toBe('0');
    expect(family(families, 'channel_up')!.metrics.find((m) => m.labels?.channel === label)?.value).toBe('1');
    expect(family(families, 'channel_test_response_seconds')!.metrics.find((m) => m.labels?.channel === label)).toBeDefined();
    expect(family(families, 'process_cpu_user_seconds_total')).toBeDefined();
  });
});
