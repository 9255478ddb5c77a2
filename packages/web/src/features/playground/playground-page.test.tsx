import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import PlaygroundPage from './playground-page';

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

const chunk = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;

interface RelayCall {
  headers: Record<string, string>;
  body: { model: string; messages: Array<{ role: string; content: string }>; temperature: number; stream: boolean; stream_options: unknown };
}

/** The console's API (mockApi) plus a relay that streams `parts`, or never ends until aborted (`endless`). */
function setUp(options: { endless?: boolean; logAfter?: number } = {}) {
  const relayCalls: RelayCall[] = [];
  let logLookups = 0;
  const calls = mockApi({
    'GET /api/token/': () => ({ success: true, message: '', data: [{ id: 3, name: 'play-key', status: 1 }, { id: 4, name: 'off-key', status: 2 }] }),
    'POST /api/token/3/key': () => ({ success: true, message: '', data: { key: 'A'.repeat(48) } }),
    'GET /api/log/self/': () => {
      logLookups++;
      return { success: true, message: '', data: logLookups > (options.logAfter ?? 0) ? [{ id: 1, quota: 4, prompt_tokens: 12, completion_tokens: 10, elapsed_time: 1500, type: 2 }] : [] };
    },
  });
  const api = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    if (url === '/v1/models') return new Response(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini' }, { id: 'claude-sonnet-4-5' }] }), { headers: { 'content-type': 'application/json' } });
    if (url === '/v1/chat/completions') {
      relayCalls.push({ headers, body: JSON.parse(String(init?.body)) });
      const signal = init?.signal;
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          const encoder = new TextEncoder();
          signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
          controller.enqueue(encoder.encode(chunk('Hello') + chunk(' from')));
          if (options.endless) return;
          controller.enqueue(encoder.encode(chunk(' the mock') + `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 10 } })}\n\ndata: [DONE]\n\n`));
          controller.close();
        },
      });
      return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req-play-1' } });
    }
    return api(input, init);
  }) as typeof fetch;
  return { calls, relayCalls, lookups: () => logLookups };
}

/** What a select shows as chosen. */
const picked = (name: string) => (screen.getByRole('combobox', { name }).closest('.ant-select') as HTMLElement).textContent;

async function ready() {
  renderWith(<PlaygroundPage />, { user: users.common, path: '/playground' });
  await waitFor(() => expect(picked('模型')).toBe('claude-sonnet-4-5'), { timeout: 5000 });
}

describe('playground', () => {
  it('picks the first enabled key and its first model (by name), streams the answer with the system prompt and temperature, then shows what it was charged', async () => {
    const { calls, relayCalls } = setUp({ logAfter: 1 });
    await ready();
    expect(picked('令牌')).toBe('play-key');
    fireEvent.change(screen.getByRole('textbox', { name: '系统提示词' }), { target: { value: '你是一位简洁的助手' } });
    fireEvent.change(screen.getByRole('spinbutton', { name: '温度' }), { target: { value: '0.3' } });
    fireEvent.change(screen.getByRole('textbox', { name: '输入问题' }), { target: { value: 'hi' } });
    fireEvent.click(screen.getByRole('button', { name: '发送' }));
    await waitFor(() => expect(screen.getAllByLabelText('回答')[0].textContent).toBe('Hello from the mock'));
    expect(relayCalls[0].headers.authorization).toBe(`Bearer sk-${'A'.repeat(48)}`);
    expect(relayCalls[0].body).toMatchObject({
      model: 'claude-sonnet-4-5',
      temperature: 0.3,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: '你是一位简洁的助手' },
        { role: 'user', content: 'hi' },
      ],
    });
    // the cost is the log row of this request (looked up by its X-Request-Id until the ledger wrote it)
    await waitFor(() => expect(screen.getByLabelText('本次费用').textContent).toBe('费用 $0.000008 · 输入 12 tokens · 输出 10 tokens · 耗时 1.50 秒'), { timeout: 5000 });
    const lookup = new URL(calls.filter((c) => c.url.startsWith('/api/log/self/')).at(-1)!.url, 'http://x');
    expect(lookup.searchParams.get('request_id')).toBe('req-play-1');
    // the next question carries the conversation
    fireEvent.change(screen.getByRole('textbox', { name: '输入问题' }), { target: { value: 'again' } });
    fireEvent.click(screen.getByRole('button', { name: '发送' }));
    await waitFor(() => expect(relayCalls).toHaveLength(2));
    expect(relayCalls[1].body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('stop ends a streaming answer; what arrived stays and its cost is still looked up', async () => {
    const { lookups } = setUp({ endless: true });
    await ready();
    fireEvent.change(screen.getByRole('textbox', { name: '输入问题' }), { target: { value: 'tell me a long story' } });
    fireEvent.click(screen.getByRole('button', { name: '发送' }));
    await waitFor(() => expect(screen.getByLabelText('回答').textContent).toBe('Hello from'));
    fireEvent.click(screen.getByRole('button', { name: '停止' }));
    expect(await screen.findByText('已停止')).toBeTruthy();
    expect(screen.getByRole('button', { name: '发送' })).toBeTruthy();
    await waitFor(() => expect(lookups()).toBeGreaterThan(0));
  });
});
