import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockApi, renderWith } from '../../test-support';
import ResetRequestPage from './reset-request-page';

afterEach(() => {
  vi.useRealTimers();
  delete window.turnstile;
  cleanup();
});

/** A stand-in for the loaded widget script: renders nothing, hands out the token when the test says so. */
function fakeTurnstile() {
  let callback: (token: string) => void = () => undefined;
  window.turnstile = {
    render: (_el, options) => {
      callback = options.callback;
      return 'w1';
    },
  };
  return { solve: (token: string) => act(() => callback(token)) };
}

describe('reset request screen (/reset)', () => {
  // covers S2-RESET-01, S2-RESET-03, S5-VALID-59, S2-ROUTES-04
  it('has an e-mail input and a submit button; without an address nothing is sent', async () => {
    const calls = mockApi({});
    renderWith(<ResetRequestPage />, { path: '/reset' });
    expect(screen.getByPlaceholderText('邮箱地址')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    expect(await screen.findByText('请输入邮箱地址')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  // covers S2-RESET-04, S7-API-22, S8-ERRORS-24
  it('sends GET /api/reset_password, says the mail is sent, and keeps the button disabled for 30 seconds', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const calls = mockApi({ 'GET /api/reset_password': () => ({ success: true, message: '' }) });
    renderWith(<ResetRequestPage />, { path: '/reset' });
    fireEvent.change(screen.getByPlaceholderText('邮箱地址'), { target: { value: 'amy@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    // (testing-library's waitFor cannot run on fake timers: let the form and the request settle by hand)
    for (let i = 0; i < 5; i++) await act(async () => vi.advanceTimersByTimeAsync(0));
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe('/api/reset_password?email=amy%40example.com&turnstile=');
    expect(screen.getByText('重置邮件发送成功，请检查邮箱！')).toBeTruthy();
    const button = () => screen.getByRole('button', { name: /重试|提交/ });
    expect(button().textContent).toBe('重试 (30)');
    expect((button() as HTMLButtonElement).disabled).toBe(true);
    // each second re-renders and schedules the next tick
    for (let s = 0; s < 29; s++) await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(button().textContent).toBe('重试 (1)');
    expect((button() as HTMLButtonElement).disabled).toBe(true);
    await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(button().textContent).toBe('提交');
    expect((button() as HTMLButtonElement).disabled).toBe(false);
  });

  // covers S2-RESET-02, S5-VALID-60
  it('with the bot-check on shows the widget; before it passes, submitting warns and sends nothing', async () => {
    const widget = fakeTurnstile();
    const calls = mockApi({ 'GET /api/reset_password': () => ({ success: true, message: '' }) });
    renderWith(<ResetRequestPage />, { path: '/reset', status: { turnstile_check: true, turnstile_site_key: 'site-key' } });
    await waitFor(() => expect(document.querySelector('.turnstile')).not.toBeNull());
    fireEvent.change(screen.getByPlaceholderText('邮箱地址'), { target: { value: 'amy@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    expect(await screen.findByText('请稍后几秒重试，Turnstile 正在检查用户环境！')).toBeTruthy();
    expect(calls).toEqual([]);
    await widget.solve('tok-1');
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].url).toBe('/api/reset_password?email=amy%40example.com&turnstile=tok-1');
  });
});
