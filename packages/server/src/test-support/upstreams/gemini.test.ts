import { ApiError, GoogleGenAI, type Content } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from './fixtures.js';
import { startMockGemini, type MockGemini } from './gemini.js';

// Self-test of the Gemini mock with the official @google/genai SDK (generateContent, generateContentStream,
// countTokens, models.list) plus raw requests for what the API refuses.
const fx = fixtures('gemini');
let mock: MockGemini;
const MODEL = 'gemini-2.5-flash';

const ai = (key = 'ok') => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: mock.url } });

async function raw(body: unknown, { model = MODEL, method = 'generateContent', query = '', key = 'ok' } = {}) {
  const res = await fetch(`${mock.url}/v1beta/models/${model}:${method}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-goog-api-key': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
const rawJson = async (...args: Parameters<typeof raw>) => {
  const res = await raw(...args);
  return { status: res.status, body: JSON.parse(res.text) };
};

beforeAll(async () => {
  mock = await startMockGemini();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
});

describe('Gemini mock driven by the official SDK', () => {
  it('generateContent answers the recorded text; the SDK sends its key in x-goog-api-key', async () => {
    const request = fx.json('text.request.json');
    const response = await ai().models.generateContent({ model: MODEL, contents: request.contents, config: { systemInstruction: request.systemInstruction } });
    expect(response.text).toBe('Hello! How can I help you today?');
    expect(response.usageMetadata).toEqual(fx.json('text.response.json').usageMetadata);
    const [sent] = mock.requests;
    // @google/genai 3 calls the stable API version by default (v1; 2.x called v1beta): the mock serves both.
    expect(sent.path).toBe(`/v1/models/${MODEL}:generateContent`);
    expect(sent.headers['x-goog-api-key']).toBe('ok');
    expect((sent.body as any).contents).toEqual(request.contents);
  });

  it('generateContentStream streams SSE chunks; the last carries the full usage', async () => {
    const request = fx.json('text.request.json');
    const chunks = [];
    for await (const chunk of await ai().models.generateContentStream({ model: MODEL, contents: request.contents, config: { systemInstruction: request.systemInstruction } })) chunks.push(chunk);
    expect(chunks.map((c) => c.text).join('')).toBe('Hello! How can I help you today?');
    expect(chunks.at(-1)?.usageMetadata).toMatchObject({ promptTokenCount: 6, candidatesTokenCount: 9, totalTokenCount: 15 });
    expect(chunks[0].usageMetadata?.candidatesTokenCount).toBeUndefined();
    expect(mock.requests[0].query.alt).toBe('sse');
  });

  it('streams the recorded bytes: SSE with alt=sse, an incrementally sent JSON array without it', async () => {
    const sse = await raw(fx.json('text.request.json'), { method: 'streamGenerateContent', query: '?alt=sse' });
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    expect(sse.text).toBe(fx.text('text.stream.txt'));
    const array = await raw(fx.json('text.request.json'), { method: 'streamGenerateContent' });
    expect(array.headers.get('content-type')).toContain('application/json');
    expect(array.text).toBe(fx.text('text.stream.json'));
    expect(JSON.parse(array.text)).toHaveLength(2);
  });

  it('calls a declared function with a thought signature and answers the function response', async () => {
    const request = fx.json('tools.request.json');
    const call = await ai().models.generateContent({ model: MODEL, contents: request.contents, config: { tools: request.tools } });
    expect(call.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    const modelTurn = call.candidates![0].content as Content;
    expect(modelTurn.parts![0].thoughtSignature).toBe(fx.json('tools.response.json').candidates[0].content.parts[0].thoughtSignature);

    const followUp = [...request.contents, modelTurn, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: '15°C' } } }] }];
    const answer = await ai().models.generateContent({ model: MODEL, contents: followUp, config: { tools: request.tools } });
    expect(answer.text).toBe("It's 15°C and partly cloudy in Paris.");
  });

  it('on Gemini 3 the function call of the current turn must carry its signature, unchanged', async () => {
    const request = fx.json('tool-result.request.json');
    expect((await rawJson(request, { model: 'gemini-3-pro-preview' })).status).toBe(200);
    const unsigned = structuredClone(request);
    delete unsigned.contents[1].parts[0].thoughtSignature;
    const missing = await rawJson(unsigned, { model: 'gemini-3-pro-preview' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/^Function call is missing a thought_signature in functionCall parts\..*function call `get_weather` , position 2/);
    expect((await rawJson(unsigned)).status).toBe(200); // Gemini 2.5 does not insist
    const altered = structuredClone(request);
    altered.contents[1].parts[0].thoughtSignature = 'AAAA' + altered.contents[1].parts[0].thoughtSignature.slice(4);
    expect((await rawJson(altered)).body).toEqual({ error: { code: 400, message: 'Corrupted thought signature.', status: 'INVALID_ARGUMENT' } });
  });

  it('returns thought parts and thoughtsTokenCount when thoughts are included', async () => {
    const request = fx.json('reasoning.request.json');
    const response = await ai().models.generateContent({ model: MODEL, contents: request.contents, config: { thinkingConfig: request.generationConfig.thinkingConfig } });
    const parts = response.candidates![0].content!.parts!;
    expect(parts[0].thought).toBe(true);
    expect(parts[1].thoughtSignature).toBeTruthy();
    expect(response.usageMetadata?.thoughtsTokenCount).toBe(180);
    expect((mock.requests[0].body as any).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 1024, includeThoughts: true });
  });

  it('reports cached tokens for a request on a cached content; refuses an unknown cache', async () => {
    const request = fx.json('cache.request.json');
    const response = await ai().models.generateContent({ model: MODEL, contents: request.contents, config: { cachedContent: request.cachedContent } });
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 2058, cachedContentTokenCount: 2048 });
    const unknown = await rawJson({ ...request, cachedContent: 'cachedContents/nope' });
    expect(unknown).toMatchObject({ status: 403, body: { error: { status: 'PERMISSION_DENIED' } } });
    const withSystem = await rawJson({ ...request, systemInstruction: { parts: [{ text: 'x' }] } });
    expect(withSystem.body.error.message).toMatch(/^CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config/);
  });

  it('answers an image and counts tokens like generateContent bills them; lists models', async () => {
    const image = fx.json('image.request.json');
    expect((await ai().models.generateContent({ model: MODEL, contents: image.contents })).text).toBe('A single red pixel.');
    const count = await ai().models.countTokens({ model: MODEL, contents: fx.json('count-tokens.request.json').contents });
    expect(count.totalTokens).toBe(fx.json('count-tokens.response.json').totalTokens);
    const models = [];
    for await (const model of await ai().models.list()) models.push(model.name);
    expect(models).toContain('models/gemini-2.5-flash');
  });

  it('failure modes answer Google error shapes; a broken stream throws', async () => {
    const error = (await ai('fail-429')
      .models.generateContent({ model: MODEL, contents: 'Hello' })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect((await rawJson(fx.json('text.request.json'), { key: 'fail-503' })).body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    const consume = async (key: string) => {
      for await (const chunk of await ai(key).models.generateContentStream({ model: MODEL, contents: 'Hello' })) void chunk;
    };
    await expect(consume('break')).rejects.toThrow();
    await expect(consume('stream-error')).rejects.toThrow();
  });
});

describe('Gemini mock refuses what the API refuses', () => {
  it('no key is 403; a wrong key (header or ?key=) is 400 API_KEY_INVALID', async () => {
    expect((await rawJson(fx.json('text.request.json'), { key: '' })).body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    const wrong = await rawJson(fx.json('text.request.json'), { key: 'AIza-wrong' });
    expect(wrong.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }, {}] });
    expect((await rawJson(fx.json('text.request.json'), { key: '', query: '?key=ok' })).status).toBe(200);
  });

  const text = () => fx.json('text.request.json');
  const cases: Array<[string, unknown, string, string?]> = [
    ['an assistant role', { contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }] }, 'Please use a valid role: user, model.'],
    ['a system role', { contents: [{ role: 'system', parts: [{ text: 'hi' }] }] }, 'Please use a valid role: user, model.'],
    ['an OpenAI body', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] }, 'Invalid JSON payload received. Unknown name "messages": Cannot find field.'],
    ['no contents', { systemInstruction: text().systemInstruction }, '* GenerateContentRequest.contents: contents is not specified\n'],
    ['an empty part list', { contents: [{ role: 'user', parts: [] }] }, '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n'],
    ['a JSON Schema keyword Gemini schemas lack', { ...fx.json('tools.request.json'), tools: [{ functionDeclarations: [{ ...fx.json('tools.request.json').tools[0].functionDeclarations[0], parameters: { ...fx.json('tools.request.json').tools[0].functionDeclarations[0].parameters, additionalProperties: false } }] }] }, "Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0].parameters': Cannot find field."],
    ['a function response with no call before it', { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { t: 1 } } }] }] }, 'Please ensure that function response turn comes immediately after a function call turn.'],
    ['a thinking budget of 0 on a Pro model', { ...text(), generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }, 'Budget 0 is invalid. This model only works in thinking mode.', 'gemini-2.5-pro'],
    ['an image that is no image', { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'aGVsbG8=' } }] }] }, 'Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting'],
  ];
  for (const [name, body, message, model] of cases) {
    it(`refuses ${name}`, async () => {
      const res = await rawJson(body, { model: model ?? MODEL });
      expect(res).toEqual({ status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } });
    });
  }

  it('accepts snake_case field names, as proto JSON does', async () => {
    const res = await rawJson({ system_instruction: { parts: [{ text: 'You are terse.' }] }, contents: [{ role: 'user', parts: [{ text: 'Hello' }] }], generation_config: { max_output_tokens: 100 } });
    expect(res.status).toBe(200);
  });

  it('an unknown model is 404 NOT_FOUND', async () => {
    const res = await rawJson(text(), { model: 'gpt-4o' });
    expect(res.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });
});
