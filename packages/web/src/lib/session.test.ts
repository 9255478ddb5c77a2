import { afterEach, describe, expect, it, vi } from 'vitest';

const shown: string[] = [];
vi.mock('./toast', () => ({ toast: { error: (t: string) => shown.push(t), info: () => undefined, success: () => undefined, warning: () => undefined } }));
const { isAdmin, isRoot, loadStatus } = await import('./session');
const { getStoredStatus } = await import('./storage');

afterEach(() => {
  shown.length = 0;
  vi.restoreAllMocks();
});

describe('status and roles', () => {
  // covers S8-ERRORS-11
  it('a failing /api/status shows that the server cannot be reached', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    globalThis.fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    await loadStatus();
    expect(shown).toContain('无法正常连接至服务器！');
  });

  it('a successful /api/status is cached', async () => {
    globalThis.fetch = vi.fn(async () => new Response(JSON.stringify({ success: true, message: '', data: { system_name: 'X' } }), { status: 200 })) as typeof fetch;
    await loadStatus();
    expect(getStoredStatus()?.system_name).toBe('X');
  });

  // covers S6-ROLES-01, S6-ROLES-02, S6-ROLES-03
  it('admin means role >= 10, super admin role >= 100, and nobody is admin without a stored user', () => {
    expect(isAdmin(undefined)).toBe(false);
    expect(isAdmin({ id: 1, username: 'a', display_name: '', role: 1, status: 1 })).toBe(false);
    expect(isAdmin({ id: 1, username: 'a', display_name: '', role: 10, status: 1 })).toBe(true);
    expect(isRoot({ id: 1, username: 'a', display_name: '', role: 10, status: 1 })).toBe(false);
    expect(isRoot({ id: 1, username: 'a', display_name: '', role: 100, status: 1 })).toBe(true);
  });
});
