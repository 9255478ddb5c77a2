import type { LogDto } from '@model-relay/contract';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import LogsPage from './logs-page';

const base: LogDto = {
  id: 1, user_id: 2, created_at: 1_700_000_000, type: 2, content: '模型倍率 2.5，补全倍率 4', username: 'amy', token_name: 'shop-key', model_name: 'claude-sonnet-4-5',
  quota: 420, prompt_tokens: 1200, completion_tokens: 300, channel: 7, request_id: 'req-ok-1', elapsed_time: 2345, is_stream: true, first_byte_ms: 412,
  channel_name: 'anthropic-main', dialect: 'anthropic', cached_tokens: 800, cache_write_tokens: 100, reasoning_tokens: 64, error: '', attempts: [], routing: null,
};
const failed: LogDto = {
  ...base, id: 2, type: 5, quota: 0, content: '', token_name: 'broken-key', request_id: 'req-bad-2', prompt_tokens: 0, completion_tokens: 0, is_stream: false, first_byte_ms: 0, elapsed_time: 87,
  cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, dialect: 'openai-chat', error: '所有渠道均失败：上游返回 503',
  attempts: [
    { channel_id: 7, channel_name: 'anthropic-main', status: 429, reason: 'Rate limit reached' },
    { channel_id: 9, channel_name: 'backup', status: 0, reason: 'connect ECONNREFUSED' },
  ],
};

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

/** Opens a row's detail by its expand button. */
async function expand(token: string) {
  const row = (await screen.findByText(token)).closest('tr') as HTMLElement;
  fireEvent.click(within(row).getByRole('button', { name: /展开行|expand/i }));
  return waitFor(() => {
    const detail = document.querySelector(`[aria-label="请求详情"]`) as HTMLElement;
    expect(detail).toBeTruthy();
    return detail;
  });
}
const valueOf = (detail: HTMLElement, label: string) => {
  const cell = [...detail.querySelectorAll('.ant-descriptions-item-label')].find((el) => el.textContent === label);
  return cell?.nextElementSibling?.textContent;
};

describe('request detail in the log screen', () => {
  it('a consumed request opens to its latency, first byte, stream flag, channel, dialect and every kind of token', async () => {
    mockApi({ 'GET /api/log/': () => ({ success: true, message: '', data: [base, failed] }) });
    renderWith(<LogsPage />, { user: users.admin, path: '/log' });
    const detail = await expand('shop-key');
    expect(valueOf(detail, '总耗时')).toBe('2.35 秒');
    expect(valueOf(detail, '首字时间')).toBe('412 毫秒');
    expect(valueOf(detail, '流式')).toBe('是');
    expect(valueOf(detail, '渠道')).toBe('#7 anthropic-main');
    expect(valueOf(detail, '接口格式')).toBe('Anthropic Messages');
    expect(valueOf(detail, '缓存读取 tokens')).toBe('800');
    expect(valueOf(detail, '缓存写入 tokens')).toBe('100');
    expect(valueOf(detail, '推理 tokens')).toBe('64');
    expect(valueOf(detail, '请求 ID')).toBe('req-ok-1');
    expect(within(detail).queryByText('请求失败，未扣费')).toBeNull();
  });

  it('a failed request (type 5) shows its error and each channel tried with why it was left', async () => {
    mockApi({ 'GET /api/log/': () => ({ success: true, message: '', data: [failed] }) });
    renderWith(<LogsPage />, { user: users.admin, path: '/log' });
    const detail = await expand('broken-key');
    expect(within(detail).getByText('请求失败，未扣费')).toBeTruthy();
    expect(within(detail).getByText('所有渠道均失败：上游返回 503')).toBeTruthy();
    expect(within(detail).getByText('尝试记录（共 2 次）')).toBeTruthy();
    const rows = [...detail.querySelectorAll('.ant-table-tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    expect(rows).toEqual([
      ['1', '#7 anthropic-main', 'HTTP 429', 'Rate limit reached'],
      ['2', '#9 backup', '未连接', 'connect ECONNREFUSED'],
    ]);
    expect(valueOf(detail, '首字时间')).toBe('—');
    // a request that took less than a second reads in milliseconds, not "0.00 秒"
    expect(valueOf(detail, '总耗时')).toBe("87 毫秒");
  });

  it('users see their own failures and reasons, without the channel columns', async () => {
    const own = { ...failed, channel: 0, channel_name: '', attempts: failed.attempts.map((a) => ({ ...a, channel_id: 0, channel_name: '' })) };
    mockApi({ 'GET /api/log/self/': () => ({ success: true, message: '', data: [own] }) });
    renderWith(<LogsPage />, { user: users.common, path: '/log' });
    const detail = await expand('broken-key');
    expect(valueOf(detail, '渠道')).toBeUndefined();
    const rows = [...detail.querySelectorAll('.ant-table-tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    expect(rows).toEqual([
      ['1', 'HTTP 429', 'Rate limit reached'],
      ['2', '未连接', 'connect ECONNREFUSED'],
    ]);
  });

  // covers issue 15 items 3 and 4: the request detail says whether affinity chose the channel, and the fallback chain
  it('a request routed by session affinity through a fallback model says so', async () => {
    const routed: LogDto = { ...base, id: 3, token_name: 'agent-key', model_name: 'gpt-4o-mini', routing: { affinity: true, requested_model: 'gpt-4o', models: ['gpt-4o', 'gpt-4o-mini'] } };
    mockApi({ 'GET /api/log/': () => ({ success: true, message: '', data: [routed] }) });
    renderWith(<LogsPage />, { user: users.admin, path: '/log' });
    const detail = await expand('agent-key');
    expect(valueOf(detail, '会话粘性')).toBe('是：沿用该会话上次应答的渠道');
    expect(valueOf(detail, '模型回退')).toBe('gpt-4o → gpt-4o-mini（请求的模型为 gpt-4o，由 gpt-4o-mini 应答并计费）');
  });
});
