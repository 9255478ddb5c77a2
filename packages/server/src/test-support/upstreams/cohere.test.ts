import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockCohere, type MockCohere } from './cohere.js';
import { fixtures } from './fixtures.js';

// The recorded Cohere exchanges and the mock never disagree: each recorded body is taken and answered as recorded
// (whole and streamed, byte for byte); and the mock refuses what Cohere refuses.
const fx = fixtures('cohere');
let mock: MockCohere;

async function post(path: string, body: unknown, key: string | undefined = 'ok') {
  const res = await fetch(`${mock.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

beforeAll(async () => {
  mock = await startMockCohere();
});
afterAll(() => mock.close());

describe('Cohere mock', () => {
  it.each(['text', 'tools', 'tool-result'])('%s: the recorded v2 body gets the recorded answer and stream', async (scenario) => {
    const body = fx.json(`${scenario}.upstream.json`);
    const whole = await post('/v2/chat', body);
    expect(whole.status).toBe(200);
    expect(JSON.parse(whole.text)).toEqual(fx.json(`${scenario}.response.json`));
    const streamed = await post('/v2/chat', { ...body, stream: true });
    expect(streamed.type).toContain('text/event-stream');
    expect(streamed.text).toBe(fx.text(`${scenario}.stream.txt`));
  });

  it('embed and rerank take the recorded bodies; usage in meta.billed_units', async () => {
    const embed = JSON.parse((await post('/v2/embed', fx.json('embed.upstream.json'))).text);
    expect(embed.meta.billed_units).toEqual(fx.json('embed.response.json').meta.billed_units);
    expect(embed.embeddings.float).toHaveLength(2);
    const rerank = JSON.parse((await post('/v2/rerank', fx.json('rerank.upstream.json'))).text);
    // The mock ranks by shared words (Cohere by meaning): the best match still comes first, top_n kept.
    expect(rerank.results.map((r: { index: number }) => r.index)).toEqual([0, 1]);
    expect(rerank.meta.billed_units).toEqual({ search_units: 1 });
  });

  it('refuses what Cohere refuses, with its {id, message}', async () => {
    const text = fx.json('text.upstream.json');
    const refusal = async (path: string, body: unknown, key?: string) => {
      const res = await post(path, body, key);
      return { status: res.status, message: JSON.parse(res.text).message as string };
    };
    expect(await refusal('/v2/chat', text, '')).toEqual({ status: 401, message: 'no api key supplied' });
    expect(await refusal('/v2/chat', text, 'some-key')).toEqual({ status: 401, message: 'invalid api token' });
    expect(await refusal('/v1/chat', text)).toEqual({ status: 404, message: '404 page not found' });
    expect((await refusal('/v2/chat', { ...text, user: 'u' })).message).toBe('invalid request: unknown field user');
    expect((await refusal('/v2/chat', { model: 'm', message: 'hi', chat_history: [] })).message).toContain('v1 field');
    expect((await refusal('/v2/chat', { model: 'm', messages: [{ role: 'developer', content: 'x' }] })).message).toContain('role must be one of');
    expect((await refusal('/v2/chat', { model: 'm', messages: [{ role: 'user', content: 'x', name: 'amy' }] })).message).toContain('unknown field messages[0].name');
    expect((await refusal('/v2/chat', { model: 'm', messages: [{ role: 'tool', tool_call_id: 'nope', content: '{}' }] })).message).toBe('tool call id not found in previous tool calls');
    expect((await refusal('/v2/chat', { ...text, p: 1 })).message).toContain('p must be between 0.01 and 0.99');
    expect((await refusal('/v2/embed', { model: 'embed-v4.0', texts: ['a'], input_type: 'search_document' })).message).toBe('embedding_types parameter is required');
    expect((await refusal('/v2/rerank', { model: 'rerank-v3.5', query: ' ', documents: ['a'] })).message).toContain('query must not be empty');
  });
});
