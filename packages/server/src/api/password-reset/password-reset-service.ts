import { AccountMessages, emailSchema, resetPasswordSchema } from '@model-relay/contract';
import { EMAIL_CODE_TTL_SECONDS, type EmailCodes } from '../../auth/email-codes.js';
import { hashPassword } from '../../auth/password.js';
import { fail } from '../../lib/errors.js';
import { escapeHtml } from '../../lib/escape-html.js';
import { randomAlphanumeric, randomHex } from '../../lib/random.js';
import { parseInput, parseValue } from '../../lib/validate.js';
import type { Notifier } from '../../notify/notifier.js';
import type { OptionStore } from '../../options/option-store.js';
import type { UsersRepository } from '../../storage/repositories/users.js';

/**
 * Password reset by e-mail (docs/console.md §2 and §7): GET /api/reset_password mails a link to
 * {ServerAddress}/user/reset?email=&token=; POST /api/user/reset with that e-mail and token replaces the
 * password by a generated one and returns it. The token is single use and expires.
 */
export class PasswordResetService {
  constructor(
    private readonly users: UsersRepository,
    private readonly options: OptionStore,
    private readonly codes: EmailCodes,
    private readonly notifier: Notifier,
    private readonly onError: (error: unknown, what: string) => void,
  ) {}

  async sendLink(rawEmail: unknown): Promise<void> {
    const email = parseValue(emailSchema, typeof rawEmail === 'string' ? rawEmail : '');
    const user = await this.users.findByEmail(email);
    if (!user) fail(AccountMessages.emailNotRegistered);
    // The link must point at the address the admin configured: a link built from the request's Host header
    // could be made to point at someone else's server and hand them the token.
    const serverAddress = this.options.get('ServerAddress');
    if (!serverAddress) fail('管理员未设置服务器地址，无法发送重置邮件');
    if (!this.options.get('SMTPServer')) fail('管理员未配置 SMTP 服务器，无法发送邮件');
    if (!(await this.codes.startResendPause('reset', email))) fail(AccountMessages.sendTooOften);
    const token = randomHex(16);
    const link = `${serverAddress}/user/reset?email=${encodeURIComponent(email)}&token=${token}`;
    const minutes = EMAIL_CODE_TTL_SECONDS.reset / 60;
    const systemName = this.options.get('SystemName');
    await this.codes.issueAndMail(
      'reset',
      email,
      token,
      () =>
        this.notifier.sendMail(
          email,
          '密码重置',
          `您好，你正在进行 ${systemName} 密码重置。\n打开以下链接重置密码：${link}\n链接 ${minutes} 分钟内有效，如果不是本人操作，请忽略。`,
          `<p>您好，你正在进行 ${escapeHtml(systemName)} 密码重置。</p><p>点击 <a href="${escapeHtml(link)}">此处</a> 进行密码重置，或打开：${escapeHtml(link)}</p><p>链接 ${minutes} 分钟内有效，如果不是本人操作，请忽略。</p>`,
        ),
      (error) => this.onError(error, 'password reset mail'),
    );
  }

  /** Checks and uses up the token, sets a new random password and returns it. */
  async reset(body: unknown): Promise<string> {
    const input = parseInput(resetPasswordSchema, body);
    if (!(await this.codes.consume('reset', input.email, input.token))) fail(AccountMessages.resetLinkInvalid);
    const user = await this.users.findByEmail(input.email);
    if (!user) return fail(AccountMessages.emailNotRegistered);
    const password = randomAlphanumeric(12);
    // Like a password change, a reset ends every session of the user, on every instance (session_version).
    await this.users.setPassword(user.id, await hashPassword(password));
    return password;
  }
}
