import type { StatusObject } from '@model-relay/contract';
import { getOAuthState } from '../api/oauth/get-oauth-state';

export type OAuthProvider = 'github' | 'lark';

/** Where Lark sends the code back (the server repeats the same value when it trades the code). */
export function larkRedirectUri(status: StatusObject | undefined): string {
  return `${status?.server_address || window.location.origin}/oauth/lark`;
}

/**
 * The provider's authorisation page (docs/console.md §7): GitHub with client id, state and scope user:email;
 * Lark with its App ID, the /oauth/lark callback and the state.
 */
export function authorizeUrl(provider: OAuthProvider, status: StatusObject | undefined, state: string): string {
  if (provider === 'github') {
    const base = status?.github_authorize_url || 'https://github.com/login/oauth/authorize';
    return `${base}?${new URLSearchParams({ client_id: status?.github_client_id ?? '', state, scope: 'user:email' })}`;
  }
  const base = status?.lark_authorize_url || 'https://accounts.feishu.cn/open-apis/authen/v1/authorize';
  return `${base}?${new URLSearchParams({ client_id: status?.lark_client_id ?? '', redirect_uri: larkRedirectUri(status), state })}`;
}

/** Asks the server for a state (GET /api/oauth/state) and opens the provider's page in a new window. */
export async function openAuthorization(provider: OAuthProvider, status: StatusObject | undefined): Promise<void> {
  const res = await getOAuthState();
  if (!res.success || !res.data) return;
  window.open(authorizeUrl(provider, status, res.data));
}
