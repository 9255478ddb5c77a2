import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseStatus, renderWith, users } from '../../test-support';
import OtherSettings from './other-settings';

/** The releases address the server hands out in the status object (RELEASES_URL). */
const RELEASES_URL = baseStatus.releases_url;

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

function mockFetch() {
  const urls: string[] = [];
  globalThis.fetch = (async (input: RequestInfo | URL) => {
    const url = String(input);
    urls.push(url);
    const body =
      url === RELEASES_URL
        ? { tag_name: 'v9.9.9', body: '## 新功能\n- 更快', html_url: 'https://example.com/release' }
        : { success: true, message: '', data: [{ key: 'SystemName', value: 'Model Relay' }, { key: 'Theme', value: 'default' }] };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return urls;
}

describe('other settings', () => {
  // covers S2-SETTINGS-OTHER-01, S2-SETTINGS-OTHER-02, S2-SETTINGS-OTHER-03, S2-SETTINGS-OTHER-04, S2-SETTINGS-OTHER-05, S2-SETTINGS-OTHER-06, S2-SETTINGS-OTHER-07, S2-SETTINGS-OTHER-08
  it('has the update check, notice, system name, theme, logo, home page, about and footer', async () => {
    mockFetch();
    renderWith(<OtherSettings />, { user: users.root, path: '/setting' });
    await screen.findByRole('button', { name: '检查更新' });
    for (const label of ['公告', '系统名称', '主题名称', 'Logo 图片地址', '首页内容', '关于', '页脚']) expect(screen.getAllByText(label).length, label).toBeGreaterThan(0);
  });

  // covers S7-API-40, S7-API-41, S7-API-42
  it('the update check reads the latest release and shows it in a 新版本 dialog with close and details', async () => {
    const urls = mockFetch();
    renderWith(<OtherSettings />, { user: users.root, path: '/setting' });
    fireEvent.click(await screen.findByRole('button', { name: '检查更新' }));
    await waitFor(() => expect(screen.getByText('新版本')).toBeTruthy());
    expect(urls).toContain(RELEASES_URL);
    expect(screen.getByText('v9.9.9')).toBeTruthy();
    expect(document.querySelector('.rich-content')?.textContent).toContain('新功能');
    expect(screen.getByRole('button', { name: '关闭' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '详情' })).toBeTruthy();
  });

  it('the update check reads the releases address the server gives, and says so when none is configured', async () => {
    const urls = mockFetch();
    renderWith(<OtherSettings />, { user: users.root, path: '/setting', status: { releases_url: '' } });
    fireEvent.click(await screen.findByRole('button', { name: '检查更新' }));
    expect(await screen.findByText('管理员未配置更新检查地址（RELEASES_URL）')).toBeTruthy();
    expect(urls.filter((u) => u.includes('releases'))).toEqual([]);
  });

  // covers S2-SETTINGS-OTHER-04
  it('offers the themes, the dark one included', async () => {
    mockFetch();
    renderWith(<OtherSettings />, { user: users.root, path: '/setting' });
    fireEvent.mouseDown(await screen.findByRole('combobox', { name: '主题名称' }));
    for (const label of ['默认（浅色）', '深色', 'berry（紫色）', 'air（紧凑）']) expect(await screen.findByText(label, { selector: '.ant-select-item-option-content' })).toBeTruthy();
  });
});
