import { AccountMessages, emailSchema } from '@model-relay/contract';
import { emailDomainAllowed, newVerificationCode, type EmailCodes, EMAIL_CODE_TTL_SECONDS } from '../../auth/email-codes.js';
import { fail } from '../../lib/errors.js';
import { escapeHtml } from '../../lib/escape-html.js';
import { parseValue } from '../../lib/validate.js';
import type { Notifier } from '../../notify/notifier.js';
import type { OptionStore } from '../../options/option-store.js';
import type { UsersRepository } from '../../storage/repositories/users.js';

/** GET /api/verification: mails a code that proves the address for registration or binding (docs/console.md §7). */
export class VerificationService {
  constructor(
    private readonly users: UsersRepository,
    private readonly options: OptionStore,
    private readonly codes: EmailCodes,
    private readonly notifier: Notifier,
    private readonly onError: (error: unknown, what: string) => void,
  ) {}

  async sendCode(rawEmail: unknown): Promise<void> {
    const email = parseValue(emailSchema, typeof rawEmail === 'string' ? rawEmail : '');
    if (!emailDomainAllowed(this.options, email)) fail(AccountMessages.emailDomainRefused);
    if (await this.users.findByEmail(email)) fail(AccountMessages.emailTaken);
    if (!this.options.get('SMTPServer')) fail('管理员未配置 SMTP 服务器，无法发送邮件');
    if (!(await this.codes.startResendPause('verify', email))) fail(AccountMessages.sendTooOften);
    const code = newVerificationCode();
    const minutes = EMAIL_CODE_TTL_SECONDS.verify / 60;
    const systemName = this.options.get('SystemName');
    await this.codes.issueAndMail(
      'verify',
      email,
      code,
      () =>
        this.notifier.sendMail(
          email,
          '邮箱验证邮件',
          `您好，你正在进行 ${systemName} 邮箱验证。\n您的验证码为：${code}\n验证码 ${minutes} 分钟内有效，如果不是本人操作，请忽略。`,
          `<p>您好，你正在进行 ${escapeHtml(systemName)} 邮箱验证。</p><p>您的验证码为：<strong>${code}</strong></p><p>验证码 ${minutes} 分钟内有效，如果不是本人操作，请忽略。</p>`,
        ),
      (error) => this.onError(error, 'verification mail'),
    );
  }
}
