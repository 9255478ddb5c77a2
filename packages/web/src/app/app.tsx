import { QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider, message } from 'antd';
import zhCN from 'antd/locale/zh_CN';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { Suspense, useEffect, useRef } from 'react';
import { BrowserRouter, Route, Routes, useNavigate } from 'react-router';
import { PageLoading } from '../components/page-loading';
import { setRedirect } from '../lib/api';
import { NoticeDialog } from '../components/notice-dialog';
import { loadStatus, useUser } from '../lib/session';
import { isDarkTheme, useConsoleTheme } from '../lib/theme';
import { AppLayout } from './app-layout';
import { createQueryClient } from './query-client';
import { RequireUser } from './require-user';
import { ROUTES } from './routes';

dayjs.locale('zh-cn');
// Toasts sit top-center (antd's message placement), just below the 64 px header: over it they covered the top
// menu, and a pointer resting on a toast pauses its timer, so the menu item under it stayed unreachable. Keep a few.
message.config({ top: 72, maxCount: 3 });

/**
 * The theme of toasts and notices (rendered outside the app's tree). The holder is configured once and follows the
 * theme itself: configuring a new holder when the theme changes re-created it, and a toast shown in that moment (保存成功
 * right after choosing a dark theme) was lost with the old one.
 */
function ToastTheme({ children }: { children: React.ReactNode }) {
  const { config: theme } = useConsoleTheme();
  return (
    <ConfigProvider locale={zhCN} theme={theme}>
      {children}
    </ConfigProvider>
  );
}
ConfigProvider.config({ holderRender: (children) => <ToastTheme>{children}</ToastTheme> });

/** Lets the request client navigate inside the SPA (401 -> /login?expired=true) without a reload. */
function RouterBridge() {
  const navigate = useNavigate();
  useEffect(() => setRedirect((path) => navigate(path)), [navigate]);
  return null;
}

/** Another user signing in (or signing out) must never see what was cached for the previous one. */
function ForgetCacheOnUserChange() {
  const client = useQueryClient();
  const userId = useUser()?.id;
  const previous = useRef(userId);
  useEffect(() => {
    if (previous.current !== userId) client.clear();
    previous.current = userId;
  }, [client, userId]);
  return null;
}

const queryClient = createQueryClient();

export function App() {
  useEffect(() => {
    void loadStatus();
  }, []);
  // The Theme option applies to everyone; toasts (rendered outside this tree) follow it too.
  const { name: themeName, config: theme } = useConsoleTheme();
  useEffect(() => {
    document.documentElement.dataset.theme = themeName || 'default';
    document.documentElement.style.colorScheme = isDarkTheme(themeName) ? 'dark' : 'light';
  }, [themeName]);
  return (
    <QueryClientProvider client={queryClient}>
      <ConfigProvider locale={zhCN} button={{ autoInsertSpace: false }} theme={theme}>
        <AntApp>
          <NoticeDialog />
          <BrowserRouter>
            <RouterBridge />
            <ForgetCacheOnUserChange />
            <AppLayout>
              <Routes>
                {ROUTES.map(({ path, page, component: Page, guard }) => {
                  const element = (
                    <Suspense fallback={<PageLoading page={page} />}>
                      <Page />
                    </Suspense>
                  );
                  return <Route key={path} path={path} element={guard ? <RequireUser admin={guard === 'admin'}>{element}</RequireUser> : element} />;
                })}
              </Routes>
            </AppLayout>
          </BrowserRouter>
        </AntApp>
      </ConfigProvider>
    </QueryClientProvider>
  );
}
