import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * GPT-6 is a reasoning generation like GPT-5: OpenAI refuses `max_tokens` for it and takes `max_completion_tokens`.
 * A client of another dialect (Claude Code's /v1/messages) and an OpenAI client that sends `max_tokens` reach a
 * reasoning model on an OpenAI channel with the field it understands.
 */
let mock: MockUpstream;
let t: TestApp;
let url: string;
let key: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-6-sol,gpt-6.1-terra,gpt-5-mini' });
  const user = await seedUser(t.ctx.storage, 'six', 50_000_000, 'SIX');
  key = (await seedToken(t.ctx.storage, user, { unlimited: true })).key;
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

describe('GPT-6 on an OpenAI channel', () => {
  it('a Claude client is translated with max_completion_tokens', async () => {
    const claude = new Anthropic({ apiKey: `sk-${key}`, baseURL: url });
    const answer = await claude.messages.create({ model: 'gpt-6-sol', max_tokens: 300, messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.content[0]).toMatchObject({ type: 'text' });
    const sent = mock.requests.at(-1)!.body as { max_tokens?: number; max_completion_tokens?: number };
    expect(sent.max_tokens).toBeUndefined();
    expect(sent.max_completion_tokens).toBe(300);
  });

  it("an OpenAI client's max_tokens (chat clients send it for every model) reaches a reasoning model as max_completion_tokens", async () => {
    const openai = new OpenAI({ apiKey: `sk-${key}`, baseURL: `${url}/v1` });
    for (const model of ['gpt-6.1-terra', 'gpt-5-mini']) {
      const answer = await openai.chat.completions.create({ model, max_tokens: 200, messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.choices[0].message.content).toBeTruthy();
      const sent = mock.requests.at(-1)!.body as { max_tokens?: number; max_completion_tokens?: number };
      expect(sent.max_tokens).toBeUndefined();
      expect(sent.max_completion_tokens).toBe(200);
    }
  });
});
