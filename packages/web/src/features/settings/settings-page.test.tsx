import { cleanup, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import SettingsPage from './settings-page';

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

const activeTab = () => document.querySelector('.ant-tabs-tab-active')?.textContent;

describe('settings tabs', () => {
  it('?tab=operation opens the operation settings for an admin (the channel list links there)', async () => {
    mockApi({ 'GET /api/option/': () => ({ success: true, message: '', data: [] }), 'GET /api/status': () => ({ success: true, message: '', data: {} }) });
    renderWith(<SettingsPage />, { user: users.root, path: '/setting?tab=operation' });
    expect(await screen.findByText('运营设置')).toBeTruthy();
    expect(activeTab()).toBe('运营设置');
  });

  it('an unknown tab, or an admin tab for an ordinary user, opens the personal settings', async () => {
    mockApi({ 'GET /api/status': () => ({ success: true, message: '', data: {} }) });
    renderWith(<SettingsPage />, { user: users.common, path: '/setting?tab=system' });
    await screen.findByText('个人设置');
    expect(activeTab()).toBe('个人设置');
    expect(screen.queryByText('系统设置')).toBeNull();
    cleanup();
    renderWith(<SettingsPage />, { user: users.root, path: '/setting?tab=nonsense' });
    await screen.findByText('系统设置');
    expect(activeTab()).toBe('个人设置');
  });
});
