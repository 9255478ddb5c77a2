import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useUser } from '../lib/session';

/** The route guard: only checks that a user is stored; remembers where the visitor wanted to go. */
export function RequireUser({ children }: { children: ReactNode }) {
  const user = useUser();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location }} />;
  return <>{children}</>;
}
