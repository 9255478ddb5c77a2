import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { matchPath } from 'react-router';

/**
 * The one table of screens (docs/console.md §2): path, page name (for the loading text), guard, and the top-bar
 * menu entry if any. Adding a screen = a feature folder + one line here.
 */
export interface AppRoute {
  path: string;
  page: string;
  component: LazyExoticComponent<ComponentType>;
  /**
   * 'user' needs a stored user (the guard only checks that, docs/console.md §6); 'admin' also shows a "no
   * permission" screen to ordinary users instead of an admin screen the server would refuse anyway.
   */
  guard?: 'user' | 'admin';
  menu?: { key: string; label: string; order: number; admin?: boolean; needsChatLink?: boolean; needsPricingPage?: boolean };
  /** The menu entry highlighted while this screen is open, for screens without one of their own. */
  section?: string;
}

const page = (load: () => Promise<{ default: ComponentType }>) => lazy(load);

export const ROUTES: AppRoute[] = [
  { path: '/', page: '首页', component: page(() => import('../features/home/home-page')), menu: { key: '/', label: '首页', order: 0 } },
  { path: '/login', page: '登录', component: page(() => import('../features/login/login-page')) },
  { path: '/register', page: '注册', component: page(() => import('../features/register/register-page')) },
  { path: '/reset', page: '密码重置', component: page(() => import('../features/reset-request/reset-request-page')) },
  { path: '/user/reset', page: '密码重置确认', component: page(() => import('../features/reset-confirm/reset-confirm-page')) },
  { path: '/oauth/github', page: 'GitHub 登录', component: page(() => import('../features/oauth-callback/oauth-callback-page')) },
  { path: '/oauth/lark', page: '飞书登录', component: page(() => import('../features/oauth-callback/oauth-callback-page')) },
  { path: '/dashboard', page: '仪表盘', component: page(() => import('../features/dashboard/dashboard-page')), guard: 'user', menu: { key: '/dashboard', label: '仪表盘', order: 0.5 } },
  { path: '/channel', page: '渠道', component: page(() => import('../features/channels/channels-page')), guard: 'admin', menu: { key: '/channel', label: '渠道', order: 1, admin: true } },
  { path: '/channel/add', page: '添加渠道', component: page(() => import('../features/channel-form/channel-form-page')), guard: 'admin', section: '/channel' },
  { path: '/channel/edit/:id', page: '编辑渠道', component: page(() => import('../features/channel-form/channel-form-page')), guard: 'admin', section: '/channel' },
  { path: '/token', page: '令牌', component: page(() => import('../features/tokens/tokens-page')), guard: 'user', menu: { key: '/token', label: '令牌', order: 3 } },
  { path: '/token/add', page: '添加令牌', component: page(() => import('../features/token-form/token-form-page')), guard: 'user', section: '/token' },
  { path: '/token/edit/:id', page: '编辑令牌', component: page(() => import('../features/token-form/token-form-page')), guard: 'user', section: '/token' },
  { path: '/redemption', page: '兑换码', component: page(() => import('../features/redemptions/redemptions-page')), guard: 'admin', menu: { key: '/redemption', label: '兑换', order: 4, admin: true } },
  { path: '/redemption/add', page: '添加兑换码', component: page(() => import('../features/redemption-form/redemption-form-page')), guard: 'admin', section: '/redemption' },
  { path: '/redemption/edit/:id', page: '编辑兑换码', component: page(() => import('../features/redemption-form/redemption-form-page')), guard: 'admin', section: '/redemption' },
  { path: '/topup', page: '充值', component: page(() => import('../features/topup/topup-page')), guard: 'user', menu: { key: '/topup', label: '充值', order: 5 } },
  { path: '/user', page: '用户管理', component: page(() => import('../features/users/users-page')), guard: 'admin', menu: { key: '/user', label: '用户', order: 6, admin: true } },
  { path: '/user/add', page: '添加用户', component: page(() => import('../features/user-create/user-create-page')), guard: 'admin', section: '/user' },
  { path: '/user/edit/:id', page: '编辑用户', component: page(() => import('../features/user-edit/user-edit-page')), guard: 'admin', section: '/user' },
  { path: '/user/edit', page: '编辑个人信息', component: page(() => import('../features/user-edit/user-edit-page')), guard: 'user', section: '/setting' },
  { path: '/log', page: '日志', component: page(() => import('../features/logs/logs-page')), guard: 'user', menu: { key: '/log', label: '日志', order: 7 } },
  { path: '/setting', page: '设置', component: page(() => import('../features/settings/settings-page')), guard: 'user', menu: { key: '/setting', label: '设置', order: 8 } },
  { path: '/chat', page: '聊天', component: page(() => import('../features/chat/chat-page')), menu: { key: '/chat', label: '聊天', order: 2, needsChatLink: true } },
  { path: '/playground', page: '操练场', component: page(() => import('../features/playground/playground-page')), guard: 'user', menu: { key: '/playground', label: '操练场', order: 2.5 } },
  { path: '/pricing', page: '定价', component: page(() => import('../features/pricing/pricing-page')), menu: { key: '/pricing', label: '定价', order: 8.5, needsPricingPage: true } },
  { path: '/about', page: '关于', component: page(() => import('../features/about/about-page')), menu: { key: '/about', label: '关于', order: 9 } },
  { path: '*', page: '页面', component: page(() => import('../features/not-found/not-found-page')) },
];

/**
 * The menu entry to highlight for a location: the one of the screen the path opens (exact route match), so
 * /login never lights up 日志 and /user/reset never lights up 用户. Unknown paths highlight nothing.
 */
export function menuKeyOf(pathname: string, routes: AppRoute[] = ROUTES): string | undefined {
  const route = routes.find((r) => r.path !== '*' && matchPath({ path: r.path, end: true }, pathname));
  return route?.menu?.key ?? route?.section;
}
