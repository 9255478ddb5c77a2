import { z } from 'zod';
import { idInput, integerInput, textInput, textProblem } from './input.js';
import { normaliseUsername, usernameProblem } from './username.js';
import { optionalLimitsShape, type Limits } from './limits.js';

/** Limits of docs/console.md §5 and §9. */
export const USERNAME_MAX = 12;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 20;
export const DISPLAY_NAME_MAX = 20;
export const EMAIL_MAX = 50;
export const DEFAULT_GROUP = 'default';

/** Chinese validation messages shared by the console and the server. */
export const UserMessages = {
  passwordTooShort: '密码长度不得小于 8 位！',
  passwordTooLong: '密码长度不得超过 20 位！',
  passwordMismatch: '两次输入的密码不一致',
  usernameRequired: '用户名不能为空',
  usernameTooLong: '用户名长度不得超过 12 个字符',
  displayNameTooLong: '显示名称长度不得超过 20 个字符',
  emailInvalid: '邮箱地址格式不正确',
} as const;

/** Size limits of the other user fields (their columns: varchar(64) group, varchar(128) e-mail). */
export const GROUP_MAX = 64;
export const LOGIN_FIELD_MAX = 128;

/** A new or changed username: NFKC-normalised, 1-12 characters, nothing invisible or confusable (username.ts). */
const username = z
  .string({ error: UserMessages.usernameRequired })
  .max(USERNAME_MAX * 4 + 64, UserMessages.usernameTooLong)
  .transform(normaliseUsername)
  .pipe(
    z
      .string()
      .min(1, UserMessages.usernameRequired)
      .max(USERNAME_MAX, UserMessages.usernameTooLong)
      .superRefine((name, ctx) => {
        const problem = usernameProblem(name);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
  );
/**
 * A username as the edit forms send it back: bounded and normalised only. The account's own name unchanged is
 * always accepted (one imported from new-api may have up to 20 characters); a different one must pass
 * `usernameChangeProblem`, which the server checks against the stored name.
 */
const keptOrNewUsername = z
  .string({ error: UserMessages.usernameRequired })
  .max(LOGIN_FIELD_MAX, UserMessages.usernameTooLong)
  .transform(normaliseUsername);

/** Why `name` cannot replace the account's `stored` name (undefined: it may, or it is that name unchanged). */
export function usernameChangeProblem(name: string, stored: string): string | undefined {
  if (name === stored) return undefined;
  const result = username.safeParse(name);
  return result.success ? undefined : result.error.issues[0].message;
}
const password = z
  .string({ error: '密码必须是字符串' })
  .min(PASSWORD_MIN, UserMessages.passwordTooShort)
  .max(PASSWORD_MAX, UserMessages.passwordTooLong)
  .refine((value) => textProblem(value, 'password', { max: PASSWORD_MAX }) === undefined, '密码不能包含控制字符');
const displayName = textInput('display_name', { max: DISPLAY_NAME_MAX, tooLong: UserMessages.displayNameTooLong });
/** An e-mail address or empty (no address). */
const emailOrEmpty = textInput('email', { max: EMAIL_MAX }).refine((value) => value === '' || z.email().safeParse(value).success, UserMessages.emailInvalid);
/** A new password, or empty for "unchanged". */
const passwordOrEmpty = z
  .string({ error: '密码必须是字符串' })
  .max(PASSWORD_MAX * 4, UserMessages.passwordTooLong)
  .superRefine((value, ctx) => {
    if (value === '') return;
    const result = password.safeParse(value);
    if (!result.success) ctx.addIssue({ code: 'custom', message: result.error.issues[0].message });
  });
const shortCode = (field: string) => textInput(field, { max: 64 });
/** A user group: one name (no commas: groups are comma lists elsewhere). */
const group = textInput('group', { max: GROUP_MAX })
  .pipe(z.string().min(1, '分组不能为空'))
  .refine((value) => !value.includes(','), '分组名称不能包含逗号');

/** POST /api/user/register body (docs/console.md §3, "Registration payload"). */
export const registerSchema = z.object({
  username,
  password,
  password2: z.string().max(PASSWORD_MAX * 4).optional(),
  email: emailOrEmpty.optional(),
  verification_code: shortCode('verification_code').optional(),
  aff_code: shortCode('aff_code').optional(),
});
/** What the console sends to POST /api/user/register. */
export type RegisterInput = z.output<typeof registerSchema>;

/**
 * POST /api/user/login body: username may also be an e-mail address. Not checked against the username rules
 * (older names must still log in), only normalised the same way and bounded in size.
 */
export const loginSchema = z.object({
  username: z
    .string({ error: '请输入用户名' })
    .max(LOGIN_FIELD_MAX, '用户名或密码错误')
    .refine((value) => textProblem(value, 'username', { max: LOGIN_FIELD_MAX }) === undefined, '用户名或密码错误')
    .transform(normaliseUsername)
    .pipe(z.string().min(1, '请输入用户名')),
  password: z.string({ error: '请输入密码' }).min(1, '请输入密码').max(LOGIN_FIELD_MAX, '用户名或密码错误'),
});
export type LoginInput = z.output<typeof loginSchema>;

/**
 * Body of POST /api/user/login as the server reads it: loginSchema, every failure answered "无效的参数" (the
 * console shows loginSchema's own messages before sending; the server does not say which field was wrong).
 */
export const loginRequestBody = z.unknown().transform((value, ctx) => {
  const result = loginSchema.safeParse(value);
  if (result.success) return result.data;
  ctx.addIssue({ code: 'custom', message: '无效的参数' });
  return z.NEVER;
});

/** POST /api/user/ (admin creates a user). */
export const createUserSchema = z.object({
  username,
  password,
  display_name: displayName.optional(),
});
export type CreateUserInput = z.output<typeof createUserSchema>;

/** PUT /api/user/self: only non-empty fields change. */
export const updateSelfSchema = z.object({
  username: keptOrNewUsername.optional(),
  display_name: displayName.optional(),
  password: passwordOrEmpty.optional(),
});
export type UpdateSelfInput = z.output<typeof updateSelfSchema>;

/** PUT /api/user/ (admin edits a user): id plus the fields to change. */
export const updateUserSchema = z.object({
  id: idInput('用户'),
  username: keptOrNewUsername.optional(),
  display_name: displayName.optional(),
  password: passwordOrEmpty.optional(),
  email: emailOrEmpty.optional(),
  group: group.optional(),
  quota: integerInput('quota', { min: 0, message: '额度必须是非负整数' }).optional(),
  ...optionalLimitsShape,
});
export type UpdateUserInput = z.output<typeof updateUserSchema>;

export const MANAGE_ACTIONS = ['promote', 'demote', 'delete', 'disable', 'enable'] as const;
export type ManageAction = (typeof MANAGE_ACTIONS)[number];
/** POST /api/user/manage. */
export const manageUserSchema = z.object({
  username: textInput('username', { max: LOGIN_FIELD_MAX, tooLong: '用户不存在' }).pipe(z.string().min(1, '用户名不能为空')),
  action: z.enum(MANAGE_ACTIONS, { error: '不支持的操作' }),
});
export type ManageUserInput = z.output<typeof manageUserSchema>;

/** The user object the API returns (password and access token never included); limits 0 = none of their own. */
export interface UserDto extends Limits {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  github_id: string;
  wechat_id: string;
  lark_id: string;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  aff_code: string;
  inviter_id: number;
}

/** Envelope of every /api response. */
export interface ApiEnvelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

/** Messages of the e-mail code, password reset and account-binding flows (docs/console.md §5 and §8). */
export const AccountMessages = {
  emailRequired: '请输入邮箱地址',
  codeSent: '验证码发送成功，请检查你的邮箱！',
  codeInvalid: '验证码错误或已过期',
  emailTaken: '邮箱地址已被占用',
  emailDomainRefused: '管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中',
  emailVerificationRequired: '管理员开启了邮箱验证，请输入邮箱地址和验证码',
  sendTooOften: '发送过于频繁，请 30 秒后再试',
  emailNotRegistered: '该邮箱地址未注册',
  resetMailSent: '重置邮件发送成功，请检查邮箱！',
  resetLinkInvalid: '重置链接非法或已过期',
  turnstileRunning: '请稍后几秒重试，Turnstile 正在检查用户环境！',
  turnstileMissing: 'Turnstile token 为空',
  turnstileFailed: 'Turnstile 校验失败，请刷新重试！',
  emailBound: '邮箱账户绑定成功！',
  wechatBound: '微信账户绑定成功！',
  bindSuccess: '绑定成功！',
} as const;

/** GET /api/oauth/email/bind and the e-mail of a code request. */
export const emailSchema = z.string().trim().toLowerCase().min(1, AccountMessages.emailRequired).max(EMAIL_MAX).email(UserMessages.emailInvalid);

/** POST /api/user/reset body. */
export const resetPasswordSchema = z.object({
  email: emailSchema,
  token: z.string().trim().min(1, AccountMessages.resetLinkInvalid).max(128),
});
export type ResetPasswordInput = z.output<typeof resetPasswordSchema>;
