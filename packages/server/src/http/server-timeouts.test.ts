import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

let t: TestApp;
let mock: MockUpstream;
let port: number;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp({ HTTP_HEADERS_TIMEOUT_SECONDS: '1', HTTP_REQUEST_TIMEOUT_SECONDS: '1', HTTP_IDLE_TIMEOUT_SECONDS: '2' });
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

/** Opens a raw connection, writes `text`, and resolves when the server closes it: what it answered and when. */
function sendAndWaitForClose(text: string): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ ms: performance.now() - started, answer }));
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept the connection open'));
    }, 8000).unref();
  });
}

// covers issue 10 defect 6: slow bodies never timed out
describe('HTTP server timeouts', () => {
  it('closes a connection whose body stops half way, within the request timeout', async () => {
    const head = 'POST /api/user/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n';
    const { ms, answer } = await sendAndWaitForClose(`${head}{"username":"slow`);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    // 1 s timeout, checked every second by Node
    expect(ms).toBeLessThan(3000);
  });

  it('closes a connection whose headers never end, within the headers timeout', async () => {
    const { ms } = await sendAndWaitForClose('GET /api/status HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(ms).toBeLessThan(3000);
  });

  it('closes a silent connection', async () => {
    const { ms } = await sendAndWaitForClose('');
    expect(ms).toBeLessThan(3500);
  });

  it('does not cut a streamed /v1 answer that lasts longer than every timeout', async () => {
    const root = (await t.ctx.repositories.users.findByUsername('root'))!;
    await seedChannel(t.ctx.storage, { key: 'drip:300', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, root.id, { unlimited: true });
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const ms = performance.now() - started;
    // ten words 300 ms apart: about 3 s, past the 1 s request timeout and the 2 s idle timeout
    expect(ms).toBeGreaterThan(2500);
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(text.match(/chat\.completion\.chunk/g)?.length).toBeGreaterThanOrEqual(10);
  });
});
