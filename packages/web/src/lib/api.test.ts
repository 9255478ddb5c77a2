import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const shown: Array<[string, string]> = [];
vi.mock('./toast', () => ({
  toast: {
    success: (t: string) => shown.push(['success', t]),
    info: (t: string) => shown.push(['info', t]),
    error: (t: string) => shown.push(['error', t]),
    warning: (t: string) => shown.push(['warning', t]),
  },
}));

const { api, setRedirect, ApiError } = await import('./api');
const { setStoredUser, getStoredUser } = await import('./storage');

function respond(status: number, body: unknown) {
  globalThis.fetch = vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })) as typeof fetch;
}

let redirected: string[] = [];
beforeEach(() => {
  shown.length = 0;
  redirected = [];
  setRedirect((path) => redirected.push(path));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe('request client error catalogue (docs/console.md §8)', () => {
  // covers S8-ERRORS-01, S8-ERRORS-02, S8-ERRORS-03
  it('401 clears the stored user and sends the visitor to /login?expired=true', async () => {
    setStoredUser({ id: 1, username: 'a', display_name: '', role: 1, status: 1 });
    respond(401, { success: false, message: '未登录' });
    await expect(api('/api/user/self')).rejects.toBeInstanceOf(ApiError);
    expect(redirected).toEqual(['/login?expired=true']);
    expect(console.error).toHaveBeenCalled();
    expect(getStoredUser()).toBeUndefined();
  });

  // covers S8-ERRORS-04
  it('429 shows the too-many-requests error', async () => {
    respond(429, {});
    await expect(api('/api/x')).rejects.toThrow();
    expect(shown).toEqual([['error', '错误：请求次数过多，请稍后再试！']]);
  });

  // covers S8-ERRORS-05
  it('500 shows the internal-error message', async () => {
    respond(500, { success: false, message: 'boom' });
    await expect(api('/api/x')).rejects.toThrow();
    expect(shown).toEqual([['error', '错误：服务器内部错误，请联系管理员！']]);
  });

  // covers S8-ERRORS-06
  it('405 shows the demo-site info message', async () => {
    respond(405, {});
    await expect(api('/api/x')).rejects.toThrow();
    expect(shown).toEqual([['info', '本站仅作演示之用，无服务端！']]);
  });

  // covers S8-ERRORS-07, S8-ERRORS-08
  it('other statuses and transport failures are prefixed with 错误：', async () => {
    respond(404, { success: false, message: '接口不存在' });
    await expect(api('/api/x')).rejects.toThrow();
    globalThis.fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    await expect(api('/api/x')).rejects.toThrow();
    expect(shown).toEqual([
      ['error', '错误：接口不存在'],
      ['error', '错误：Failed to fetch'],
    ]);
  });

  // covers S8-ERRORS-09, S7-API-01
  it('success:false shows the server message; success passes data through', async () => {
    respond(200, { success: false, message: '用户名已存在' });
    const failed = await api('/api/x', { method: 'POST', body: {} });
    expect(failed.success).toBe(false);
    respond(200, { success: true, message: '', data: [1, 2] });
    expect((await api<number[]>('/api/x')).data).toEqual([1, 2]);
    expect(shown).toEqual([['error', '用户名已存在']]);
  });

  // covers S7-API-02
  it('calls the same origin by default', async () => {
    respond(200, { success: true, message: '' });
    await api('/api/status');
    expect((globalThis.fetch as unknown as { mock: { calls: unknown[][] } }).mock.calls[0][0]).toBe('/api/status');
  });
});
