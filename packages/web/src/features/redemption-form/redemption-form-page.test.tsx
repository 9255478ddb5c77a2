import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findNewText, mockApi, renderWith, users } from '../../test-support';
import RedemptionFormPage from './redemption-form-page';

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const page = (
  <Routes>
    <Route path="/redemption/add" element={<RedemptionFormPage />} />
    <Route path="/redemption/edit/:id" element={<RedemptionFormPage />} />
    <Route path="/redemption" element={<div>redemption list screen</div>} />
  </Routes>
);
const name = () => screen.getByPlaceholderText('请输入名称') as HTMLInputElement;
const quota = () => screen.getByRole('spinbutton', { name: '额度' }) as HTMLInputElement;
const count = () => screen.queryByRole('spinbutton', { name: '生成数量' }) as HTMLInputElement | null;
const submit = () => fireEvent.click(screen.getByRole('button', { name: '提交' }));

/** Captures what the browser would download: the file name and the text. */
function captureDownloads() {
  const files: Array<{ name: string; text: Promise<string> }> = [];
  const blobs = new Map<string, Blob>();
  let n = 0;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    const url = `blob:test/${++n}`;
    blobs.set(url, blob as Blob);
    return url;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    files.push({ name: this.download, text: blobs.get(this.getAttribute('href') ?? '')!.text() });
  });
  return files;
}

describe('redemption form', () => {
  // covers S2-REDEMPTIONFORM-01, S2-REDEMPTIONFORM-02, S2-REDEMPTIONFORM-03, S5-VALID-55, S5-VALID-56, S5-VALID-53, S5-VALID-54, S7-API-65, S7-API-66, S8-ERRORS-31, S3-ENTITY-25
  it('add: name, quota 100000 and count 1 by default; sends integers and downloads the codes as <name>.txt', async () => {
    const files = captureDownloads();
    const codes = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
    const calls = mockApi({ 'POST /api/redemption/': () => ({ success: true, message: '', data: codes }) });
    renderWith(page, { user: users.admin, path: '/redemption/add' });
    expect(screen.getByText('创建新的兑换码')).toBeTruthy();
    expect(name().value).toBe('');
    expect(quota().value).toBe('100000');
    expect(count()?.value).toBe('1');
    // The amount the quota makes, as in the token form.
    expect(screen.getByText('额度（$0.20）')).toBeTruthy();
    fireEvent.change(name(), { target: { value: ' 双十一 ' } });
    fireEvent.change(quota(), { target: { value: '250000' } });
    fireEvent.blur(quota());
    fireEvent.change(count()!, { target: { value: '3' } });
    fireEvent.blur(count()!);
    submit();
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: '双十一', quota: 250000, count: 3 }));
    expect(await screen.findByText('兑换码创建成功！已生成 3 个并下载')).toBeTruthy();
    await waitFor(() => expect(files).toHaveLength(1));
    expect(files[0].name).toBe('双十一.txt');
    expect(await files[0].text).toBe(`${codes.join('\n')}\n`);
    expect(await screen.findByText('redemption list screen')).toBeTruthy();
  });

  // covers S5-VALID-52
  it('refuses a missing name, an empty quota or count and a count over 100, in Chinese, sending nothing', async () => {
    const calls = mockApi({});
    renderWith(page, { user: users.admin, path: '/redemption/add' });
    submit();
    expect(await screen.findByText('请输入兑换码名称')).toBeTruthy();
    fireEvent.change(name(), { target: { value: 'gift' } });
    fireEvent.change(quota(), { target: { value: '' } });
    fireEvent.blur(quota());
    submit();
    expect(await screen.findByText('额度必须是正整数')).toBeTruthy();
    fireEvent.change(quota(), { target: { value: '5' } });
    fireEvent.blur(quota());
    fireEvent.change(count()!, { target: { value: '' } });
    fireEvent.blur(count()!);
    submit();
    expect(await screen.findByText('生成数量必须是 1 到 100 之间的整数')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  // covers S2-REDEMPTIONFORM-03, S7-API-64, S7-API-67, S8-ERRORS-32
  it('edit: loads the code, has no count, saves name and quota by PUT with the id', async () => {
    const calls = mockApi({
      'GET /api/redemption/7': () => ({ success: true, message: '', data: { id: 7, user_id: 1, name: 'old', key: 'k'.repeat(32), status: 1, quota: 5000, created_time: 1, redeemed_time: 0, used_user_id: 0 } }),
      'PUT /api/redemption/': () => ({ success: true, message: '', data: {} }),
    });
    renderWith(page, { user: users.admin, path: '/redemption/edit/7' });
    await waitFor(() => expect(name().value).toBe('old'));
    expect(screen.getByText('更新兑换码信息')).toBeTruthy();
    await waitFor(() => expect(quota().value).toBe('5000'));
    expect(count()).toBeNull();
    fireEvent.change(name(), { target: { value: 'new' } });
    submit();
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ id: 7, name: 'new', quota: 5000 }));
    expect(await screen.findByText('兑换码更新成功！')).toBeTruthy();
    expect(await screen.findByText('redemption list screen')).toBeTruthy();
  });

  it('a refused creation shows the server message, downloads nothing and stays on the form', async () => {
    const files = captureDownloads();
    mockApi({ 'POST /api/redemption/': () => ({ success: false, message: '无权进行此操作，权限不足' }) });
    renderWith(page, { user: users.admin, path: '/redemption/add' });
    fireEvent.change(name(), { target: { value: 'x' } });
    submit();
    expect(await screen.findByText('无权进行此操作，权限不足')).toBeTruthy();
    expect(files).toEqual([]);
    expect(screen.getByText('创建新的兑换码')).toBeTruthy();
  });

  it('a quota below 1 or a count outside 1 to 100 is refused with the server\'s own message, not changed and saved', async () => {
    const calls = mockApi({ 'POST /api/redemption/': () => ({ success: true, message: '', data: ['x'] }) });
    renderWith(page, { user: users.root, path: '/redemption/add' });
    fireEvent.change(name(), { target: { value: 'gift' } });
    for (const [field, value, message] of [
      [quota, '-100', '额度必须是正整数'],
      [count, '0', '生成数量必须是 1 到 100 之间的整数'],
      [count, '1000', '生成数量必须是 1 到 100 之间的整数'],
    ] as const) {
      fireEvent.change(quota(), { target: { value: '100000' } });
      fireEvent.change(count()!, { target: { value: '1' } });
      fireEvent.change(field()!, { target: { value } });
      fireEvent.blur(field()!);
      expect(await findNewText(message, submit)).toBeTruthy();
    }
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});
