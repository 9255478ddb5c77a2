import { cleanup, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderWith, users } from '../test-support';
import { AppLayout } from './app-layout';

beforeAll(() => {
  // antd's responsive grid asks matchMedia; a desktop-width window by default.
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string) => ({ matches: /min-width: (\d+)px/.test(query) ? Number(/min-width: (\d+)px/.exec(query)![1]) <= window.innerWidth : false, media: query, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {}, onchange: null, dispatchEvent: () => false }),
  });
});
afterEach(cleanup);

const menuItems = () => screen.getAllByRole('menuitem').map((item) => item.textContent);

describe('top bar', () => {
  // covers S2-SHELL-01, S2-SHELL-06, S2-SHELL-07, S2-SHELL-08, S2-SHELL-09, S6-ROLES-03, S1-PRODUCT-03, S1-PRODUCT-04
  it('logged out: the common items (guarded pages send to login); login and register; default name and logo', () => {
    renderWith(<AppLayout>page</AppLayout>, { status: { system_name: '' } });
    expect(menuItems()).toEqual(['首页', '令牌', '日志', '设置', '关于']);
    expect(screen.getByRole('button', { name: '登录' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '注册' })).toBeTruthy();
    expect(screen.getByText('Model Relay')).toBeTruthy();
    expect(screen.getByAltText('logo').getAttribute('src')).toBe('/logo.png');
  });

  // covers S2-SHELL-03, S2-SHELL-05, S2-SHELL-10, S6-ROLES-10, S6-ROLES-12, S1-PRODUCT-02
  it('an ordinary user gets token and log but no admin items, and a user menu instead of login', () => {
    renderWith(<AppLayout>page</AppLayout>, { user: users.common, status: { system_name: '我的网关', logo: '/custom.png' } });
    expect(menuItems()).toEqual(['首页', '令牌', '日志', '设置', '关于']);
    expect(screen.getByRole('button', { name: '用户菜单' }).textContent).toBe('Amy');
    expect(screen.queryByRole('button', { name: '登录' })).toBeNull();
    expect(screen.getByText('我的网关')).toBeTruthy();
    expect(screen.getByAltText('logo').getAttribute('src')).toBe('/custom.png');
  });

  // covers S6-ROLES-01, S6-ROLES-02, S6-ROLES-10, S6-ROLES-12
  it('admins and the super admin also get channel and user', () => {
    renderWith(<AppLayout>page</AppLayout>, { user: users.admin });
    expect(menuItems()).toEqual(['首页', '渠道', '令牌', '用户', '日志', '设置', '关于']);
    cleanup();
    renderWith(<AppLayout>page</AppLayout>, { user: users.root });
    expect(menuItems()).toContain('用户');
  });

  // covers S2-SHELL-02
  it('chat is shown only when a chat link is configured', () => {
    renderWith(<AppLayout>page</AppLayout>, { user: users.common, status: { chat_link: 'https://chat.example.com' } });
    expect(menuItems()).toContain('聊天');
  });
});

describe('footer', () => {
  // covers S2-SHELL-12
  it('shows the configured footer HTML', () => {
    renderWith(<AppLayout>page</AppLayout>, { status: { footer_html: '<a href="https://example.com">备案号</a>' } });
    expect(screen.getByText('备案号').tagName).toBe('A');
  });
  // covers S2-SHELL-13
  it('shows a default credit line otherwise', () => {
    renderWith(<AppLayout>page</AppLayout>);
    expect(screen.getByText(/由 Model Relay 驱动/)).toBeTruthy();
  });
});
