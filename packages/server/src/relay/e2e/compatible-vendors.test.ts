import { describe, expect, it } from 'vitest';
import { MOCK_REPLY, startMockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel } from '../../test-support/seed.js';
import { startMockAnthropic } from '../../test-support/upstreams/anthropic.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * The OpenAI-compatible vendors reached at the path each documents (the catalogue's apiPath), the vendors' own
 * Anthropic-compatible endpoints taking Claude Code's /v1/messages byte for byte when a channel turns them on, and a
 * retired type (PaLM) answering with its reason instead of 暂不支持.
 */

// `mock` plays the vendors' OpenAI-compatible APIs, `others.claude` their Anthropic-compatible ones (under /anthropic).
const gw = vendorGateway({ mock: startMockUpstream, others: { claude: () => startMockAnthropic({ pathPrefix: '/anthropic' }) } });
const { seedKey, openai, anthropic } = gw;

describe('OpenAI-compatible vendors at their own paths', () => {
  it.each([
    [16, 'glm-4-plus', '/api/paas/v4/chat/completions', '/api/paas/v4/embeddings', ''],
    [17, 'qwen-plus', '/compatible-mode/v1/chat/completions', '/compatible-mode/v1/embeddings', ''],
    [37, '@cf/meta/llama-3.1-8b-instruct', '/client/v4/accounts/acct123/ai/v1/chat/completions', '/client/v4/accounts/acct123/ai/v1/embeddings', '{"user_id":"acct123"}'],
  ])('type %i: %s goes to %s, streamed and whole, with the channel key as bearer', async (type, model, chatPath, embedPath, config) => {
    await seedChannel(gw.t.ctx.storage, { type, key: 'ok', baseUrl: gw.mock.url, models: `${model},text-embedding-v3`, config });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0].message.content).toBe(MOCK_REPLY);
    const stream = await openai(token.key).chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(MOCK_REPLY);
    await openai(token.key).embeddings.create({ model: 'text-embedding-v3', input: 'hello', encoding_format: 'float' });
    expect(gw.mock.requests.map((r) => r.path)).toEqual([chatPath, chatPath, embedPath]);
    expect(gw.mock.requests.every((r) => r.headers.authorization === 'Bearer ok')).toBe(true);
  });
});

describe("vendors' Anthropic-compatible endpoints", () => {
  it('a DeepSeek channel with the Claude API on passes Claude Code\'s request through byte for byte, streamed too', async () => {
    // Claude Code sends Claude's model names; DeepSeek's Anthropic API answers them with its own model
    const model = 'claude-sonnet-4-5-20250929';
    await seedChannel(gw.t.ctx.storage, { type: 36, key: 'ok', baseUrl: gw.others.claude.url, models: model, config: '{"claude_api":"on"}' });
    const token = await seedKey();
    const body = JSON.stringify({ model, max_tokens: 64, metadata: { user_id: 'session-1' }, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }] });
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${token.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219' },
      body,
    });
    const answer = (await res.json()) as unknown;
    expect(res.status).toBe(200);
    expect(answer).toMatchObject({ type: 'message', role: 'assistant' });
    const [sent] = gw.others.claude.requests;
    expect(sent.path).toBe('/anthropic/v1/messages');
    expect(sent.rawBody.toString()).toBe(body);
    expect(sent.headers['anthropic-beta']).toBe('claude-code-20250219');
    expect(sent.headers['x-api-key']).toBe('ok');

    // the Anthropic SDK streams through it too
    const stream = anthropic(token.key).messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect((await stream.finalMessage()).role).toBe('assistant');
    expect(gw.others.claude.requests.at(-1)!.path).toBe('/anthropic/v1/messages');
  });

  it('a Tencent Hunyuan channel with an API key and the Claude API on passes through byte for byte to /anthropic/v1/messages', async () => {
    // Hunyuan's Anthropic-compatible API (https://cloud.tencent.com/document/product/1729/127293): base_url
    // https://api.hunyuan.cloud.tencent.com/anthropic, the API key of its OpenAI-compatible API. (The local Messages API
    // answers Claude's model names only; the name is passed through as sent either way.)
    const model = 'claude-sonnet-4-5-20250929';
    await seedChannel(gw.t.ctx.storage, { type: 23, key: 'ok', baseUrl: gw.others.claude.url, models: model, config: '{"claude_api":"on"}' });
    const token = await seedKey();
    const body = JSON.stringify({ model, max_tokens: 64, system: 'You are terse.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${token.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ type: 'message', role: 'assistant' });
    const [sent] = gw.others.claude.requests;
    expect(sent.path).toBe('/anthropic/v1/messages');
    expect(sent.rawBody.toString()).toBe(body);
    expect(sent.headers['x-api-key']).toBe('ok');
    expect(sent.headers.authorization).toBe('Bearer ok');

    const stream = anthropic(token.key).messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect((await stream.finalMessage()).role).toBe('assistant');
    expect(gw.others.claude.requests.at(-1)!.path).toBe('/anthropic/v1/messages');
  });

  it('a Hunyuan channel signing with AppId|SecretId|SecretKey has no Claude API: its Messages clients are translated', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 23, key: 'app|sid|skey', baseUrl: gw.others.claude.url, models: 'hunyuan-lite', config: '{"claude_api":"on"}' });
    const token = await seedKey();
    await anthropic(token.key).messages.create({ model: 'hunyuan-lite', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
    expect(gw.others.claude.requests.map((r) => r.path)).not.toContain('/anthropic/v1/messages');
  });

  it('without the switch, a Messages client is translated to the vendor\'s OpenAI API', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 36, key: 'ok', baseUrl: gw.mock.url, models: 'deepseek-chat' });
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: 'deepseek-chat', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: MOCK_REPLY });
    expect(gw.mock.requests[0].path).toBe('/v1/chat/completions');
  });
});

describe('retired types', () => {
  it('a request routed to a PaLM channel gets the reason and the replacement, not 暂不支持', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 11, key: 'k', baseUrl: '', models: 'PaLM-2' });
    const token = await seedKey();
    const error = await openai(token.key).chat.completions.create({ model: 'PaLM-2', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e as { status: number; message: string });
    expect(error).toMatchObject({ status: 501 });
    expect((error as { message: string }).message).toContain('Google Gemini 渠道（类型 24）');
  });
});
