import { act, cleanup, screen, waitFor } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import OAuthCallbackPage, { RETRY_DELAY_MS } from './oauth-callback-page';

afterEach(() => {
  vi.useRealTimers();
  cleanup();
});

function Where() {
  const location = useLocation();
  return <div data-testid="where">{location.pathname}</div>;
}
const app = (
  <Routes>
    <Route path="/oauth/github" element={<OAuthCallbackPage />} />
    <Route path="/oauth/lark" element={<OAuthCallbackPage />} />
    <Route path="*" element={<Where />} />
  </Routes>
);
const where = () => screen.queryByTestId('where')?.textContent;

describe('OAuth callback screens', () => {
  // covers S2-OAUTH-01, S2-OAUTH-03, S2-OAUTH-04, S2-ROUTES-06, S7-API-27
  it('shows the processing message, passes code and state, stores the user and goes home', async () => {
    let release: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const urls: string[] = [];
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      urls.push(String(input));
      await answered;
      return new Response(JSON.stringify({ success: true, message: '', data: users.common }), { status: 200 });
    }) as typeof fetch;
    renderWith(app, { path: '/oauth/github?code=abc&state=xyz' });
    expect(await screen.findByText('处理中...')).toBeTruthy();
    release();
    await waitFor(() => expect(where()).toBe('/'));
    expect(urls).toEqual(['/api/oauth/github?code=abc&state=xyz']);
    expect(JSON.parse(localStorage.getItem('user')!)).toMatchObject({ username: 'amy' });
    expect(await screen.findByText('登录成功！')).toBeTruthy();
  });

  // covers S2-OAUTH-02, S8-ERRORS-25, S7-API-28
  it('"bind" means the account was linked: back to the settings with 绑定成功！', async () => {
    const calls = mockApi({ 'GET /api/oauth/lark': () => ({ success: true, message: 'bind', data: { ...users.common, lark_id: 'ou_x' } }) });
    renderWith(app, { path: '/oauth/lark?code=c1&state=s1', user: users.common });
    await waitFor(() => expect(where()).toBe('/setting'));
    expect(calls[0].url).toBe('/api/oauth/lark?code=c1&state=s1');
    expect(await screen.findByText('绑定成功！')).toBeTruthy();
  });

  // covers S2-OAUTH-05, S2-OAUTH-06
  it('a refusal shows the server message and "操作失败，重定向至登录界面中..." and leads to /setting, without retrying', async () => {
    const calls = mockApi({ 'GET /api/oauth/github': () => ({ success: false, message: '管理员关闭了新用户注册' }) });
    renderWith(app, { path: '/oauth/github?code=abc&state=xyz' });
    expect(await screen.findByText('操作失败，重定向至登录界面中...')).toBeTruthy();
    expect(await screen.findByText('管理员关闭了新用户注册')).toBeTruthy();
    await waitFor(() => expect(where()).toBe('/setting'), { timeout: 3000 });
    expect(calls).toHaveLength(1);
  });

  // covers S2-OAUTH-07, S2-OAUTH-08
  it('a call without an answer is repeated after 2000 ms x the attempt number, saying "出现错误，第 N 次重试中..."', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    let failures = 2;
    const times: number[] = [];
    let clock = 0;
    globalThis.fetch = (async () => {
      times.push(clock);
      if (failures-- > 0) throw new TypeError('Failed to fetch');
      return new Response(JSON.stringify({ success: true, message: '', data: users.common }), { status: 200 });
    }) as typeof fetch;
    renderWith(app, { path: '/oauth/github?code=abc&state=xyz' });
    await act(async () => undefined);
    expect(screen.getByText('出现错误，第 1 次重试中...')).toBeTruthy();
    await act(async () => {
      clock += RETRY_DELAY_MS - 1;
      await vi.advanceTimersByTimeAsync(RETRY_DELAY_MS - 1);
    });
    expect(times).toEqual([0]);
    await act(async () => {
      clock += 1;
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(screen.getByText('出现错误，第 2 次重试中...')).toBeTruthy();
    await act(async () => {
      clock += 2 * RETRY_DELAY_MS;
      await vi.advanceTimersByTimeAsync(2 * RETRY_DELAY_MS);
    });
    expect(times).toEqual([0, RETRY_DELAY_MS, 3 * RETRY_DELAY_MS]);
    expect(where()).toBe('/');
  });
});
