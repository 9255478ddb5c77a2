import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startMockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel } from '../../test-support/seed.js';
import { startMockGemini } from '../../test-support/upstreams/gemini.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * OpenAI's embeddings on a Gemini channel (type 24), as one-api serves them: the official openai SDK -> the gateway ->
 * a local Gemini API that checks batchEmbedContents' body (each request naming the URL's model, text parts, the
 * output size) and answers `{embeddings: [{values}]}` without usage, as the Gemini API does. The gateway counts the
 * input, tells the client that count and charges it, once. And Gemini's own embedContent / batchEmbedContents, as
 * @google/genai and Cherry Studio send them, served as OpenAI's embeddings by a Gemini or an OpenAI channel.
 */
const MODEL = 'gemini-embedding-001';
const gw = vendorGateway({ mock: startMockGemini, others: { openai: startMockUpstream } });
const { seedKey, openai, expectCharged } = gw;

const geminiChannel = (key = 'ok') => seedChannel(gw.t.ctx.storage, { name: `gemini-${key}`, type: 24, key, baseUrl: gw.mock.url, models: `${MODEL},gemini-2.5-flash` });

describe('embeddings on a Gemini channel', () => {
  it('the openai SDK (base64 by default, floats, base64 asked for itself, dimensions): batchEmbedContents, the vectors in order, the input counted and charged once each', async () => {
    await geminiChannel();
    const { id, key } = await seedKey();
    const input = ['The quick brown fox', 'jumps over the lazy dog, twice'];
    const client = openai(key);

    const byDefault = await client.embeddings.create({ model: MODEL, input });
    const [sent] = gw.mock.requests;
    expect(sent.path).toBe(`/v1beta/models/${MODEL}:batchEmbedContents`);
    expect(sent.headers['x-goog-api-key']).toBe('ok');
    expect(sent.body).toEqual({ requests: input.map((text) => ({ model: `models/${MODEL}`, content: { parts: [{ text }] } })) });
    expect(byDefault.data.map((d) => d.index)).toEqual([0, 1]);
    expect(byDefault.data[0].embedding).toHaveLength(3072);
    // Two texts of different lengths: two different vectors, in the order asked.
    expect(byDefault.data[0].embedding.slice(0, 4)).not.toEqual(byDefault.data[1].embedding.slice(0, 4));
    expect(byDefault.model).toBe(MODEL);
    expect(byDefault.usage.prompt_tokens).toBeGreaterThan(0);
    expect(byDefault.usage.total_tokens).toBe(byDefault.usage.prompt_tokens);

    const floats = await client.embeddings.create({ model: MODEL, input: input[0], encoding_format: 'float', dimensions: 8 });
    expect(gw.mock.requests[1].body).toEqual({ requests: [{ model: `models/${MODEL}`, content: { parts: [{ text: input[0] }] }, outputDimensionality: 8 }] });
    expect(floats.data).toHaveLength(1);
    expect(floats.data[0].embedding).toHaveLength(8);

    // Asked for base64 by the client itself: a string of float32s, the same vector to float32 precision.
    const raw = await fetch(`${gw.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: input[0], encoding_format: 'base64', dimensions: 8 }),
    });
    const base64 = (await raw.json()) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(base64.data[0].embedding, 'base64');
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4))).toEqual(floats.data[0].embedding.map((x) => Math.fround(x)));

    await expectCharged(id, MODEL, ...[byDefault, floats].map((r) => ({ prompt_tokens: r.usage.prompt_tokens, completion_tokens: 0 })), { prompt_tokens: floats.usage.prompt_tokens, completion_tokens: 0 });
  });

  it("token arrays (OpenAI's other input form) and more than a batch's 100 texts are refused with a clear 400 and nothing is charged; a dead key fails over to the next channel", async () => {
    await geminiChannel();
    const { id, key } = await seedKey();
    const refused = (await openai(key).embeddings.create({ model: MODEL, input: [[1, 2, 3]] }).catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('Gemini 的向量接口只接受文本');
    // More texts than one batch takes: said before anything is sent.
    const tooMany = (await openai(key).embeddings.create({ model: MODEL, input: Array.from({ length: 101 }, (_, i) => `text ${i}`) }).catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(tooMany.status).toBe(400);
    expect(tooMany.message).toContain('一次最多接受 100 段文本');
    expect(gw.mock.requests).toEqual([]);
    expect((await gw.settled(id, 0)).logs).toEqual([]);

    await gw.t.ctx.storage.db.deleteFrom('abilities').execute();
    await gw.t.ctx.storage.db.deleteFrom('channels').execute();
    await gw.t.ctx.options.set('RetryTimes', '1');
    await seedChannel(gw.t.ctx.storage, { name: 'gemini-dead', type: 24, key: 'fail-401', baseUrl: gw.mock.url, models: MODEL, priority: 10 });
    await geminiChannel('ok');
    const answer = await openai(key).embeddings.create({ model: MODEL, input: 'hello', encoding_format: 'float' });
    expect(answer.data[0].embedding).toHaveLength(3072);
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['fail-401', 'ok']);
    await expectCharged(id, MODEL, { prompt_tokens: answer.usage.prompt_tokens, completion_tokens: 0 });
  });

  it('@google/genai 3 (models.embedContent: batchEmbedContents on /v1) and a raw embedContent on /v1beta, on a Gemini channel and on an OpenAI one; errors in Gemini\'s shape', async () => {
    await geminiChannel();
    const { id, key } = await seedKey();
    const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
    const texts = ['What is the meaning of life?', 'How does photosynthesis work?'];

    // The model list tells the embedding model by its methods, as Google's does.
    const listed = new Map<string, string[] | undefined>();
    for await (const model of await genai.models.list()) listed.set(model.name ?? '', model.supportedActions);
    expect(listed.get(`models/${MODEL}`)).toEqual(['embedContent', 'batchEmbedContents', 'countTokens']);
    expect(listed.get('models/gemini-2.5-flash')).toEqual(['generateContent', 'countTokens']);

    const batch = await genai.models.embedContent({ model: MODEL, contents: texts, config: { outputDimensionality: 16, taskType: 'RETRIEVAL_DOCUMENT' } });
    expect(batch.embeddings?.map((e) => e.values?.length)).toEqual([16, 16]);
    // A Gemini channel is sent the client's own requests: the task type, which OpenAI's embeddings have no place for, kept.
    expect(gw.mock.requests[0]).toMatchObject({ path: `/v1beta/models/${MODEL}:batchEmbedContents`, body: { requests: texts.map((text) => ({ model: `models/${MODEL}`, content: { parts: [{ text }] }, outputDimensionality: 16, taskType: 'RETRIEVAL_DOCUMENT' })) } });
    // The vectors are the upstream's, in order (the mock makes them from the text's length).
    expect(batch.embeddings?.[0].values?.slice(0, 2)).not.toEqual(batch.embeddings?.[1].values?.slice(0, 2));

    const single = await fetch(`${gw.url}/v1beta/models/${MODEL}:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': `sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: 'Hello' }, { text: 'world' }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 'greeting' }),
    });
    expect(single.status).toBe(200);
    expect(((await single.json()) as { embedding: { values: number[] } }).embedding.values).toHaveLength(3072);
    expect(gw.mock.requests[1].body).toEqual({ requests: [{ model: `models/${MODEL}`, content: { parts: [{ text: 'Hello' }, { text: 'world' }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 'greeting' }] });
    const [first, second] = await expectCharged(id, MODEL, { prompt_tokens: (await gw.settled(id, 2)).logs[0].prompt_tokens, completion_tokens: 0 }, { prompt_tokens: (await gw.settled(id, 2)).logs[1].prompt_tokens, completion_tokens: 0 });
    expect(first.prompt_tokens).toBeGreaterThan(second.prompt_tokens);
    // Logged as the client spoke: Gemini's embedding methods (the console's log detail says "Gemini embedContent").
    expect([first.dialect, second.dialect]).toEqual(['gemini-embeddings', 'gemini-embeddings']);

    // The same model on an OpenAI channel only: /v1/embeddings there, its answer in Gemini's shape, its usage billed.
    await gw.t.ctx.storage.db.deleteFrom('abilities').execute();
    await gw.t.ctx.storage.db.deleteFrom('channels').execute();
    await seedChannel(gw.t.ctx.storage, { name: 'openai', type: 1, key: 'ok', baseUrl: gw.others.openai.url, models: MODEL });
    const other = await seedKey();
    const viaOpenAi = await new GoogleGenAI({ apiKey: other.key, httpOptions: { baseUrl: gw.url } }).models.embedContent({ model: MODEL, contents: texts });
    expect(viaOpenAi.embeddings?.map((e) => e.values)).toEqual([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]]);
    expect(gw.others.openai.requests.at(-1)).toMatchObject({ path: '/v1/embeddings', body: { model: MODEL, input: texts, encoding_format: 'float' } });
    await expectCharged(other.id, MODEL, { prompt_tokens: 10, completion_tokens: 0 });

    // The client's mistakes and an upstream's refusal, in Gemini's error shape.
    const mixed = await fetch(`${gw.url}/v1/models/${MODEL}:batchEmbedContents?key=${other.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requests: [{ model: `models/${MODEL}`, content: { parts: [{ text: 'a' }] }, outputDimensionality: 8 }, { model: `models/${MODEL}`, content: { parts: [{ text: 'b' }] }, outputDimensionality: 16 }] }),
    });
    expect(mixed.status).toBe(400);
    expect(await mixed.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: '同一批请求的 outputDimensionality 必须相同' } });
    const image = (await new GoogleGenAI({ apiKey: other.key, httpOptions: { baseUrl: gw.url } }).models.embedContent({ model: MODEL, contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }] }).catch((error: unknown) => error)) as ApiError;
    expect(image.status).toBe(400);
    expect(image.message).toContain('只能包含文本');
    await seedChannel(gw.t.ctx.storage, { name: 'openai-dead', type: 1, key: 'fail-400', baseUrl: gw.others.openai.url, models: 'text-embedding-3-small' });
    const refused = await fetch(`${gw.url}/v1beta/models/text-embedding-3-small:embedContent`, { method: 'POST', headers: { 'x-goog-api-key': other.key, 'content-type': 'application/json' }, body: JSON.stringify({ content: { parts: [{ text: 'x' }] } }) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect((await gw.settled(other.id, 1)).logs).toHaveLength(1);
  });
});
