import { GROUP_MODEL_FALLBACKS_INVALID, MODEL_FALLBACKS_INVALID } from '@model-relay/contract';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
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
  await screen.findByText('会话粘性与模型回退');
  return calls;
}
const box = (name: string) => screen.getByRole('textbox', { name }) as HTMLTextAreaElement;
const puts = (calls: Awaited<ReturnType<typeof renderPage>>) => calls.filter((c) => c.method === 'PUT').map((c) => c.body);
const save = () => fireEvent.click(screen.getByRole('button', { name: '保存会话粘性与模型回退' }));

// covers issue 15 items 3 and 4: the admin sets the affinity time and the fallback models in 运营设置
describe('会话粘性与模型回退 in 运营设置', () => {
  it('saves fallbacks and the session header; refuses lists that are not model arrays', async () => {
    const calls = await renderPage({ SessionAffinityMinutes: '60', ModelFallbacks: '{}', GroupModelFallbacks: '{}' });
    for (const [name, bad, message] of [
      ['模型回退', '{"gpt-4o": "gpt-4o-mini"}', MODEL_FALLBACKS_INVALID],
      ['分组模型回退', '{"vip": ["x"]}', GROUP_MODEL_FALLBACKS_INVALID],
    ]) {
      fireEvent.change(box(name), { target: { value: bad } });
      save();
      expect(await screen.findAllByText(message)).not.toHaveLength(0);
      fireEvent.change(box(name), { target: { value: '' } });
    }
    expect(puts(calls)).toEqual([]);
    const value = '{"gpt-4o": ["gpt-4o-mini", "claude-sonnet-4-5"]}';
    fireEvent.change(box('模型回退'), { target: { value } });
    fireEvent.change(box('会话请求头（可选）'), { target: { value: 'x-session-id' } });
    save();
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'SessionAffinityHeader', value: 'x-session-id' }, { key: 'ModelFallbacks', value }]));
  });
});
