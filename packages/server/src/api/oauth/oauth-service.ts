import { AccountMessages, UserStatus, emailSchema } from '@model-relay/contract';
import { emailDomainAllowed, type EmailCodes } from '../../auth/email-codes.js';
import type { SharedStore } from '../../cluster/shared-store.js';
import type { Integrations } from '../../integrations/create-integrations.js';
import { fail } from '../../lib/errors.js';
import { randomAlphanumeric } from '../../lib/random.js';
import { parseValue } from '../../lib/validate.js';
import type { OptionStore } from '../../options/option-store.js';
import type { BindingColumn, UserBindingsRepository } from '../../storage/repositories/user-bindings.js';
import type { UsersRepository } from '../../storage/repositories/users.js';
import type { UserRow } from '../../storage/schema.js';
import type { Caller } from '../../auth/caller.js';
import type { UserService } from '../user/user-service.js';

/** How long an OAuth `state` waits for its callback. */
export const OAUTH_STATE_TTL_SECONDS = 600;

type Provider = 'github' | 'lark' | 'wechat';
const PROVIDERS: Record<Provider, { column: BindingColumn; alreadyBound: string }> = {
  github: { column: 'github_id', alreadyBound: '该 GitHub 账户已被绑定' },
  lark: { column: 'lark_id', alreadyBound: '该飞书账户已被绑定' },
  wechat: { column: 'wechat_id', alreadyBound: '该微信账户已被绑定' },
};

/** A callback either linked the account to the signed-in caller ("bind") or signs a user in. */
export type SignInResult = { kind: 'bind' | 'login'; user: UserRow };

export interface OAuthServiceDeps {
  users: UsersRepository;
  bindings: UserBindingsRepository;
  accounts: UserService;
  options: OptionStore;
  integrations: Integrations;
  shared: SharedStore;
  codes: EmailCodes;
}

/**
 * Sign-in and binding through GitHub, Lark and WeChat, and e-mail binding (docs/console.md §7, "OAuth and
 * binding"). A callback from a signed-in caller binds the outside account to them; otherwise it signs in the
 * user bound to it, or signs up a new user when registration is open.
 */
export class OAuthService {
  constructor(private readonly deps: OAuthServiceDeps) {}

  /** A fresh `state` for one authorisation round trip (single use, expires). */
  async newState(): Promise<string> {
    const state = randomAlphanumeric(24);
    await this.deps.shared.set(`oauth-state:${state}`, '1', OAUTH_STATE_TTL_SECONDS);
    return state;
  }

  /**
   * The `state` that came back must be the one this browser asked for (kept in its cookie) and still
   * unused: otherwise someone else's code could sign this browser into their account, or bind their
   * account to this user.
   */
  async consumeState(given: string, fromCookie: string | undefined): Promise<void> {
    if (!given || given !== fromCookie || !(await this.deps.shared.take(`oauth-state:${given}`))) {
      fail('state 参数无效或已过期，请重新发起登录');
    }
  }

  async github(code: string, caller: Caller | null): Promise<SignInResult> {
    const { options, integrations, bindings, users } = this.deps;
    if (!options.bool('GitHubOAuthEnabled')) fail('管理员未开启通过 GitHub 登录以及注册');
    if (!code) fail('无效的参数');
    const account = await integrations.github.accountFor(code, options.get('GitHubClientId'), options.get('GitHubClientSecret'));
    let owner = await bindings.findBy('github_id', account.id);
    // one-api kept the GitHub login name (which can change) as the id; move such a user to the numeric id.
    if (!owner && account.login) {
      const legacy = await bindings.findBy('github_id', account.login);
      if (legacy) {
        await users.update(legacy.id, { github_id: account.id });
        owner = { ...legacy, github_id: account.id };
      }
    }
    return this.signInOrBind('github', account.id, owner, caller, { display_name: account.name || account.login, email: account.email });
  }

  async lark(code: string, redirectUri: string, caller: Caller | null): Promise<SignInResult> {
    const { options, integrations, bindings } = this.deps;
    if (!options.get('LarkClientId')) fail('管理员未开启通过飞书登录以及注册');
    if (!code) fail('无效的参数');
    const account = await integrations.lark.accountFor(code, options.get('LarkClientId'), options.get('LarkClientSecret'), redirectUri);
    const owner = await bindings.findBy('lark_id', account.id);
    return this.signInOrBind('lark', account.id, owner, caller, { display_name: account.name, email: account.email });
  }

  /** GET /api/oauth/wechat: the code the official account sent the user signs them in (or up). */
  async wechat(code: string): Promise<UserRow> {
    const openId = await this.wechatOpenId(code);
    const owner = await this.deps.bindings.findBy('wechat_id', openId);
    return (await this.signInOrBind('wechat', openId, owner, null, { display_name: '微信用户', email: '' })).user;
  }

  async bindWechat(code: string, caller: Caller): Promise<void> {
    const openId = await this.wechatOpenId(code);
    const owner = await this.deps.bindings.findBy('wechat_id', openId);
    await this.signInOrBind('wechat', openId, owner, caller, { display_name: '', email: '' });
  }

  /** GET /api/oauth/email/bind: the mailed code proves the address, which then becomes the caller's. */
  async bindEmail(rawEmail: unknown, code: unknown, caller: Caller): Promise<void> {
    const { options, users, codes } = this.deps;
    const email = parseValue(emailSchema, typeof rawEmail === 'string' ? rawEmail : '');
    const given = typeof code === 'string' ? code.trim().toUpperCase() : '';
    if (!given) fail(AccountMessages.codeInvalid);
    if (!emailDomainAllowed(options, email)) fail(AccountMessages.emailDomainRefused);
    const owner = await users.findByEmail(email);
    if (owner && owner.id !== caller.id) fail(AccountMessages.emailTaken);
    if (!(await codes.consume('verify', email, given))) fail(AccountMessages.codeInvalid);
    await users.update(caller.id, { email });
  }

  private async wechatOpenId(code: string): Promise<string> {
    const { options, integrations } = this.deps;
    if (!options.bool('WeChatAuthEnabled')) fail('管理员未开启通过微信登录以及注册');
    if (!code) fail('无效的参数');
    return integrations.wechat.openIdFor(options.get('WeChatServerAddress'), options.get('WeChatServerToken'), code);
  }

  private async signInOrBind(
    provider: Provider,
    accountId: string,
    owner: UserRow | undefined,
    caller: Caller | null,
    profile: { display_name: string; email: string },
  ): Promise<SignInResult> {
    const { column, alreadyBound } = PROVIDERS[provider];
    const { users, bindings, accounts } = this.deps;
    if (caller) {
      if (owner && owner.id !== caller.id) fail(alreadyBound);
      await users.update(caller.id, { [column]: accountId });
      const user = await users.findById(caller.id);
      if (!user) return fail('用户不存在');
      return { kind: 'bind', user };
    }
    if (owner) {
      if (owner.status !== UserStatus.Enabled) fail('用户已被封禁');
      return { kind: 'login', user: owner };
    }
    // A new user keeps the provider's address only when nobody uses it yet.
    const email = profile.email && !(await users.findByEmail(profile.email)) ? profile.email : '';
    const user = await accounts.createExternal(provider, (await bindings.maxUserId()) + 1, { display_name: profile.display_name, email, [column]: accountId });
    return { kind: 'login', user };
  }
}
