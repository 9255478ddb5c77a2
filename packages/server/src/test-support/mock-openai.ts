import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerResponses, responsesMemory } from './mock-openai-responses.js';
import { measuredPromptTokens, scriptedCall } from './upstreams/tool-script.js';

/**
 * A local upstream speaking OpenAI's documented wire format (https://platform.openai.com/docs/api-reference):
 * chat completions (JSON and SSE with `stream_options.include_usage`), completions, embeddings, images,
 * audio speech / transcription / translation and moderations. Behaviour is steered per request by the key
 * (`Authorization: Bearer <mode>`), so several channels can point at one mock and act differently:
 *   ok | fail-400 (names the field, param and code) | fail-500 | fail-429 | fail-401 | slow (never answers) | break (stream dies mid-way) | no-usage | total-only | slow-stream
 *   endless (a stream that writes a word every 100 ms for a minute, until the caller goes away)
 *   long (writes up to 5,000 tokens, fewer when the request's max_tokens / max_completion_tokens says so)
 *   long-legacy (the same, honouring max_tokens only, as older OpenAI-compatible vendors do)
 *   overrun (reports 5,000 completion tokens whatever the request allowed, as a provider ignoring the cap would)
 *   cache-memory (a provider's prompt cache: the same first message seen before under the same key is reported as
 *     cached prompt tokens; keys `cache-memory:<n>` are separate accounts, each with its own cache)
 *   search (30,000 prompt tokens more than the request holds: the results of a provider-run web search)
 *   usage-negative | usage-strings | usage-huge (a broken report: -100 / -500, totals as words, 1e15 output tokens)
 *   tool (calls the first declared tool with {"city":"Paris"}; also the answer to any request that declares tools and
 *     whose last message is not a tool result) | reasoning (DeepSeek-style reasoning_content + reasoning_tokens)
 *   cache (usage reports cached prompt tokens)
 * Chat bodies are checked as OpenAI checks them: messages present, known roles, every tool message answering a
 * tool call of the assistant turn right before it, max_tokens refused by reasoning models.
 * POST /v1/responses speaks the Responses API (mock-openai-responses.ts), with the modes it documents.
 * GET any path ending in /models lists MOCK_MODELS in OpenAI's list shape (a channel form's 获取模型列表), behind the
 * same key modes (fail-401 refuses it).
 *   | drip:<ms> (streams one word every <ms>)
 */
export interface MockUpstream {
  url: string;
  /** Every request received; `aborted` once the caller closed the connection before the answer was complete. */
  requests: Array<{ path: string; key: string; body: unknown; headers: IncomingMessage['headers']; aborted?: boolean }>;
  close(): Promise<void>;
}

/** What the mock writes for a tool taking free text (Codex CLI's apply_patch). */
export const MOCK_PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** End Patch';
export const MOCK_REPLY = 'Hello from the mock upstream, this is a streamed answer.';
/** What GET .../models lists: a few models of the OpenAI-compatible vendors this mock stands in for. */
export const MOCK_MODELS = ['glm-4-flash', 'glm-4-plus', 'gpt-4o-mini', 'qwen-plus', 'qwen-turbo', 'text-embedding-v3'];
const words = MOCK_REPLY.split(' ');

/** Characters of every string in a request's messages (their text, roughly). */
function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + textLength(item), 0);
  if (value && typeof value === 'object') return Object.entries(value).reduce((sum, [key, item]) => sum + (key === 'role' ? 0 : textLength(item)), 0);
  return 0;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The spoken answer of the audio models: its transcript, and the tokens OpenAI counts for audio in and out. */
export const MOCK_TRANSCRIPT = 'Hello from the mock upstream, spoken.';
export const MOCK_AUDIO_TOKENS = { perInputClip: 120, output: 260, transcript: 9 };

/**
 * A chat with `modalities: ["text", "audio"]` (gpt-4o-audio-preview, gpt-audio): the answer is audio (base64 in
 * `message.audio.data`, with its transcript), `content` null; the usage splits out the audio tokens of each side
 * (`prompt_tokens_details.audio_tokens` for the `input_audio` parts, `completion_tokens_details.audio_tokens`).
 * OpenAI requires `audio: {voice, format}` with it.
 */
function audioAnswer(res: ServerResponse, body: Record<string, unknown>, model: string): void {
  const audio = body.audio as { voice?: unknown; format?: unknown } | undefined;
  if (!audio || typeof audio.voice !== 'string' || typeof audio.format !== 'string') {
    return json(res, 400, { error: { message: "Missing required parameter: 'audio'.", type: 'invalid_request_error', param: 'audio', code: 'missing_required_parameter' } });
  }
  const messages = (body.messages as Array<{ content?: unknown }>) ?? [];
  const clips = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((part) => (part as { type?: unknown })?.type === 'input_audio').length;
  const audioIn = clips * MOCK_AUDIO_TOKENS.perInputClip;
  const textIn = Math.max(12, Math.ceil(textLength(messages.map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.filter((p) => (p as { type?: unknown })?.type === 'text') : ''))) / 4));
  const usage = {
    prompt_tokens: textIn + audioIn,
    completion_tokens: MOCK_AUDIO_TOKENS.transcript + MOCK_AUDIO_TOKENS.output,
    total_tokens: textIn + audioIn + MOCK_AUDIO_TOKENS.transcript + MOCK_AUDIO_TOKENS.output,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: audioIn },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: MOCK_AUDIO_TOKENS.output, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const message = { role: 'assistant', content: null, refusal: null, audio: { id: 'audio_mock1', data: Buffer.from('RIFF-mock-wav').toString('base64'), expires_at: 1_900_000_000, transcript: MOCK_TRANSCRIPT } };
  return json(res, 200, { id: 'chatcmpl-audio', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message, finish_reason: 'stop' }], usage });
}

/** Sizes and qualities each image model takes, as OpenAI's images endpoint checks them. */
const IMAGE_MODELS: Record<string, { sizes: string[]; qualities: string[]; most: number; size: string; quality: string }> = {
  'dall-e-2': { sizes: ['256x256', '512x512', '1024x1024'], qualities: ['standard'], most: 10, size: '1024x1024', quality: 'standard' },
  'dall-e-3': { sizes: ['1024x1024', '1792x1024', '1024x1792'], qualities: ['standard', 'hd'], most: 1, size: '1024x1024', quality: 'standard' },
  'gpt-image-1': { sizes: ['1024x1024', '1024x1536', '1536x1024', 'auto'], qualities: ['low', 'medium', 'high', 'auto'], most: 10, size: 'auto', quality: 'auto' },
};
/** GPT Image's output tokens per image by quality and size (OpenAI's image generation guide): `auto` as high. */
const GPT_IMAGE_TOKENS: Record<string, Record<string, number>> = {
  low: { '1024x1024': 272, '1024x1536': 408, '1536x1024': 400 },
  medium: { '1024x1024': 1056, '1024x1536': 1584, '1536x1024': 1568 },
  high: { '1024x1024': 4160, '1024x1536': 6240, '1536x1024': 6208 },
};

/** POST /v1/images/generations: n images (dall-e-3 one), URLs for dall-e, base64 and the token usage for GPT Image. */
function imagesAnswer(res: ServerResponse, body: Record<string, unknown>, model: string) {
  const rules = IMAGE_MODELS[model.startsWith('gpt-image') ? 'gpt-image-1' : model] ?? IMAGE_MODELS['dall-e-2'];
  const refuse = (message: string, param: string) => json(res, 400, { error: { message, type: 'invalid_request_error', param, code: null } });
  const n = body.n === undefined ? 1 : Number(body.n);
  if (!Number.isInteger(n) || n < 1 || n > rules.most) return refuse(`Invalid 'n': must be between 1 and ${rules.most} for ${model}.`, 'n');
  const size = String(body.size ?? rules.size);
  if (!rules.sizes.includes(size)) return refuse(`Invalid value: '${size}'. Supported values are: ${rules.sizes.map((s) => `'${s}'`).join(', ')}.`, 'size');
  const quality = String(body.quality ?? rules.quality);
  if (!rules.qualities.includes(quality)) return refuse(`Invalid value: '${quality}'. Supported values are: ${rules.qualities.map((q) => `'${q}'`).join(', ')}.`, 'quality');
  const revised = String(body.prompt ?? '');
  if (!model.startsWith('gpt-image')) return json(res, 200, { created: 1, data: Array.from({ length: n }, () => ({ url: 'https://example.com/image.png', revised_prompt: revised })) });
  const perImage = GPT_IMAGE_TOKENS[quality === 'auto' ? 'high' : quality][size === 'auto' ? '1024x1536' : size];
  const text = Math.max(1, Math.ceil(revised.length / 4));
  const usage = { total_tokens: text + perImage * n, input_tokens: text, output_tokens: perImage * n, input_tokens_details: { text_tokens: text, image_tokens: 0 } };
  return json(res, 200, { created: 1, data: Array.from({ length: n }, () => ({ b64_json: 'iVBORw0KGgo=' })), quality, size, usage });
}

export async function startMockUpstream(): Promise<MockUpstream> {
  const requests: MockUpstream['requests'] = [];
  /** The first messages each account (key) has seen: a repeat is a prompt-cache hit. */
  const caches = new Map<string, Set<string>>();
  const promptCache = (key: string, body: Record<string, unknown> | undefined): boolean => {
    const first = JSON.stringify((body?.messages as unknown[] | undefined)?.[0] ?? '');
    const seen = caches.get(key) ?? new Set<string>();
    caches.set(key, seen);
    const hit = seen.has(first);
    seen.add(first);
    return hit;
  };
  const memory = responsesMemory();
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const key = String(req.headers['api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    const mode = key.split(':')[0];
    const isJson = String(req.headers['content-type'] ?? '').includes('json');
    const body = isJson && raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : undefined;
    const path = (req.url ?? '').split('?')[0];
    const record: MockUpstream['requests'][number] = { path, key, body: body ?? raw.toString('latin1'), headers: req.headers };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });

    // Azure OpenAI (/openai/deployments/<name>/...): an api-version is required, and API versions before
    // 2024-09-01-preview refuse `stream_options` as an unknown argument (it came with 2024-09-01-preview and the
    // 2024-10-21 GA version).
    if (path.startsWith('/openai/deployments/')) {
      const version = new URL(req.url ?? '', 'http://mock').searchParams.get('api-version');
      if (!version) return json(res, 404, { error: { code: '404', message: 'Resource not found' } });
      if (body?.stream_options !== undefined && /^\d{4}-\d{2}-\d{2}/.test(version) && version.slice(0, 10) < '2024-09-01') {
        return json(res, 400, { error: { message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error', param: null, code: null } });
      }
    }
    if (mode === 'slow') return; // never answers: the gateway's timeout must fire
    if (mode === 'endless' && body?.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (let i = 0; i < 600 && !res.destroyed && !res.writableEnded; i++) {
        res.write(`data: ${JSON.stringify({ id: 'chatcmpl-endless', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: 'word ' }, finish_reason: null }] })}\n\n`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return res.end('data: [DONE]\n\n');
    }
    // `lag` answers after 300 ms, `lag:<ms>` after that many.
    if (mode === 'lag') await new Promise((r) => setTimeout(r, Number(key.split(':')[1]) || 300));
    if (mode === 'fail-500') return json(res, 500, { error: { message: 'upstream exploded', type: 'server_error' } });
    // OpenAI's answer to a bad field, naming it (param) and giving a code; it also names the host it runs on.
    if (mode === 'fail-400') {
      return json(res, 400, { error: { message: `Invalid value for 'temperature' at ${req.headers.host}: expected a number, got a string.`, type: 'invalid_request_error', param: 'temperature', code: 'invalid_type' } });
    }
    if (mode === 'fail-429') return json(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } });
    if (mode === 'fail-401') return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    if (req.method === 'GET' && path.endsWith('/models')) {
      return json(res, 200, { object: 'list', data: MOCK_MODELS.map((id) => ({ id, object: 'model', created: 1, owned_by: 'mock' })) });
    }
    const model = String(body?.model ?? 'whisper-1');
    const withUsage = mode !== 'no-usage';

    if (path.endsWith('/responses') && req.method === 'POST') return answerResponses(res, body, mode, memory);
    if (path.endsWith('/chat/completions') && body) {
      const problem = chatProblem(body);
      if (problem) return json(res, 400, { error: { message: problem, type: 'invalid_request_error', param: null, code: null } });
      const messages = body.messages as Array<Record<string, unknown>>;
      const tools = Array.isArray(body.tools) ? (body.tools as Array<{ function: { name: string } }>) : [];
      const callsTool = tools.length > 0 && (mode === 'tool' || (mode === 'ok' && messages.at(-1)?.role !== 'tool'));
      const scripted = scriptedCall(tools.map((t) => t.function.name));
      if (callsTool || mode === 'reasoning' || mode === 'cache') return chatScenario(res, body, model, callsTool ? (scripted?.name ?? tools[0].function.name) : undefined, mode);
    }
    if (path.endsWith('/chat/completions') && body && Array.isArray(body.modalities) && body.modalities.includes('audio')) return audioAnswer(res, body, model);
    if (path.endsWith('/chat/completions') || path.endsWith('/completions')) {
      const chat = path.endsWith('/chat/completions');
      // `long-legacy`: an older vendor that honours max_tokens and ignores max_completion_tokens.
      const cap = Number((mode === 'long-legacy' ? body?.max_tokens : (body?.max_completion_tokens ?? body?.max_tokens)) ?? Infinity);
      const written = mode === 'long' || mode === 'long-legacy' ? Math.min(5000, cap) : mode === 'overrun' ? 5000 : words.length;
      // About four characters a token, at least 12 (what the short prompts of the tests are billed); `search` adds
      // the 30,000 tokens of results a provider-run web search feeds the model.
      const prompt = (measuredPromptTokens(body) ?? Math.max(12, Math.ceil(textLength(body?.messages ?? body?.prompt) / 4))) + (mode === 'search' ? 30_000 : 0);
      const usage =
        mode === 'total-only' ? { total_tokens: prompt + words.length }
        : mode === 'usage-negative' ? { prompt_tokens: -100, completion_tokens: -500, total_tokens: -600 }
        : mode === 'usage-strings' ? { prompt_tokens: 'twelve', completion_tokens: 'ten', total_tokens: 'lots' }
        : mode === 'usage-huge' ? { prompt_tokens: 12, completion_tokens: 1e15, total_tokens: 1e15 }
        : { prompt_tokens: prompt, completion_tokens: written, total_tokens: prompt + written, ...(mode === 'cache-memory' ? { prompt_tokens_details: { cached_tokens: promptCache(key, body) ? prompt - 12 : 0 } } : {}) };
      // The tier that served the request, as OpenAI names it in every chat answer and chunk: Fast mode is "priority".
      const tier = chat ? { service_tier: body?.service_tier === 'priority' || body?.service_tier === 'fast' ? 'priority' : 'default' } : {};
      if (body?.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const includeUsage = withUsage && (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
        const total = mode === 'break' ? 3 : words.length;
        for (let i = 0; i < total; i++) {
          const text = (i ? ' ' : '') + words[i];
          const choice = chat ? { index: 0, delta: i ? { content: text } : { role: 'assistant', content: text }, finish_reason: null } : { index: 0, text, finish_reason: null };
          res.write(`data: ${JSON.stringify({ id: 'chatcmpl-mock', object: chat ? 'chat.completion.chunk' : 'text_completion', created: 1, model, ...tier, choices: [choice] })}\n\n`);
          if (mode === 'slow-stream') await new Promise((r) => setTimeout(r, 50));
          if (mode === 'drip') await new Promise((r) => setTimeout(r, Number(key.split(':')[1]) || 100));
        }
        if (mode === 'break') {
          await new Promise((r) => setTimeout(r, 30));
          res.socket?.destroy();
          return;
        }
        const stop = chat ? { index: 0, delta: {}, finish_reason: 'stop' } : { index: 0, text: '', finish_reason: 'stop' };
        res.write(`data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1, model, ...tier, choices: [stop] })}\n\n`);
        if (includeUsage) res.write(`data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1, model, ...tier, choices: [], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      const choice = chat
        ? { index: 0, message: { role: 'assistant', content: MOCK_REPLY }, finish_reason: 'stop' }
        : { index: 0, text: MOCK_REPLY, finish_reason: 'stop' };
      return json(res, 200, { id: 'chatcmpl-mock', object: chat ? 'chat.completion' : 'text_completion', created: 1, model, ...tier, choices: [choice], ...(withUsage ? { usage } : {}) });
    }
    if (path.endsWith('/embeddings')) {
      const inputs = Array.isArray(body?.input) ? body.input : [body?.input];
      return json(res, 200, {
        object: 'list',
        model,
        data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3] })),
        usage: { prompt_tokens: 5 * inputs.length, total_tokens: 5 * inputs.length },
      });
    }
    if (path.endsWith('/images/generations')) return imagesAnswer(res, body ?? {}, model);
    if (path.endsWith('/audio/speech')) {
      const audio = Buffer.from('ID3-fake-mp3-bytes');
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': audio.length });
      return res.end(audio);
    }
    if (path.endsWith('/audio/transcriptions') || path.endsWith('/audio/translations')) {
      return json(res, 200, { text: 'transcribed text' });
    }
    if (path.endsWith('/dashboard/billing/subscription')) return json(res, 200, { object: 'billing_subscription', hard_limit_usd: 120 });
    if (path.endsWith('/dashboard/billing/usage')) return json(res, 200, { object: 'list', total_usage: 2050 });
    if (path.endsWith('/dashboard/billing/credit_grants')) return json(res, 200, { object: 'credit_summary', total_available: 33.5, total_remaining: 33.5 });
    if (path.endsWith('/moderations')) {
      return json(res, 200, { id: 'modr-mock', model, results: [{ flagged: false, categories: {}, category_scores: {} }] });
    }
    return json(res, 404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What OpenAI refuses in a chat body (a subset: the rules translated requests could break). */
export function chatProblem(body: Record<string, unknown>): string | undefined {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "'messages' must contain at least one message";
  const open = new Set<string>();
  let previous: Record<string, unknown> | undefined;
  for (const message of messages as Array<Record<string, unknown>>) {
    if (!['system', 'developer', 'user', 'assistant', 'tool', 'function'].includes(String(message.role))) return `Invalid value: '${String(message.role)}'`;
    if (message.role === 'assistant') {
      open.clear();
      for (const call of (message.tool_calls as Array<{ id: string }> | undefined) ?? []) open.add(call.id);
    } else if (message.role === 'tool') {
      if (previous?.role !== 'assistant' && previous?.role !== 'tool') return "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'";
      if (!open.delete(String(message.tool_call_id))) return `Invalid parameter: tool_call_id ${String(message.tool_call_id)} does not answer a tool call`;
    } else if (open.size > 0) {
      return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'";
    }
    previous = message;
  }
  if (body.max_tokens !== undefined && /^(o\d|gpt-(?:[5-9]|[1-9]\d))/.test(String(body.model))) return "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
  return undefined;
}

/** Tool call, reasoning and cached-usage answers, whole or streamed (arguments in pieces). */
function chatScenario(res: ServerResponse, body: Record<string, unknown>, model: string, tool: string | undefined, mode: string): void {
  // A tool taking one free-text `input` (a Responses custom tool, translated) gets a patch; any other the weather call.
  const called = (body.tools as Array<{ function: { name: string; parameters?: { properties?: Record<string, { type?: string }> } } }> | undefined)?.find((t) => t.function.name === tool);
  const freeText = called?.function.parameters?.properties?.input?.type === 'string';
  const scripted = tool ? scriptedCall([tool]) : undefined;
  const args = scripted ? JSON.stringify(scripted.args) : freeText ? JSON.stringify({ input: MOCK_PATCH }) : '{"city": "Paris"}';
  const pieces = scripted || freeText ? [args.slice(0, 10), args.slice(10, 30), args.slice(30)] : ['{"city', '": "Par', 'is"}'];
  const reasoning = mode === 'reasoning' ? 'The user wants a short answer.' : undefined;
  const text = tool ? '' : MOCK_REPLY;
  // A cache hit needs a long prompt (OpenAI caches from 1,024 tokens, in steps of 128).
  const prompt = measuredPromptTokens(body) ?? (mode === 'cache' ? 2048 : 40);
  const usage = {
    prompt_tokens: prompt,
    completion_tokens: 20,
    total_tokens: prompt + 20,
    prompt_tokens_details: { cached_tokens: mode === 'cache' ? 1920 : 0 },
    completion_tokens_details: { reasoning_tokens: reasoning ? 8 : 0 },
  };
  const base = { id: 'chatcmpl-mock', created: 1, model };
  const finish = tool ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const message: Record<string, unknown> = { role: 'assistant', content: tool ? null : text };
    if (reasoning) message.reasoning_content = reasoning;
    if (tool) message.tool_calls = [{ id: 'call_mock1', type: 'function', function: { name: tool, arguments: args } }];
    return json(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`);
  chunk({ role: 'assistant', content: '' });
  if (reasoning) chunk({ reasoning_content: reasoning });
  if (tool) {
    chunk({ tool_calls: [{ index: 0, id: 'call_mock1', type: 'function', function: { name: tool, arguments: '' } }] });
    for (const piece of pieces) chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
  } else for (const word of words) chunk({ content: `${word === words[0] ? '' : ' '}${word}` });
  chunk({}, finish);
  if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}
