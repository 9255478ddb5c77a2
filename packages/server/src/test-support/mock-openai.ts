import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local upstream speaking OpenAI's documented wire format (https://platform.openai.com/docs/api-reference):
 * chat completions (JSON and SSE with `stream_options.include_usage`), completions, embeddings, images,
 * audio speech / transcription / translation and moderations. Behaviour is steered per request by the key
 * (`Authorization: Bearer <mode>`), so several channels can point at one mock and act differently:
 *   ok | fail-500 | fail-429 | fail-401 | slow (never answers) | break (stream dies mid-way) | no-usage | total-only | slow-stream
 *   | drip:<ms> (streams one word every <ms>)
 */
export interface MockUpstream {
  url: string;
  requests: Array<{ path: string; key: string; body: unknown; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

export const MOCK_REPLY = 'Hello from the mock upstream, this is a streamed answer.';
const words = MOCK_REPLY.split(' ');

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

export async function startMockUpstream(): Promise<MockUpstream> {
  const requests: MockUpstream['requests'] = [];
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const key = String(req.headers['api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    const mode = key.split(':')[0];
    const isJson = String(req.headers['content-type'] ?? '').includes('json');
    const body = isJson && raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : undefined;
    const path = (req.url ?? '').split('?')[0];
    requests.push({ path, key, body: body ?? raw.toString('latin1'), headers: req.headers });

    if (mode === 'slow') return; // never answers: the gateway's timeout must fire
    if (mode === 'lag') await new Promise((r) => setTimeout(r, 300));
    if (mode === 'fail-500') return json(res, 500, { error: { message: 'upstream exploded', type: 'server_error' } });
    if (mode === 'fail-429') return json(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } });
    if (mode === 'fail-401') return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
    const model = String(body?.model ?? 'whisper-1');
    const withUsage = mode !== 'no-usage';

    if (path.endsWith('/chat/completions') || path.endsWith('/completions')) {
      const chat = path.endsWith('/chat/completions');
      const usage = mode === 'total-only' ? { total_tokens: 12 + words.length } : { prompt_tokens: 12, completion_tokens: words.length, total_tokens: 12 + words.length };
      if (body?.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const includeUsage = withUsage && (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
        const total = mode === 'break' ? 3 : words.length;
        for (let i = 0; i < total; i++) {
          const text = (i ? ' ' : '') + words[i];
          const choice = chat ? { index: 0, delta: i ? { content: text } : { role: 'assistant', content: text }, finish_reason: null } : { index: 0, text, finish_reason: null };
          res.write(`data: ${JSON.stringify({ id: 'chatcmpl-mock', object: chat ? 'chat.completion.chunk' : 'text_completion', created: 1, model, choices: [choice] })}\n\n`);
          if (mode === 'slow-stream') await new Promise((r) => setTimeout(r, 50));
          if (mode === 'drip') await new Promise((r) => setTimeout(r, Number(key.split(':')[1]) || 100));
        }
        if (mode === 'break') {
          await new Promise((r) => setTimeout(r, 30));
          res.socket?.destroy();
          return;
        }
        const stop = chat ? { index: 0, delta: {}, finish_reason: 'stop' } : { index: 0, text: '', finish_reason: 'stop' };
        res.write(`data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1, model, choices: [stop] })}\n\n`);
        if (includeUsage) res.write(`data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1, model, choices: [], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      const choice = chat
        ? { index: 0, message: { role: 'assistant', content: MOCK_REPLY }, finish_reason: 'stop' }
        : { index: 0, text: MOCK_REPLY, finish_reason: 'stop' };
      return json(res, 200, { id: 'chatcmpl-mock', object: chat ? 'chat.completion' : 'text_completion', created: 1, model, choices: [choice], ...(withUsage ? { usage } : {}) });
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
    if (path.endsWith('/images/generations')) {
      return json(res, 200, { created: 1, data: [{ url: 'https://example.com/image.png', revised_prompt: String(body?.prompt ?? '') }] });
    }
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
