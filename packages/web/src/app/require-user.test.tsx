import { cleanup, fireEvent, screen } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetUserQuietly, refreshStoredUser } from '../lib/storage';
import { mockApi, renderWith, users } from '../test-support';
import { RequireUser } from './require-user';

afterEach(cleanup);

function LocationProbe() {
  const location = useLocation();
  return <p>at {location.pathname}{location.search}</p>;
}

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

  // covers S8-ERRORS-03
  it('a user forgotten because the session expired (401) is sent to /login?expired=true by the guard too', () => {
    renderWith(
      <Routes>
        <Route path="/login" element={<p>login screen</p>} />
        <Route path="/token" element={<RequireUser><p>token screen</p></RequireUser>} />
        <Route path="*" element={<LocationProbe />} />
      </Routes>,
      { user: users.common, path: '/token' },
    );
    expect(screen.getByText('token screen')).toBeTruthy();
    forgetUserQuietly({ expired: true });
    cleanup();
    renderWith(
      <Routes>
        <Route path="/login" element={<LocationProbe />} />
        <Route path="/token" element={<RequireUser><p>token screen</p></RequireUser>} />
      </Routes>,
      { path: '/token' },
    );
    expect(screen.getByText('at /login?expired=true')).toBeTruthy();
    // Once the login page has shown it, a later missing user is an ordinary visitor again.
    refreshStoredUser();
    cleanup();
    renderWith(
      <Routes>
        <Route path="/login" element={<LocationProbe />} />
        <Route path="/token" element={<RequireUser><p>token screen</p></RequireUser>} />
      </Routes>,
      { path: '/token' },
    );
    expect(screen.getByText('at /login')).toBeTruthy();
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
