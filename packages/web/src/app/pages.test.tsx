import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PageLoading } from '../components/page-loading';
import NotFoundPage from '../features/not-found/not-found-page';
import { ROUTES } from './routes';

afterEach(cleanup);

describe('routes and shared pages', () => {
  // covers S1-PRODUCT-05
  it('every page is lazy and shows "loading {page} ..." while it loads', () => {
    for (const route of ROUTES) expect(route.component.$$typeof.toString()).toBe('Symbol(react.lazy)');
    render(<PageLoading page="登录" />);
    expect(screen.getByText('正在加载登录...')).toBeTruthy();
  });

  // covers S2-ROUTES-19, S2-ROUTES-20
  it('the not-found page has the heading 页面不存在 and a hint to check the address', () => {
    render(<NotFoundPage />);
    expect(screen.getByText('页面不存在')).toBeTruthy();
    expect(screen.getByText(/浏览器地址/)).toBeTruthy();
  });

  // covers S2-ROUTES-01, S2-ROUTES-02, S2-ROUTES-03, S2-ROUTES-09, S2-ROUTES-10, S2-ROUTES-12, S2-ROUTES-13, S2-ROUTES-14, S2-ROUTES-15, S2-ROUTES-17, S2-ROUTES-18
  it('declares the routes of docs/console.md §2 with their guards', () => {
    const guard = (path: string) => ROUTES.find((r) => r.path === path);
    for (const path of ['/', '/login', '/register', '/about', '/chat']) expect(guard(path)?.guard).toBeUndefined();
    // covers S2-ROUTES-04, S2-ROUTES-05, S2-ROUTES-06: the reset and OAuth callback screens need no login
    for (const path of ['/reset', '/user/reset', '/oauth/github', '/oauth/lark']) {
      expect(guard(path), path).toBeDefined();
      expect(guard(path)?.guard, path).toBeUndefined();
    }
    // Every guarded route needs a stored user; the admin ones also show "no permission" to ordinary users.
    for (const path of ['/token', '/token/add', '/token/edit/:id', '/user/edit', '/setting', '/log', '/topup']) {
      expect(guard(path)?.guard, path).toBe('user');
    }
    for (const path of ['/channel', '/channel/add', '/channel/edit/:id', '/user', '/user/add', '/user/edit/:id', '/redemption', '/redemption/add', '/redemption/edit/:id']) {
      expect(guard(path)?.guard, path).toBe('admin');
    }
    expect(ROUTES.at(-1)?.path).toBe('*');
  });
});
