import { cleanup, fireEvent, screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../test-support';
import { RequireUser } from './require-user';

afterEach(cleanup);

const app = (
  <Routes>
    <Route path="/" element={<p>home screen</p>} />
    <Route path="/login" element={<p>login screen</p>} />
    <Route path="/token" element={<RequireUser><p>token screen</p></RequireUser>} />
    <Route path="/channel" element={<RequireUser admin><p>channel screen</p></RequireUser>} />
  </Routes>
);

describe('route guard', () => {
  // covers S2-ROUTES-22
  it('a visitor without a stored user is sent to /login', () => {
    renderWith(app, { path: '/token' });
    expect(screen.getByText('login screen')).toBeTruthy();
    cleanup();
    renderWith(app, { path: '/channel' });
    expect(screen.getByText('login screen')).toBeTruthy();
  });

  it('an ordinary user opening an admin screen gets "no permission" instead of the screen, and nothing is asked of the server', () => {
    const calls = mockApi({});
    renderWith(app, { user: users.common, path: '/channel' });
    expect(screen.getByText('无权访问')).toBeTruthy();
    expect(screen.getByText('此页面仅管理员可以访问。如需使用，请联系管理员。')).toBeTruthy();
    expect(screen.queryByText('channel screen')).toBeNull();
    expect(calls).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: '返回首页' }));
    expect(screen.getByText('home screen')).toBeTruthy();
  });

  it('admins and the super admin get the admin screen; any signed-in user gets the user screens', () => {
    renderWith(app, { user: users.admin, path: '/channel' });
    expect(screen.getByText('channel screen')).toBeTruthy();
    cleanup();
    renderWith(app, { user: users.root, path: '/channel' });
    expect(screen.getByText('channel screen')).toBeTruthy();
    cleanup();
    renderWith(app, { user: users.common, path: '/token' });
    expect(screen.getByText('token screen')).toBeTruthy();
  });
});
