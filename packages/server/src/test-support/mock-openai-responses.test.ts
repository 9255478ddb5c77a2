import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from './mock-openai.js';
import { RESPONSES_SCENARIOS, responsesMemory, responsesProblem } from './mock-openai-responses.js';
import { fixtures, parseSse } from './upstreams/fixtures.js';

// The Responses mock answers exactly what relay/providers/openai-compatible/__fixtures__/responses-* record, its
// recorded streams add up to the recorded responses, and it refuses what OpenAI refuses.
const fx = fixtures('openai-compatible');
let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(() => mock.close());

async function post(body: unknown, key = 'ok') {
  const res = await fetch(`${mock.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

/** The output a stream's deltas build (never its .done events), to compare with the recorded whole response. */
function rebuild(events: any[]) {
  expect(events[0].type).toBe('response.created');
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  const output: any[] = [];
  for (const e of events) {
    if (e.type === 'response.output_item.added') output[e.output_index] = structuredClone(e.item);
    if (e.type === 'response.content_part.added') output[e.output_index].content[e.content_index] = structuredClone(e.part);
    if (e.type === 'response.output_text.delta') output[e.output_index].content[e.content_index].text += e.delta;
    if (e.type === 'response.function_call_arguments.delta') output[e.output_index].arguments += e.delta;
    if (e.type === 'response.reasoning_summary_part.added') output[e.output_index].summary[e.summary_index] = structuredClone(e.part);
    if (e.type === 'response.reasoning_summary_text.delta') output[e.output_index].summary[e.summary_index].text += e.delta;
    if (e.type === 'response.output_item.done' && e.item.status) output[e.output_index].status = e.item.status;
  }
  const last = events.at(-1);
  expect(last.type).toBe('response.completed');
  return { ...last.response, output };
}

describe('recorded Responses payloads', () => {
  for (const scenario of RESPONSES_SCENARIOS) {
    it(`${scenario}: the mock answers the recorded response and stream; the stream adds up to the response`, async () => {
      const request = fx.json(`responses-${scenario}.request.json`);
      const whole = await post(request);
      expect(JSON.parse(whole.text)).toEqual(fx.json(`responses-${scenario}.response.json`));
      const streamed = await post({ ...request, stream: true });
      expect(streamed.text).toBe(fx.text(`responses-${scenario}.stream.txt`));
      const recorded = fx.json(`responses-${scenario}.response.json`);
      // encrypted_content is only in the whole item (output_item.done), never streamed in pieces.
      const built = rebuild(parseSse(streamed.text).map((e) => e.data));
      for (const item of recorded.output) delete item.encrypted_content;
      expect(built).toEqual(recorded);
    });
  }
});

describe('what the mock refuses, as OpenAI does', () => {
  const base = { model: 'gpt-4.1', input: 'Hi' };
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an unknown parameter', { ...base, messages: [] }, /Unknown parameter: 'messages'/],
    ['no model', { input: 'Hi' }, /Missing required parameter: 'model'/],
    ['no input', { model: 'gpt-4.1' }, /Missing required parameter: 'input'/],
    ['an output answering no call', { ...base, input: [{ type: 'function_call_output', call_id: 'call_1', output: 'x' }] }, /No tool call found for function call output with call_id call_1/],
    ['a call left unanswered', { ...base, input: [{ role: 'user', content: 'x' }, { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' }] }, /No tool output found for function call call_1/],
    ['input_text in an assistant message', { ...base, input: [{ role: 'assistant', content: [{ type: 'input_text', text: 'x' }] }] }, /Supported values are: 'output_text', 'refusal'/],
    ['a chat-style image part', { ...base, input: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] }, /Invalid value: 'image_url'/],
    ['a bad image URL', { ...base, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'not a url' }] }] }, /Expected a valid URL/],
    ['a strict tool with an open schema', { ...base, tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } }] }, /'additionalProperties' is required/],
    ['a chat-style tool', { ...base, tools: [{ type: 'function', function: { name: 'f' } }] }, /Missing required parameter: 'tools\[0\].name'/],
    ['tool_choice naming no tool', { ...base, tools: [{ type: 'function', name: 'f', strict: false, parameters: {} }], tool_choice: { type: 'function', name: 'g' } }, /Tool choice 'function' not found/],
    ['max_output_tokens below 16', { ...base, max_output_tokens: 8 }, /Expected a value >= 16/],
    ['reasoning on a model without it', { ...base, reasoning: { effort: 'low' } }, /'reasoning.effort' is not supported with this model/],
    ['an unknown previous response', { ...base, previous_response_id: 'resp_nope' }, /Previous response with id 'resp_nope' not found/],
    ['reasoning not issued by OpenAI', { ...base, input: [{ type: 'reasoning', summary: [], encrypted_content: 'mrelay1.abc' }, { role: 'user', content: 'x' }] }, /could not be verified/],
    ['an item reference with nothing stored', { ...base, input: [{ type: 'item_reference', id: 'msg_1' }] }, /Item with id 'msg_1' not found/],
  ];
  it.each(cases)('%s', async (_name, body, message) => {
    const res = await post(body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(res.text).error.message).toMatch(message);
  });

  it('accepts built-in tools and a strict schema that closes its objects', () => {
    const strict = { type: 'function', name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } };
    expect(responsesProblem({ ...base, tools: [{ type: 'web_search' }, strict] })).toBeUndefined();
  });
});

describe('the mock through the official SDK', () => {
  const openai = (key = 'ok') => new OpenAI({ apiKey: key, baseURL: `${mock.url}/v1`, maxRetries: 0 });

  it('remembers stored responses and the encrypted reasoning it issued, as OpenAI does', async () => {
    const first = await openai().responses.create({ model: 'gpt-4.1', input: 'Hello!' });
    expect(first.output_text).toBe('Hello from the mock upstream, this is a streamed answer.');
    expect((await openai().responses.create({ model: 'gpt-4.1', input: 'More', previous_response_id: first.id })).status).toBe('completed');

    const thinking = await openai().responses.create({ model: 'o4-mini', input: 'What is 27 * 453?', reasoning: { effort: 'low' }, store: false, include: ['reasoning.encrypted_content'] });
    const reasoning = thinking.output.find((item) => item.type === 'reasoning')!;
    expect(reasoning).toMatchObject({ summary: [] });
    const input = [{ role: 'user' as const, content: 'What is 27 * 453?' }, ...(thinking.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user' as const, content: 'Twice?' }];
    expect((await openai().responses.create({ model: 'o4-mini', input, reasoning: { effort: 'low' }, store: false })).status).toBe('completed');
    // Without include, the reasoning comes back bare and cannot be sent again without storage.
    const bare = await openai().responses.create({ model: 'o4-mini', input: 'x', reasoning: { effort: 'low' }, store: false });
    await expect(openai().responses.create({ model: 'o4-mini', input: [...(bare.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'y' }], store: false })).rejects.toMatchObject({ status: 404 });
  });

  it('modes: a stream that ends in response.failed, an answer cut at max_output_tokens', async () => {
    const types: string[] = [];
    for await (const event of await openai('stream-error').responses.create({ model: 'gpt-4.1', input: 'Hello!', stream: true })) types.push(event.type);
    expect(types.at(-1)).toBe('response.failed');
    expect(types).not.toContain('response.completed');
    const cut = await openai('incomplete').responses.create({ model: 'gpt-4.1', input: 'Hello!' });
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(responsesProblem({ model: 'gpt-4.1', input: 'x' }, responsesMemory())).toBeUndefined();
  });
});
