import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import OperationSettings from './operation-settings';

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

describe('operation settings', () => {
  // covers S8-ERRORS-10, S8-ERRORS-21, S7-API-34
  it('clearing history sends DELETE /api/log/?target_timestamp={seconds}; shows the count, or "日志清理失败：{message}"', async () => {
    let answer: object = { success: true, message: '', data: 3 };
    const calls = mockApi({ 'GET /api/option/': () => ({ success: true, message: '', data: [] }), 'DELETE /api/log/': () => answer });
    renderWith(<OperationSettings />, { user: users.root, path: '/setting' });
    const button = await screen.findByRole('button', { name: '清除历史日志' });
    fireEvent.click(button);
    expect(await screen.findByText('3 条日志已清理！')).toBeTruthy();
    const deletes = () => calls.filter((c) => c.method === 'DELETE');
    const target = Number(new URL(deletes()[0].url, 'http://x').searchParams.get('target_timestamp'));
    expect(deletes()[0].url).toBe(`/api/log/?target_timestamp=${target}`);
    expect(Math.abs(target - (Math.floor(Date.now() / 1000) - 30 * 86400))).toBeLessThan(5);
    answer = { success: false, message: '数据库繁忙' };
    fireEvent.click(button);
    const failure = await screen.findByText('日志清理失败：数据库繁忙');
    expect(failure).toBeTruthy();
    expect(within(document.body).getAllByText(/数据库繁忙/)).toHaveLength(1);
    expect(deletes()).toHaveLength(2);
  });
});
