import { Button, Result } from 'antd';
import type { ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { isAdmin, useUser } from '../lib/session';
import { isSessionExpired } from '../lib/storage';

/**
 * The route guard: a visitor without a stored user goes to /login, which remembers where they wanted to go
 * (docs/console.md §2). An admin screen opened by an ordinary user shows "no permission" instead of the screen
 * and the server's refusal toasts; the server enforces the permission either way (this check is display only).
 */
export function RequireUser({ children, admin = false }: { children: ReactNode; admin?: boolean }) {
  const user = useUser();
  const location = useLocation();
  const navigate = useNavigate();
  if (!user) return <Navigate to={isSessionExpired() ? '/login?expired=true' : '/login'} replace state={{ from: location }} />;
  if (admin && !isAdmin(user)) {
    return (
      <Result
        status="403"
        title="无权访问"
        subTitle="此页面仅管理员可以访问。如需使用，请联系管理员。"
        extra={
          <Button type="primary" onClick={() => navigate('/')}>
            返回首页
          </Button>
        }
      />
    );
  }
  return <>{children}</>;
}
