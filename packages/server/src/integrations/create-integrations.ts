import type { Config } from '../config.js';
import { GitHubClient } from './github/github-client.js';
import { LarkClient } from './lark/lark-client.js';
import { TurnstileVerifier } from './turnstile/turnstile-verifier.js';
import { WeChatServerClient } from './wechat/wechat-server-client.js';

/** The outside services the accounts flows talk to, at the addresses the configuration gives. */
export interface Integrations {
  github: GitHubClient;
  lark: LarkClient;
  wechat: WeChatServerClient;
  turnstile: TurnstileVerifier;
}

export function createIntegrations(config: Config): Integrations {
  return {
    github: new GitHubClient({ oauth: config.GITHUB_OAUTH_URL, api: config.GITHUB_API_URL }),
    lark: new LarkClient({ auth: config.LARK_AUTH_URL, api: config.LARK_API_URL }),
    wechat: new WeChatServerClient(),
    turnstile: new TurnstileVerifier(config.TURNSTILE_VERIFY_URL),
  };
}
