import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import LoginPage from './login-page';

afterEach(cleanup);

function Where() {
  return <div data-testid="where">{useLocation().pathname}</div>;
}

async function logIn(user: (typeof users)[keyof typeof users]) {
  mockApi({ 'POST /api/user/login': () => ({ success: true, message: '', data: user }) });
  renderWith(
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      <Route path="*" element={<Where />} />
    </Routes>,
    { path: '/login' },
  );
  fireEvent.change(screen.getByPlaceholderText('用户名或邮箱'), { target: { value: user.username } });
  fireEvent.change(screen.getByPlaceholderText('密码'), { target: { value: 'password123' } });
  fireEvent.click(screen.getByRole('button', { name: '登录' }));
  await waitFor(() => expect(screen.getByTestId('where')).toBeTruthy());
  return screen.getByTestId('where').textContent;
}

describe('where a login lands', () => {
  // covers S2-LOGIN-15 (admins); issue 11: the dashboard is the first screen of ordinary users
  it('an ordinary user lands on the dashboard; admins on the key list', async () => {
    expect(await logIn(users.common)).toBe('/dashboard');
    cleanup();
    expect(await logIn(users.admin)).toBe('/token');
  });
});
