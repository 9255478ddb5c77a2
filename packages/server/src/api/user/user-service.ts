import {
  AccountMessages,
  DEFAULT_GROUP,
  LIMIT_FIELDS,
  LogType,
  Role,
  UserStatus,
  createUserSchema,
  loginSchema,
  manageUserSchema,
  registerSchema,
  updateSelfSchema,
  updateUserSchema,
  usernameChangeProblem,
  type UserDto,
} from '@model-relay/contract';
import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import { emailDomainAllowed, type EmailCodes } from '../../auth/email-codes.js';
import { hashPassword, needsRehash, verifyPassword } from '../../auth/password.js';
import { fail } from '../../lib/errors.js';
import { randomAlphanumeric, randomHex } from '../../lib/random.js';
import { nowSeconds, parseInput } from '../../lib/validate.js';
import type { OptionStore } from '../../options/option-store.js';
import type { LogsRepository } from '../../storage/repositories/logs.js';
import type { UserOrder, UsersRepository } from '../../storage/repositories/users.js';
import type { Database, UserRow } from '../../storage/schema.js';
import { isUniqueViolation } from '../../storage/unique-violation.js';
import { toUserDto } from './user-dto.js';

export const ROOT_DEFAULT_QUOTA = 500_000_000_000_000;

/** A new user row: the defaults every way of creating a user shares. */
function newUserRow(fields: Pick<UserRow, 'username' | 'password' | 'display_name' | 'aff_code'> & Partial<UserRow>): Omit<UserRow, 'id' | 'username_key'> {
  return {
    role: Role.Common,
    status: UserStatus.Enabled,
    email: '',
    github_id: '',
    wechat_id: '',
    lark_id: '',
    access_token: null,
    rpm_limit: 0,
    tpm_limit: 0,
    daily_quota_limit: 0,
    monthly_quota_limit: 0,
    quota: 0,
    used_quota: 0,
    request_count: 0,
    group: DEFAULT_GROUP,
    inviter_id: 0,
    created_at: nowSeconds(),
    session_version: 0,
    ...fields,
  };
}

/** Two requests passed the "name free?" check at once: the unique constraint decided, answer as the check would. */
async function uniqueName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) return fail('用户名已存在');
    throw error;
  }
}

/** Accounts: registration, login, self service and the admin user API of docs/console.md §7. */
export class UserService {
  /**
   * Login with an unknown name verifies against this hash, so it takes as long as a wrong password and the
   * answer time does not tell which usernames exist (issue 10). Made once per process, with hashPassword's cost.
   */
  private readonly dummyHash: Promise<string> = hashPassword(randomHex(16));

  constructor(
    private readonly db: Kysely<Database>,
    private readonly users: UsersRepository,
    private readonly logs: LogsRepository,
    private readonly options: OptionStore,
    private readonly codes: EmailCodes,
  ) {}

  /** First start: create the super admin root / 123456 when the user table is empty. */
  async ensureRootUser(): Promise<boolean> {
    if ((await this.users.count()) > 0) return false;
    await this.users.insert(
      newUserRow({ username: 'root', password: await hashPassword('123456'), display_name: 'Root User', role: Role.Root, quota: ROOT_DEFAULT_QUOTA, aff_code: await this.newAffCode() }),
    );
    return true;
  }

  async register(body: unknown): Promise<void> {
    if (!this.options.bool('RegisterEnabled')) fail('管理员关闭了新用户注册');
    if (!this.options.bool('PasswordRegisterEnabled')) fail('管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册');
    const input = parseInput(registerSchema, body);
    if (input.password2 !== undefined && input.password2 !== '' && input.password2 !== input.password) {
      fail('两次输入的密码不一致');
    }
    // With e-mail verification on, the address must be allowed, free, and proven by the mailed code; the
    // code is used up only once everything else passed. Without it no address is kept: an unproven one
    // could take someone else's address away from them.
    const verifyEmail = this.options.bool('EmailVerificationEnabled');
    const email = verifyEmail ? (input.email ?? '').toLowerCase() : '';
    if (verifyEmail) {
      if (!email || !input.verification_code) fail(AccountMessages.emailVerificationRequired);
      if (!emailDomainAllowed(this.options, email)) fail(AccountMessages.emailDomainRefused);
      if (await this.users.findByEmail(email)) fail(AccountMessages.emailTaken);
    }
    if (await this.users.findByUsername(input.username)) fail('用户名已存在');
    if (verifyEmail && !(await this.codes.consume('verify', email, input.verification_code!.toUpperCase()))) fail(AccountMessages.codeInvalid);

    const inviter = input.aff_code ? await this.users.findByAffCode(input.aff_code) : undefined;
    const quotaForNewUser = this.options.number('QuotaForNewUser');
    const quotaForInvitee = inviter ? this.options.number('QuotaForInvitee') : 0;
    const quotaForInviter = inviter ? this.options.number('QuotaForInviter') : 0;
    const passwordHash = await hashPassword(input.password);
    const affCode = await this.newAffCode();
    const now = nowSeconds();

    await uniqueName(() => this.db.transaction().execute(async (trx) => {
      const id = await this.users.insert(
        newUserRow({
          username: input.username,
          password: passwordHash,
          display_name: input.username,
          email,
          quota: quotaForNewUser + quotaForInvitee,
          aff_code: affCode,
          inviter_id: inviter?.id ?? 0,
          created_at: now,
        }),
        trx,
      );
      const grant = (userId: number, username: string, quota: number, content: string) =>
        this.logs.insert({ user_id: userId, username, type: LogType.System, created_at: now, quota, content }, trx);
      if (quotaForNewUser > 0) await grant(id, input.username, quotaForNewUser, `新用户注册赠送 ${quotaForNewUser} 额度`);
      if (quotaForInvitee > 0) await grant(id, input.username, quotaForInvitee, `使用邀请码赠送 ${quotaForInvitee} 额度`);
      if (inviter && quotaForInviter > 0) {
        await this.users.addQuota(inviter.id, quotaForInviter, trx);
        await grant(inviter.id, inviter.username, quotaForInviter, `邀请用户 ${input.username} 赠送 ${quotaForInviter} 额度`);
      }
    }));
  }

  /**
   * Signs up a user who came through GitHub, Lark or WeChat: named `<prefix>_<n>` (n = highest id + 1, as
   * one-api does), with the outside account already linked and the new-user quota granted like a registration.
   */
  async createExternal(prefix: string, nextId: number, fields: Pick<UserRow, 'display_name' | 'email'> & Partial<Pick<UserRow, 'github_id' | 'lark_id' | 'wechat_id'>>): Promise<UserRow> {
    if (!this.options.bool('RegisterEnabled')) fail('管理员关闭了新用户注册');
    let username = `${prefix}_${nextId}`;
    for (let n = nextId + 1; await this.users.findByUsername(username); n++) username = `${prefix}_${n}`;
    const quota = this.options.number('QuotaForNewUser');
    const row = newUserRow({
      ...fields,
      username,
      // No password anyone knows: the account signs in through its provider (or after a password reset).
      password: await hashPassword(randomHex(16)),
      display_name: fields.display_name.slice(0, 20) || username,
      aff_code: await this.newAffCode(),
      quota,
    });
    const id = await this.db.transaction().execute(async (trx) => {
      const id = await this.users.insert(row, trx);
      if (quota > 0) {
        await this.logs.insert({ user_id: id, username, type: LogType.System, created_at: row.created_at, quota, content: `新用户注册赠送 ${quota} 额度` }, trx);
      }
      return id;
    });
    return this.mustFind(id);
  }

  /** Username or e-mail plus password. Returns the user for the session. */
  async login(body: unknown): Promise<UserRow> {
    if (!this.options.bool('PasswordLoginEnabled')) fail('管理员关闭了密码登录');
    const parsed = loginSchema.safeParse(body ?? {});
    if (!parsed.success) return fail('无效的参数');
    const { username, password } = parsed.data;
    const user = (await this.users.findForLogin(username)) ?? (username.includes('@') ? await this.users.findByEmail(username) : undefined);
    // Same message and the same work for an unknown user and a wrong password: never reveal which names exist.
    const verified = await verifyPassword(password, user ? user.password : await this.dummyHash);
    if (!user || !verified || user.status !== UserStatus.Enabled) return fail('用户名或密码错误，或用户已被封禁');
    if (needsRehash(user.password)) await this.users.upgradePasswordHash(user.id, user.password, await hashPassword(password));
    return user;
  }

  async getSelf(caller: Caller): Promise<UserDto> {
    return toUserDto(await this.mustFind(caller.id));
  }

  /** Saves the caller's own profile. Answers true when the password changed: every session of theirs ended. */
  async updateSelf(caller: Caller, body: unknown): Promise<boolean> {
    const input = parseInput(updateSelfSchema, body);
    const changes: Partial<UserRow> = {};
    if (input.username !== undefined && input.username !== caller.username) {
      const problem = usernameChangeProblem(input.username, caller.username);
      if (problem) fail(problem);
      if (((await this.users.findByUsername(input.username))?.id ?? caller.id) !== caller.id) fail('用户名已存在');
      changes.username = input.username;
    }
    if (input.display_name !== undefined && input.display_name !== '') changes.display_name = input.display_name;
    if (input.password) changes.password = await hashPassword(input.password);
    await uniqueName(() =>
      this.db.transaction().execute(async (trx) => {
        await this.users.update(caller.id, changes, trx);
        if (changes.password) await this.users.endSessions(caller.id, trx);
      }),
    );
    return changes.password !== undefined;
  }

  async deleteSelf(caller: Caller): Promise<void> {
    const user = await this.mustFind(caller.id);
    if (user.role >= Role.Root) fail('不能删除超级管理员账户');
    await this.users.delete(user.id);
  }

  /** Rotates the caller's system access token and returns the new one. */
  async regenerateAccessToken(caller: Caller): Promise<string> {
    const token = randomHex(16);
    await this.users.update(caller.id, { access_token: token });
    return token;
  }

  /** Models the caller's group can use: the enabled abilities of that group (docs/console.md §7). */
  async availableModels(caller: Caller): Promise<string[]> {
    const user = await this.mustFind(caller.id);
    const rows = await this.db
      .selectFrom('abilities')
      .select('model')
      .distinct()
      .where('group', '=', user.group)
      .where('enabled', '=', 1)
      .orderBy('model')
      .execute();
    return rows.map((row) => row.model);
  }

  async affCode(caller: Caller): Promise<string> {
    const user = await this.mustFind(caller.id);
    if (user.aff_code) return user.aff_code;
    const code = await this.newAffCode();
    await this.users.update(user.id, { aff_code: code });
    return code;
  }

  // ---- admin API (role >= 10 is checked by the route; the rules between roles are checked here) ----

  async list(page: number, order: string): Promise<UserDto[]> {
    const safeOrder: UserOrder = order === 'quota' || order === 'used_quota' || order === 'request_count' ? order : '';
    return (await this.users.list(page, safeOrder)).map(toUserDto);
  }

  async search(keyword: string): Promise<UserDto[]> {
    const trimmed = keyword.trim();
    if (!trimmed) return this.list(0, '');
    return (await this.users.search(trimmed)).map(toUserDto);
  }

  async get(caller: Caller, id: number): Promise<UserDto> {
    const user = await this.mustFind(id);
    this.assertCanManage(caller, user, '无权获取同级或更高等级用户的信息');
    return toUserDto(user);
  }

  /** Creates an ordinary user (the route checks the caller is an admin). */
  async create(_caller: Caller, body: unknown): Promise<void> {
    const input = parseInput(createUserSchema, body);
    if (await this.users.findByUsername(input.username)) fail('用户名已存在');
    const row = newUserRow({
      username: input.username,
      password: await hashPassword(input.password),
      display_name: input.display_name || input.username,
      quota: this.options.number('QuotaForNewUser'),
      aff_code: await this.newAffCode(),
    });
    await uniqueName(() => this.users.insert(row));
  }

  async update(caller: Caller, body: unknown): Promise<void> {
    const input = parseInput(updateUserSchema, body);
    const user = await this.mustFind(input.id);
    this.assertCanManage(caller, user, '无权更新同权限等级或更高权限等级的用户信息');
    const changes: Partial<UserRow> = {};
    if (input.username !== undefined && input.username !== user.username) {
      const problem = usernameChangeProblem(input.username, user.username);
      if (problem) fail(problem);
      if (((await this.users.findByUsername(input.username))?.id ?? user.id) !== user.id) fail('用户名已存在');
      changes.username = input.username;
    }
    if (input.display_name !== undefined) changes.display_name = input.display_name;
    if (input.password) changes.password = await hashPassword(input.password);
    if (input.email !== undefined) changes.email = input.email;
    if (input.group !== undefined) changes.group = input.group;
    for (const field of LIMIT_FIELDS) if (input[field] !== undefined) changes[field] = input[field];
    const quotaChanged = input.quota !== undefined && input.quota !== Number(user.quota);
    if (quotaChanged) changes.quota = input.quota;
    await uniqueName(() => this.db.transaction().execute(async (trx) => {
      await this.users.update(user.id, changes, trx);
      // A password set by an admin ends the user's sessions, as their own change would.
      if (changes.password) await this.users.endSessions(user.id, trx);
      if (quotaChanged) {
        await this.logs.insert(
          {
            user_id: user.id,
            username: changes.username ?? user.username,
            type: LogType.Manage,
            created_at: nowSeconds(),
            quota: 0,
            content: `管理员 ${caller.username} 将用户额度从 ${Number(user.quota)} 修改为 ${input.quota}`,
          },
          trx,
        );
      }
    }));
  }

  /** POST /api/user/manage: promote, demote, delete, disable, enable. Returns the row's new role and status. */
  async manage(caller: Caller, body: unknown): Promise<{ role: number; status: number }> {
    const input = parseInput(manageUserSchema, body);
    const user = await this.users.findByUsername(input.username);
    if (!user) return fail('用户不存在');
    this.assertCanManage(caller, user, '无权更新同权限等级或更高权限等级的用户信息');
    if (user.role >= Role.Root && input.action !== 'enable') fail('无法对超级管理员用户执行此操作');
    switch (input.action) {
      case 'disable':
        await this.changeAndEndSessions(user.id, { status: UserStatus.Disabled });
        return { role: user.role, status: UserStatus.Disabled };
      case 'enable':
        await this.users.update(user.id, { status: UserStatus.Enabled });
        return { role: user.role, status: UserStatus.Enabled };
      case 'delete':
        await this.users.delete(user.id);
        return { role: user.role, status: user.status };
      case 'promote':
        if (caller.role < Role.Root) fail('普通管理员用户无法提升其他用户为管理员');
        if (user.role >= Role.Admin) fail('该用户已经是管理员');
        await this.changeAndEndSessions(user.id, { role: Role.Admin });
        return { role: Role.Admin, status: user.status };
      case 'demote':
        if (user.role === Role.Common) fail('该用户已经是普通用户');
        await this.changeAndEndSessions(user.id, { role: Role.Common });
        return { role: Role.Common, status: user.status };
    }
  }

  async findActiveById(id: number): Promise<UserRow | undefined> {
    return this.users.findById(id);
  }

  /** A ban or a role change: the user's existing sessions end with it (they log in again under the new rules). */
  private async changeAndEndSessions(id: number, changes: Partial<UserRow>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.users.update(id, changes, trx);
      await this.users.endSessions(id, trx);
    });
  }

  /** An admin acts only on users of a lower role; the super admin on anyone. */
  private assertCanManage(caller: Caller, target: UserRow, message: string): void {
    if (caller.role >= Role.Root) return;
    if (target.role >= caller.role) fail(message);
  }

  private async mustFind(id: number): Promise<UserRow> {
    const user = await this.users.findById(id);
    if (!user) return fail('用户不存在');
    return user;
  }

  private async newAffCode(): Promise<string> {
    for (let i = 0; i < 20; i++) {
      const code = randomAlphanumeric(4);
      if (!(await this.users.findByAffCode(code))) return code;
    }
    return randomAlphanumeric(8);
  }
}
