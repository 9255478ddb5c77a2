import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A minimal OpenAI-format upstream for browser tests: chat completions with usage (12 prompt + 10 completion tokens). */
export async function startMockUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      const text = JSON.stringify({
        id: 'chatcmpl-e2e',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'hello from the mock' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 },
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
