import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-format upstream that answers from canned replies without parsing what it is sent (it only looks
 * for `"stream":true`). For load-style tests that run in the gateway's own process: the upstream must not
 * spend the event loop's time on JSON the gateway is being measured on. Usage is always reported.
 */
export interface CannedUpstream {
  url: string;
  /** Requests received so far. */
  count(): number;
  close(): Promise<void>;
}

const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
const chunk = (body: unknown) => `data: ${JSON.stringify(body)}\n\n`;

function reply(path: string, stream: boolean): { type: string; body: string } {
  const json = (body: unknown) => ({ type: 'application/json', body: JSON.stringify(body) });
  if (path.endsWith('/chat/completions') && stream) {
    const body =
      chunk({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] }) +
      chunk({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
      chunk({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage }) +
      'data: [DONE]\n\n';
    return { type: 'text/event-stream', body };
  }
  if (path.endsWith('/chat/completions')) {
    return json({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage });
  }
  if (path.endsWith('/completions')) return json({ id: 'c', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text: 'ok', finish_reason: 'stop' }], usage });
  if (path.endsWith('/embeddings')) return json({ object: 'list', model: 'm', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], usage });
  if (path.endsWith('/images/generations')) return json({ created: 1, data: [{ url: 'https://example.com/i.png' }] });
  if (path.endsWith('/audio/speech')) return { type: 'audio/mpeg', body: 'ID3' };
  if (path.includes('/audio/')) return json({ text: 'ok' });
  if (path.endsWith('/moderations')) return json({ id: 'm', model: 'm', results: [{ flagged: false, categories: {}, category_scores: {} }] });
  return json({ object: 'list', data: [] });
}

export async function startCannedUpstream(): Promise<CannedUpstream> {
  let received = 0;
  const server: Server = createServer((req, res) => {
    received++;
    const chunks: Buffer[] = [];
    req.on('data', (data: Buffer) => chunks.push(data));
    req.on('end', () => {
      const stream = Buffer.concat(chunks).includes('"stream":true');
      const { type, body } = reply((req.url ?? '').split('?')[0], stream);
      res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
