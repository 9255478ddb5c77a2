import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { mockApi, renderWith } from '../../test-support';
import ResetConfirmPage from './reset-confirm-page';

afterEach(cleanup);

describe('reset confirm screen (/user/reset)', () => {
  // covers S2-RESET-05, S2-RESET-06, S2-RESET-07, S2-ROUTES-05, S7-API-23
  it('shows the e-mail read-only; submitting reveals the new password and copies it', async () => {
    const copied: string[] = [];
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void copied.push(text) } });
    const calls = mockApi({ 'POST /api/user/reset': () => ({ success: true, message: '', data: 'N3wPassw0rdX' }) });
    renderWith(<ResetConfirmPage />, { path: '/user/reset?email=amy%40example.com&token=abc123' });
    const email = screen.getByRole('textbox', { name: '邮箱地址' }) as HTMLInputElement;
    expect(email.value).toBe('amy@example.com');
    expect(email.readOnly).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].body).toEqual({ email: 'amy@example.com', token: 'abc123' });
    await waitFor(() => expect((screen.getByRole('textbox', { name: '新密码' }) as HTMLInputElement).value).toBe('N3wPassw0rdX'));
    expect(copied).toEqual(['N3wPassw0rdX']);
    expect(await screen.findByText('密码已重置，新密码已复制到剪贴板：N3wPassw0rdX')).toBeTruthy();
  });

  it('a link without e-mail or token says it is invalid and sends nothing', () => {
    const calls = mockApi({});
    renderWith(<ResetConfirmPage />, { path: '/user/reset?email=amy%40example.com' });
    expect(screen.getByText('重置链接无效，请重新申请密码重置')).toBeTruthy();
    expect((screen.getByRole('button', { name: '提交' }) as HTMLButtonElement).disabled).toBe(true);
    expect(calls).toEqual([]);
  });
});
