import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../test-support';
import { AppLayout } from './app-layout';

beforeAll(() => {
  // antd's responsive grid asks matchMedia; a desktop-width window by default.
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string) => ({ matches: /min-width: (\d+)px/.test(query) ? Number(/min-width: (\d+)px/.exec(query)![1]) <= window.innerWidth : false, media: query, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {}, onchange: null, dispatchEvent: () => false }),
  });
});
afterEach(cleanup);
const account = { id: 2, username: 'amy', display_name: 'Amy', role: 1, status: 1, email: '', github_id: '', wechat_id: '', lark_id: '', quota: 500_000_000_000_000, used_quota: 1_250_000, request_count: 12345, group: 'default', aff_code: 'AAAA', inviter_id: 0 };
let calls: ReturnType<typeof mockApi>;
beforeEach(() => {
  calls = mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: account }) });
});

const menuItems = () => screen.getAllByRole('menuitem').map((item) => item.textContent);

describe('top bar', () => {
  // covers S2-SHELL-01, S2-SHELL-06, S2-SHELL-07, S2-SHELL-08, S2-SHELL-09, S6-ROLES-03, S1-PRODUCT-03, S1-PRODUCT-04
  it('logged out: the common items (guarded pages send to login); login and register; default name and logo', () => {
    renderWith(<AppLayout>page</AppLayout>, { status: { system_name: '' } });
    expect(menuItems()).toEqual(['首页', '仪表盘', '操练场', '令牌', '充值', '日志', '设置', '定价', '关于']);
    expect(screen.getByRole('button', { name: '登录' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '注册' })).toBeTruthy();
    expect(screen.getByText('Model Relay')).toBeTruthy();
    expect(document.title).toBe('Model Relay');
    expect(screen.getByAltText('logo').getAttribute('src')).toBe('/logo.png');
  });

  // covers S2-SHELL-03, S2-SHELL-04, S2-SHELL-05, S2-SHELL-10, S6-ROLES-10, S6-ROLES-12, S1-PRODUCT-02
  it('an ordinary user gets token, top-up and log but no admin items, and a user menu instead of login', () => {
    renderWith(<AppLayout>page</AppLayout>, { user: users.common, status: { system_name: '我的网关', logo: '/custom.png' } });
    expect(menuItems()).toEqual(['首页', '仪表盘', '操练场', '令牌', '充值', '日志', '设置', '定价', '关于']);
    expect(screen.getByRole('button', { name: '用户菜单' }).textContent).toBe('Amy');
    expect(screen.queryByRole('button', { name: '登录' })).toBeNull();
    expect(screen.getByText('我的网关')).toBeTruthy();
    // The browser tab says it too.
    expect(document.title).toBe('我的网关');
    expect(screen.getByAltText('logo').getAttribute('src')).toBe('/custom.png');
  });

  // covers S6-ROLES-01, S6-ROLES-02, S6-ROLES-10, S6-ROLES-11, S6-ROLES-12
  it('admins and the super admin also get channel, redemption and user', () => {
    renderWith(<AppLayout>page</AppLayout>, { user: users.admin });
    expect(menuItems()).toEqual(['首页', '仪表盘', '渠道', '操练场', '令牌', '兑换', '充值', '用户', '日志', '设置', '定价', '关于']);
    cleanup();
    renderWith(<AppLayout>page</AppLayout>, { user: users.root });
    expect(menuItems()).toContain('用户');
    expect(menuItems()).toContain('兑换');
  });

  it('定价 is offered to visitors only while the pricing page is open to them; signed-in users always see it', () => {
    renderWith(<AppLayout>page</AppLayout>, { status: { pricing_page: false } });
    expect(menuItems()).not.toContain('定价');
    cleanup();
    renderWith(<AppLayout>page</AppLayout>, { user: users.common, status: { pricing_page: false } });
    expect(menuItems()).toContain('定价');
  });

  it('highlights the screen\'s own entry by exact route: /login is not 日志, /user/reset is not 用户', () => {
    const highlighted = () => [...document.querySelectorAll('.ant-menu-item-selected')].map((item) => item.textContent);
    for (const [path, expected] of [
      ['/login', []],
      ['/user/reset', []],
      ['/logs-are-not-here', []],
      ['/log', ['日志']],
      ['/token/edit/3', ['令牌']],
      ['/user/edit/7', ['用户']],
      ['/redemption/add', ['兑换']],
      ['/user/edit', ['设置']],
      ['/', ['首页']],
      ['/dashboard', ['仪表盘']],
      ['/playground', ['操练场']],
      ['/pricing', ['定价']],
    ] as const) {
      renderWith(<AppLayout>page</AppLayout>, { user: users.admin, path });
      expect(highlighted(), path).toEqual(expected);
      cleanup();
    }
  });

  it('every signed-in screen shows the own balance (thousands separators), and the user menu the used quota and request count', async () => {
    renderWith(<AppLayout>page</AppLayout>, { user: users.common });
    const balance = await screen.findByRole('link', { name: '账户余额' });
    expect(balance.textContent).toBe('$1,000,000,000.00');
    expect(balance.getAttribute('href')).toBe('/topup');
    fireEvent.click(screen.getByRole('button', { name: '用户菜单' }));
    const stats = await screen.findByLabelText('账户统计');
    expect(stats.textContent).toBe('剩余额度：$1,000,000,000.00已用额度：$2.50请求次数：12,345');
    const menu = stats.closest('.ant-dropdown-menu') as HTMLElement;
    expect(within(menu).getAllByRole('menuitem').map((item) => item.textContent).slice(1)).toEqual(['充值', '个人设置', '注销']);
    expect(calls.filter((c) => c.url === '/api/user/self')).toHaveLength(1);
  });

  // covers S2-SHELL-11
  it('on a mobile-width window the bar collapses into a menu button that opens a drawer with the items and the account', async () => {
    const width = window.innerWidth;
    Object.defineProperty(window, 'innerWidth', { configurable: true, value: 500 });
    try {
      renderWith(<AppLayout>page</AppLayout>, { user: users.common });
      expect(screen.queryByRole('menu')).toBeNull();
      fireEvent.click(screen.getByRole('button', { name: '打开菜单' }));
      const drawer = (await screen.findByRole('dialog')) as HTMLElement;
      expect(within(drawer).getAllByRole('menuitem').map((item) => item.textContent)).toEqual(['首页', '仪表盘', '操练场', '令牌', '充值', '日志', '设置', '定价', '关于']);
      expect(within(drawer).getByRole('button', { name: '用户菜单' })).toBeTruthy();
      expect((await within(drawer).findByRole('link', { name: '账户余额' })).textContent).toBe('$1,000,000,000.00');
    } finally {
      Object.defineProperty(window, 'innerWidth', { configurable: true, value: width });
    }
  });

  it('a visitor\'s bar asks for no account', async () => {
    renderWith(<AppLayout>page</AppLayout>);
    await waitFor(() => expect(screen.getByRole('button', { name: '登录' })).toBeTruthy());
    expect(screen.queryByRole('link', { name: '账户余额' })).toBeNull();
    expect(calls).toEqual([]);
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
