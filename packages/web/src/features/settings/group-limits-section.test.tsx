import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import { GROUP_LIMITS_INVALID } from './group-limits-section';
import OperationSettings from './operation-settings';

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

async function renderPage(stored: Record<string, string>) {
  const calls = mockApi({
    'GET /api/option/': () => ({ success: true, message: '', data: Object.entries(stored).map(([key, value]) => ({ key, value })) }),
    'PUT /api/option/': () => ({ success: true, message: '' }),
    'GET /api/status': () => ({ success: true, message: '', data: {} }),
  });
  renderWith(<OperationSettings />, { user: users.root, path: '/setting' });
  await screen.findByText('分组限额');
  return calls;
}
const editor = () => screen.getByRole('textbox', { name: '分组默认限额' }) as HTMLTextAreaElement;
const puts = (calls: Awaited<ReturnType<typeof renderPage>>) => calls.filter((c) => c.method === 'PUT').map((c) => c.body);

describe('分组限额 in 运营设置', () => {
  it('shows the stored limits pretty-printed ("{}" as empty) and saves valid JSON', async () => {
    const calls = await renderPage({ GroupLimits: '{"default":{"rpm":60}}' });
    expect(JSON.parse(editor().value)).toEqual({ default: { rpm: 60 } });
    expect(editor().value).toContain('\n');
    const value = '{"default":{"rpm":60,"daily":500000},"vip":{"tpm":100000}}';
    fireEvent.change(editor(), { target: { value } });
    fireEvent.click(screen.getByRole('button', { name: '保存分组限额' }));
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'GroupLimits', value }]));
  });

  it('refuses what parseGroupLimits refuses, with the Chinese message, sending nothing', async () => {
    const calls = await renderPage({ GroupLimits: '{}' });
    expect(editor().value).toBe('');
    for (const bad of ['{"default":{"rpm":-1}}', '{"default":{"burst":3}}', '[1]', '{not json']) {
      fireEvent.change(editor(), { target: { value: bad } });
      fireEvent.click(screen.getByRole('button', { name: '保存分组限额' }));
      expect(await screen.findAllByText(GROUP_LIMITS_INVALID)).not.toHaveLength(0);
    }
    expect(puts(calls)).toEqual([]);
    // emptied: saved as '{}' when it was something else
    cleanup();
    const again = await renderPage({ GroupLimits: '{"default":{"rpm":5}}' });
    fireEvent.change(editor(), { target: { value: '  ' } });
    fireEvent.click(screen.getByRole('button', { name: '保存分组限额' }));
    await waitFor(() => expect(puts(again)).toEqual([{ key: 'GroupLimits', value: '{}' }]));
  });

  it('the pricing page switch is sent at once', async () => {
    const calls = await renderPage({ PricingPageEnabled: 'true' });
    const box = screen.getByRole('checkbox', { name: /向未登录的访客公开定价页面/ }) as HTMLInputElement;
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'PricingPageEnabled', value: 'false' }]));
  });
});
