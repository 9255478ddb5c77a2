import type { StatusObject } from '@model-relay/contract';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { createQueryClient } from './app/query-client';
import { setStoredUser, storeStatus, type StoredUser } from './lib/storage';

export const baseStatus: StatusObject = {
  version: '0.1.0', start_time: 0, system_name: 'Model Relay', logo: '', footer_html: '', quota_per_unit: 500000, display_in_currency: true,
  chat_link: '', server_address: '', top_up_link: '', turnstile_check: false, turnstile_site_key: '', email_verification: false,
  github_oauth: false, github_client_id: '', wechat_login: false, wechat_qrcode: '', lark_client_id: '',
  theme: 'default', github_authorize_url: 'https://github.com/login/oauth/authorize',
  lark_authorize_url: 'https://accounts.feishu.cn/open-apis/authen/v1/authorize',
  turnstile_script_url: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
  releases_url: 'https://api.github.com/repos/model-relay/model-relay/releases/latest',
  pricing_page: true,
};

export const users: Record<'common' | 'admin' | 'root', StoredUser> = {
  common: { id: 2, username: 'amy', display_name: 'Amy', role: 1, status: 1 },
  admin: { id: 3, username: 'boss', display_name: 'Boss', role: 10, status: 1 },
  root: { id: 1, username: 'root', display_name: 'Root User', role: 100, status: 1 },
};

/** A provider with a fresh query client (no cache shared between tests), for renderHook. */
export function queryWrapper(client: QueryClient = createQueryClient()) {
  return function QueryWrapper({ children }: { children: ReactNode }) {
    return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  };
}

/** Renders a component inside a router and a fresh query client with the given stored status and user. */
export function renderWith(ui: ReactNode, options: { status?: Partial<StatusObject>; user?: StoredUser; path?: string } = {}) {
  localStorage.clear();
  storeStatus({ ...baseStatus, ...options.status });
  setStoredUser(options.user);
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <ConfigProvider button={{ autoInsertSpace: false }}>
        <MemoryRouter initialEntries={[options.path ?? '/']}>{ui}</MemoryRouter>
      </ConfigProvider>
    </QueryClientProvider>,
  );
}

/** Replaces fetch with handlers keyed by "METHOD /path" (query ignored; a handler may answer later with a promise); records every call. */
export function mockApi(handlers: Record<string, (body: unknown, url: string) => unknown>) {
  const calls: Array<{ method: string; url: string; body: unknown }> = [];
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, url, body });
    const handler = handlers[`${method} ${url.split('?')[0]}`];
    const data = handler ? await handler(body, url) : { success: false, message: `no mock for ${method} ${url}` };
    return new Response(JSON.stringify(data), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return calls;
}

/**
 * Does `action` (e.g. a click) and waits until an element with this text appears that was not on screen before (a
 * toast left over from an earlier action does not count). It proves the action was handled, e.g. before checking that
 * it sent nothing.
 */
export async function findNewText(text: string, action: () => void): Promise<HTMLElement> {
  const earlier = screen.queryAllByText(text);
  action();
  return waitFor(() => {
    const fresh = screen.queryAllByText(text).filter((element) => !earlier.includes(element));
    if (fresh.length !== 1) throw new Error(`expected one new "${text}", found ${fresh.length}`);
    return fresh[0];
  });
}
