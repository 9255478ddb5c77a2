import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { startMockAnthropic, type MockAnthropic } from '../test-support/upstreams/anthropic.js';

/**
 * Errors keep their shape (issue 15): a client of the provider's own dialect gets the provider's error as it was
 * sent, with the channel's key and address taken out; a translated one gets its own dialect's nearest kind.
 */
let t: TestApp;
let gateway: string;
let openaiMock: MockUpstream;
let claudeMock: MockAnthropic;
let key: string;

beforeAll(async () => {
  openaiMock = await startMockUpstream();
  claudeMock = await startMockAnthropic();
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await t.ctx.options.set('RetryTimes', '0');
  const userId = await seedUser(t.ctx.storage, 'errors', 10_000_000, 'ERRORS');
  key = (await seedToken(t.ctx.storage, userId, { unlimited: true })).key;
});
afterAll(async () => {
  await t.close();
  await openaiMock.close();
  await claudeMock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
});

const openai = () => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: `sk-${key}`, baseURL: gateway, maxRetries: 0 });
const genai = () => new GoogleGenAI({ apiKey: `sk-${key}`, httpOptions: { baseUrl: gateway } });
const claudeChannel = (mode: string) => seedChannel(t.ctx.storage, { type: 14, key: `${mode}:sk-ant-api03-secret-channel-key`, baseUrl: claudeMock.url, models: 'claude-sonnet-4-5' });

describe('pass-through: the provider error as sent', () => {
  // covers issue 15 item 2
  it('OpenAI channel, OpenAI client: status, type, code, param and message arrive unchanged, the upstream address hidden', async () => {
    await seedChannel(t.ctx.storage, { key: 'fail-400', baseUrl: openaiMock.url, models: 'gpt-4o-mini' });
    const res = await fetch(`${gateway}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toEqual({ error: { message: "Invalid value for 'temperature' at ***: expected a number, got a string.", type: 'invalid_request_error', param: 'temperature', code: 'invalid_type' } });
    expect(JSON.stringify(body)).not.toContain(new URL(openaiMock.url).host);
  });

  it('Claude channel, Anthropic client: 429 and 529 as Anthropic sent them', async () => {
    await claudeChannel('fail-429');
    const limited = await anthropic().messages.create({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(limited).toMatchObject({ status: 429, error: { type: 'error', error: { type: 'rate_limit_error' } } });
    await t.ctx.storage.db.deleteFrom('abilities').execute();
    await t.ctx.storage.db.deleteFrom('channels').execute();
    await claudeChannel('overloaded-529');
    const overloaded = await anthropic().messages.create({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(overloaded).toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } });
  });

  it("a channel whose key is refused is the gateway's failure (502), never the client's 401; the key never leaks", async () => {
    await claudeChannel('fail-401');
    const res = await fetch(`${gateway}/v1/messages`, { method: 'POST', headers: { 'x-api-key': `sk-${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(text).not.toContain('secret-channel-key');
  });
});

describe('translated: the nearest kind of the client dialect', () => {
  it.each([
    ['fail-400', 400, 'invalid_request_error'],
    ['fail-429', 429, 'rate_limit_error'],
    ['overloaded-529', 529, 'server_error'],
  ])('Claude channel %s reaches an OpenAI client as %i %s', async (mode, status, type) => {
    await claudeChannel(mode);
    const error = await openai().chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status, error: { type } });
  });

  it('Claude channel rate limit reaches a Gemini client as RESOURCE_EXHAUSTED', async () => {
    await claudeChannel('fail-429');
    const error = await genai().models.generateContent({ model: 'claude-sonnet-4-5', contents: 'hi' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429 });
    expect(String((error as Error).message)).toContain('RESOURCE_EXHAUSTED');
  });
});
