import { isRecord } from '../../relay/dialects/shared.js';
import { applyTimingMode, modeOf, sendJson, startMockServer, writePaced, type MockHandle } from './mock-server.js';

/**
 * A local Ollama (its own API, https://github.com/ollama/ollama/blob/main/docs/api.md): `/api/chat` (one JSON
 * object, or newline-delimited JSON when `stream` is true or absent: Ollama streams by default), `/api/embed` and
 * `/api/tags`. It checks what Ollama checks: a model it has, messages with known roles and string content, base64
 * images, `options` of the right types; errors are `{ "error": "..." }`. The bearer (Ollama behind a proxy that
 * wants one) picks the mode: `ok` unless it names another (fail-500, break, tool...).
 */
export const OLLAMA_MODELS = ['llama3.2:latest', 'qwen2.5:latest', 'all-minilm:latest'];
export const OLLAMA_ANSWER = 'The sky is blue because of Rayleigh scattering.';

const known = (model: unknown) => typeof model === 'string' && OLLAMA_MODELS.some((m) => m === model || m === `${model}:latest`);

function chatProblem(body: Record<string, unknown>): string | undefined {
  if (!known(body.model)) return `model "${String(body.model)}" not found, try pulling it first`;
  if (!Array.isArray(body.messages)) return 'messages must be an array';
  for (const m of body.messages) {
    if (!isRecord(m) || !['system', 'user', 'assistant', 'tool'].includes(String(m.role))) return 'invalid message role';
    if (typeof m.content !== 'string') return 'invalid message content: must be a string';
    if (m.images !== undefined && (!Array.isArray(m.images) || m.images.some((i) => typeof i !== 'string' || i.startsWith('data:')))) return 'invalid image data';
    if (m.tool_calls !== undefined && (!Array.isArray(m.tool_calls) || m.tool_calls.some((c) => !isRecord(c) || !isRecord(c.function) || !isRecord(c.function.arguments)))) return 'invalid tool call: arguments must be an object';
  }
  if (body.options !== undefined) {
    if (!isRecord(body.options)) return 'options must be an object';
    for (const [name, value] of Object.entries(body.options)) if (name !== 'stop' && typeof value !== 'number') return `invalid options: ${name} must be a number`;
  }
  if ('max_tokens' in body || 'stream_options' in body) return 'unknown field';
  return undefined;
}

/** Whether `messages` begin with every one of `earlier` (a conversation's next turn). */
const extends_ = (messages: unknown[], earlier: unknown[] | undefined) =>
  earlier !== undefined && messages.length > earlier.length && earlier.every((m, i) => JSON.stringify(m) === JSON.stringify(messages[i]));

export async function startMockOllama(): Promise<MockHandle> {
  // The last chat's messages per model: Ollama keeps a model's KV cache and reuses it for a prompt that begins with the
  // last one, and reports that part as `prompt_eval_cached_count` (within `prompt_eval_count`, which is the whole prompt).
  const lastMessages = new Map<string, unknown[]>();
  return startMockServer(async (_req, res, recorded) => {
    const auth = String(recorded.headers.authorization ?? '');
    const mode = modeOf(auth.startsWith('Bearer ') ? auth.slice(7) : undefined) ?? 'ok';
    recorded.mode = mode;
    if (recorded.method === 'GET' && recorded.path === '/api/tags') {
      return sendJson(res, 200, { models: OLLAMA_MODELS.map((name) => ({ name, model: name, modified_at: '2025-05-04T17:37:44.706015396-07:00', size: 2019393189, digest: 'a80c4f17', details: { format: 'gguf' } })) });
    }
    const body = isRecord(recorded.body) ? recorded.body : {};
    if (recorded.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
    if (mode.startsWith('fail-')) return sendJson(res, Number(mode.slice(5)), { error: `mock failure ${mode}` });
    if (recorded.path === '/api/embed') {
      if (!known(body.model)) return sendJson(res, 404, { error: `model "${String(body.model)}" not found, try pulling it first` });
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      return sendJson(res, 200, { model: body.model, embeddings: inputs.map(() => [0.01, -0.02, 0.03]), prompt_eval_count: 4 * inputs.length });
    }
    if (recorded.path !== '/api/chat') return sendJson(res, 404, { error: '404 page not found' });
    const problem = chatProblem(body);
    if (problem) return sendJson(res, problem.startsWith('model') ? 404 : 400, { error: problem });
    const stream = body.stream !== false;
    if (await applyTimingMode(res, mode, stream)) return;
    const tools = Array.isArray(body.tools) && body.tools.length > 0 ? body.tools : undefined;
    const lastRole = Array.isArray(body.messages) && isRecord(body.messages.at(-1)) ? (body.messages.at(-1) as Record<string, unknown>).role : undefined;
    const callTool = tools !== undefined && lastRole !== 'tool';
    const tool = callTool && isRecord(tools![0]) && isRecord((tools![0] as Record<string, unknown>).function) ? String(((tools![0] as Record<string, unknown>).function as Record<string, unknown>).name) : undefined;
    const messages = body.messages as unknown[];
    const reused = extends_(messages, lastMessages.get(String(body.model)));
    lastMessages.set(String(body.model), messages);
    const counts = { prompt_eval_count: 26, eval_count: callTool ? 20 : 12, ...(reused ? { prompt_eval_cached_count: 20 } : {}) };
    const done = { model: body.model, created_at: new Date().toISOString(), done: true, done_reason: 'stop', total_duration: 1000, ...counts };
    if (!stream) {
      const message = tool ? { role: 'assistant', content: '', tool_calls: [{ function: { name: tool, arguments: { city: 'Paris' } } }] } : { role: 'assistant', content: OLLAMA_ANSWER };
      return sendJson(res, 200, { ...done, message });
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const line = (value: unknown) => `${JSON.stringify(value)}\n`;
    const pieces = tool
      ? [line({ model: body.model, created_at: '', message: { role: 'assistant', content: '', tool_calls: [{ function: { name: tool, arguments: { city: 'Paris' } } }] }, done: false })]
      : OLLAMA_ANSWER.split(/(?<= )/).map((word) => line({ model: body.model, created_at: '', message: { role: 'assistant', content: word }, done: false }));
    if (mode === 'stream-error') {
      await writePaced(res, pieces.slice(0, 2), 'ok');
      res.end(line({ error: 'an error was encountered while running the model' }));
      return;
    }
    if (!(await writePaced(res, [...pieces, line({ ...done, message: { role: 'assistant', content: '' } })], mode))) return;
    res.end();
  });
}
