import { describe, expect, it, onTestFinished } from 'vitest';
import { seedChannel } from '../../test-support/seed.js';
import { OLLAMA_ANSWER, startMockOllama } from '../../test-support/upstreams/ollama.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';
import { testChannel } from '../channel-health/test-channel.js';

/**
 * Ollama channels (type 30) end to end: the official SDKs -> the gateway -> a local Ollama speaking its own API
 * (/api/chat with NDJSON streams, /api/embed), which refuses what Ollama refuses (OpenAI-only fields, data: URLs
 * for images, tool arguments as strings).
 */
const MODEL = 'llama3.2';

const gw = vendorGateway({ mock: startMockOllama, modelRatio: { [MODEL]: 0.05, 'all-minilm': 0.01 } });
const { seedKey, openai, anthropic, settled, expectChargedOnce } = gw;

const channel = (key = '', models = `${MODEL},all-minilm`) => seedChannel(gw.t.ctx.storage, { name: `ollama-${key || 'local'}`, type: 30, key, baseUrl: gw.mock.url, models });

describe('Ollama through its own API', () => {
  it('an OpenAI chat becomes /api/chat with options, answered whole and billed from Ollama\'s counts', async () => {
    await channel();
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MODEL, max_tokens: 100, temperature: 0.2, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Why is the sky blue?' }] });
    expect(answer.choices[0].message.content).toBe(OLLAMA_ANSWER);
    expect(answer.usage).toMatchObject({ prompt_tokens: 26, completion_tokens: 12 });
    expect(gw.mock.requests[0].path).toBe('/api/chat');
    expect(gw.mock.requests[0].body).toEqual({ model: MODEL, stream: false, options: { temperature: 0.2, num_predict: 100 }, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Why is the sky blue?' }] });
    await expectChargedOnce(token.id, MODEL, { prompt_tokens: 26, completion_tokens: 12 });
  });

  it('a stream is read from Ollama\'s NDJSON lines and streamed to an OpenAI client with usage', async () => {
    await channel();
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Why is the sky blue?' }] });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(OLLAMA_ANSWER);
    expect(usage).toMatchObject({ prompt_tokens: 26, completion_tokens: 12 });
    await expectChargedOnce(token.id, MODEL, { prompt_tokens: 26, completion_tokens: 12 });
  });

  it('tools: the call comes back as an OpenAI tool call, and its result goes to Ollama with the arguments as an object', async () => {
    await channel();
    const token = await seedKey();
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const first = await openai(token.key).chat.completions.create({ model: MODEL, tools, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    const call = first.choices[0].message.tool_calls![0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    const second = await openai(token.key).chat.completions.create({
      model: MODEL,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '18°C, sunny' }],
    });
    expect(second.choices[0].message.content).toBe(OLLAMA_ANSWER);
    expect((gw.mock.requests[1].body as { messages: unknown[] }).messages[1]).toEqual({ role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] });
  });

  it('Claude Code\'s Messages API reaches Ollama translated, streamed as Anthropic events', async () => {
    await channel();
    const token = await seedKey();
    const stream = anthropic(token.key).messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Why is the sky blue?' }] });
    const message = await stream.finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: OLLAMA_ANSWER });
    expect(message.usage).toMatchObject({ input_tokens: 26, output_tokens: 12 });
    await expectChargedOnce(token.id, MODEL, { prompt_tokens: 26, completion_tokens: 12 });
  });

  it('a conversation\'s next turn: the prompt Ollama read from its KV cache is reported and billed as cached tokens', async () => {
    await channel();
    const token = await seedKey();
    // An admin who prices the local model's cache reads at a tenth of its input.
    await gw.t.ctx.options.set('CacheReadRatio', JSON.stringify({ [MODEL]: 0.1 }));
    onTestFinished(() => gw.t.ctx.options.set('CacheReadRatio', '{}'));
    const first = [{ role: 'user' as const, content: 'Why is the sky blue?' }];
    const answer = await openai(token.key).chat.completions.create({ model: MODEL, messages: first });
    expect(answer.usage?.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);
    const next = [...first, { role: 'assistant' as const, content: OLLAMA_ANSWER }, { role: 'user' as const, content: 'And at sunset?' }];
    const stream = await openai(token.key).chat.completions.create({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: next });
    let usage: unknown;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ prompt_tokens: 26, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 20 } });
    // The same turn from an Anthropic client: the cached part is a cache read, apart from the input.
    const third = await anthropic(token.key).messages.create({ model: MODEL, max_tokens: 100, messages: [...next, { role: 'assistant', content: OLLAMA_ANSWER }, { role: 'user', content: 'And at night?' }] });
    expect(third.usage).toMatchObject({ input_tokens: 6, cache_read_input_tokens: 20, output_tokens: 12 });
    const [, second, last] = await gw.expectCharged(token.id, MODEL, { prompt_tokens: 26, completion_tokens: 12 }, { prompt_tokens: 26, completion_tokens: 12, cached_tokens: 20 }, { prompt_tokens: 26, completion_tokens: 12, cached_tokens: 20 });
    expect([second.cached_tokens, last.cached_tokens].map(Number)).toEqual([20, 20]);
    expect(second.quota).toBeLessThan((await gw.settled(token.id, 3)).logs[0].quota);
  });

  it('a report too low for the prompt is counted from what Ollama was sent, streamed as whole, its images left out', async () => {
    await channel();
    const token = await seedKey();
    // 26 reported prompt tokens cannot hold 24,000 letters: the gateway counts the prompt itself, from the /api/chat
    // bytes it sent (so that a stream can let go of the parsed client body: bench/memory.mjs PATHS=codec PROMPT_KB=20),
    // never from the base64 image.
    const prompt = Array.from({ length: 400 }, (_, i) => `Line ${i}: the sky over the sea at noon is blue.`).join('\n');
    const image = `data:image/png;base64,${'iVBORw0KGgo'.padEnd(200_000, 'A')}`;
    const body = { model: MODEL, messages: [{ role: 'user', content: [{ type: 'text', text: prompt }, { type: 'image_url', image_url: { url: image } }] }] };
    const post = (stream: boolean) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream }) }).then((res) => res.text());
    expect(await post(false)).toContain(OLLAMA_ANSWER);
    expect(await post(true)).toContain('[DONE]');
    const after = await settled(token.id, 2);
    const [whole, streamed] = [...after.logs].sort((a, b) => a.id - b.id);
    expect(whole.prompt_tokens).toBeGreaterThan(prompt.length / 32);
    // the text alone is ~8,000 tokens; 200,000 base64 letters read as text would be tens of thousands more
    expect(whole.prompt_tokens).toBeLessThan(20_000);
    expect(streamed.prompt_tokens).toBe(whole.prompt_tokens);
    expect(streamed.content).toContain('用量');
    expect((gw.mock.requests.at(-1)!.body as { messages: Array<{ images?: string[] }> }).messages[0].images).toHaveLength(1);
  });

  it('embeddings go to /api/embed', async () => {
    await channel();
    const token = await seedKey();
    const result = await openai(token.key).embeddings.create({ model: 'all-minilm', input: ['a', 'b'] });
    expect(result.data.map((d) => d.index)).toEqual([0, 1]);
    // the SDK asked for base64 (its default) and decoded the float32s the gateway encoded
    result.data[0].embedding.forEach((value, i) => expect(value).toBeCloseTo([0.01, -0.02, 0.03][i], 6));
    expect(gw.mock.requests[0].path).toBe('/api/embed');
    await expectChargedOnce(token.id, 'all-minilm', { prompt_tokens: 8, completion_tokens: 0 });
  });

  it('an error line mid-stream ends the client\'s stream with an error, billed for what was delivered; a model Ollama lacks is its 404', async () => {
    await channel('stream-error');
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    const text = await res.text();
    expect(text).toContain('an error was encountered while running the model');
    const after = await settled(token.id, 1);
    expect(after.open).toEqual([]);
    expect(after.logs[0].completion_tokens).toBeGreaterThan(0);

    await gw.t.ctx.storage.db.deleteFrom('abilities').execute();
    await gw.t.ctx.storage.db.deleteFrom('channels').execute();
    await channel('', 'llama9');
    const missing = await openai(token.key).chat.completions.create({ model: 'llama9', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e as { status: number; message: string });
    expect(missing).toMatchObject({ status: 404 });
    expect((missing as { message: string }).message).toContain('not found');
  });

  it('the channel test passes against Ollama\'s own API; a base URL ending in /v1 uses its OpenAI-compatible API instead', async () => {
    const deps = { store: gw.t.ctx.relay.store, options: gw.t.ctx.options, pools: gw.t.ctx.relay.pools, notifier: gw.t.ctx.notifier, credentials: gw.t.ctx.relay.credentials };
    const row = async (id: number) => gw.t.ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(await testChannel(deps, await row(await channel()), MODEL)).toMatchObject({ success: true, message: OLLAMA_ANSWER });
    expect(gw.mock.requests.at(-1)!.path).toBe('/api/chat');

    // behind /v1: the OpenAI-compatible API (this mock has none: its 404 is the proof of the path taken)
    const compatible = await seedChannel(gw.t.ctx.storage, { name: 'ollama-v1', type: 30, key: '', baseUrl: `${gw.mock.url}/v1`, models: MODEL });
    expect(await testChannel(deps, await row(compatible), MODEL)).toMatchObject({ success: false });
    expect(gw.mock.requests.at(-1)!.path).toBe('/v1/chat/completions');
  });
});
