import type { ApiEnvelope } from '@model-relay/contract';
import { forgetUserQuietly } from './storage';
import { toast } from './toast';

/** Base URL of the server: a build-time setting, empty by default (same origin). */
export const API_BASE: string = import.meta.env.VITE_SERVER_URL ?? '';

/** Where a 401 sends the visitor. Replaced in tests. */
export let redirectTo = (path: string) => {
  window.location.href = path;
};
export function setRedirect(fn: (path: string) => void): void {
  redirectTo = fn;
}

/** An HTTP or transport failure, already shown to the user. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * The error catalogue of docs/console.md §8 for HTTP failures: 401 -> /login?expired=true; 429, 500 and other
 * statuses as error toasts; 405 as an info message.
 */
export function showHttpError(status: number, serverMessage?: string): void {
  if (status === 401) {
    forgetUserQuietly({ expired: true });
    redirectTo('/login?expired=true');
    return;
  }
  if (status === 429) toast.error('错误：请求次数过多，请稍后再试！');
  else if (status === 500) toast.error('错误：服务器内部错误，请联系管理员！');
  else if (status === 405) toast.info('本站仅作演示之用，无服务端！');
  else toast.error(`错误：${serverMessage || `HTTP ${status}`}`);
}

/** The server answered `success:false`: a refusal with its own message (shown unless quiet). */
export class ApiRefusal extends ApiError {}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /** Do not toast `success:false` messages (the caller shows its own). */
  quiet?: boolean;
}

/**
 * Calls the server and returns the envelope. HTTP failures and transport errors are shown per the error
 * catalogue and thrown as ApiError; `success:false` is shown as an error toast (unless quiet) and returned.
 */
export async function api<T = unknown>(path: string, options: RequestOptions = {}): Promise<ApiEnvelope<T>> {
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method: options.method ?? 'GET',
      credentials: 'same-origin',
      headers: options.body !== undefined ? { 'content-type': 'application/json' } : undefined,
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    console.error(error);
    toast.error(`错误：${text}`);
    throw new ApiError(text);
  }
  let envelope: ApiEnvelope<T> | undefined;
  try {
    envelope = (await response.json()) as ApiEnvelope<T>;
  } catch {
    envelope = undefined;
  }
  if (!response.ok) {
    console.error(`${options.method ?? 'GET'} ${path} -> ${response.status}`, envelope);
    showHttpError(response.status, envelope?.message);
    throw new ApiError(envelope?.message ?? `HTTP ${response.status}`, response.status);
  }
  if (!envelope || typeof envelope.success !== 'boolean') {
    toast.error('错误：服务器返回了无法识别的响应');
    throw new ApiError('bad response', response.status);
  }
  if (!envelope.success && !options.quiet) toast.error(envelope.message || '操作失败');
  return envelope;
}

/**
 * The data of a successful call, for query and mutation functions: a `success:false` answer (already shown as a
 * toast, unless quiet) or an HTTP failure rejects with ApiError, so react-query sees an error.
 */
export async function apiData<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const envelope = await api<T>(path, options);
  if (!envelope.success) throw new ApiRefusal(envelope.message || '操作失败');
  return envelope.data as T;
}
