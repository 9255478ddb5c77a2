import { randomInt, timingSafeEqual } from 'node:crypto';
import type { SharedStore } from '../cluster/shared-store.js';
import { fail } from '../lib/errors.js';
import type { OptionStore } from '../options/option-store.js';

/** What a mailed secret is for: a verification code (registration, binding) or a password-reset token. */
export type EmailCodePurpose = 'verify' | 'reset';

/** How long a mailed secret stays valid (one-api: 10 minutes for both). */
export const EMAIL_CODE_TTL_SECONDS: Record<EmailCodePurpose, number> = { verify: 600, reset: 600 };
/** The console's resend countdown (docs/console.md §4); the server refuses faster resends to the same address. */
export const EMAIL_RESEND_SECONDS = 30;
/**
 * Wrong guesses a code survives; then it is void and a new one must be requested. The count is read and
 * written in two steps, so concurrent guesses may get a few more tries; the per-IP limit of the critical
 * routes bounds them anyway.
 */
const MAX_WRONG_GUESSES = 5;

/** Letters and digits that cannot be mistaken for each other when typed from a mail. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function newVerificationCode(): string {
  let code = '';
  for (let i = 0; i < 6; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** EmailDomainRestrictionEnabled: only addresses whose domain is in EmailDomainWhitelist (comma-separated). */
export function emailDomainAllowed(options: OptionStore, email: string): boolean {
  if (!options.bool('EmailDomainRestrictionEnabled')) return true;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return options
    .get('EmailDomainWhitelist')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .some((d) => d !== '' && d === domain);
}

/**
 * Secrets sent by mail, kept in the shared store (so any instance can check them) with a time to live, and
 * single use: the one request that `take`s a matching secret wins, even when several arrive at once on
 * different instances. A wrong guess does not consume the secret, but a few wrong guesses void it.
 */
export class EmailCodes {
  constructor(private readonly shared: SharedStore) {}

  async issue(purpose: EmailCodePurpose, email: string, secret: string): Promise<void> {
    await this.shared.set(this.key(purpose, email), secret, EMAIL_CODE_TTL_SECONDS[purpose]);
    await this.shared.delete(this.failuresKey(purpose, email));
  }

  /**
   * Issues `secret` for the address and mails it with `send`. When the mail cannot be sent, the secret is voided
   * and the resend pause lifted (the user may try again at once), `onError` hears why, and the request is refused.
   */
  async issueAndMail(purpose: EmailCodePurpose, email: string, secret: string, send: () => Promise<void>, onError: (error: unknown) => void): Promise<void> {
    await this.issue(purpose, email, secret);
    try {
      await send();
    } catch (error) {
      onError(error);
      await this.revoke(purpose, email);
      await this.endResendPause(purpose, email);
      fail('邮件发送失败，请联系管理员检查 SMTP 设置');
    }
  }

  /** Voids the secret of an address (e.g. when its mail could not be sent). */
  async revoke(purpose: EmailCodePurpose, email: string): Promise<void> {
    await this.shared.delete(this.key(purpose, email));
  }

  /** True once for the right secret; false for a wrong, expired, voided or already used one. */
  async consume(purpose: EmailCodePurpose, email: string, given: string): Promise<boolean> {
    const key = this.key(purpose, email);
    const stored = await this.shared.get(key);
    if (!stored || !given) return false;
    if (!sameText(stored, given)) {
      const failuresKey = this.failuresKey(purpose, email);
      const failures = Number((await this.shared.get(failuresKey)) ?? 0) + 1;
      if (failures >= MAX_WRONG_GUESSES) {
        await this.shared.delete(key);
        await this.shared.delete(failuresKey);
      } else {
        await this.shared.set(failuresKey, String(failures), EMAIL_CODE_TTL_SECONDS[purpose]);
      }
      return false;
    }
    const taken = await this.shared.take(key);
    return taken !== undefined && sameText(taken, given);
  }

  /** Starts the resend pause of an address; false while one is running. */
  startResendPause(purpose: EmailCodePurpose, email: string): Promise<boolean> {
    return this.shared.setIfAbsent(`email-resend:${purpose}:${email}`, '1', EMAIL_RESEND_SECONDS);
  }

  endResendPause(purpose: EmailCodePurpose, email: string): Promise<void> {
    return this.shared.delete(`email-resend:${purpose}:${email}`);
  }

  private key(purpose: EmailCodePurpose, email: string): string {
    return `email-code:${purpose}:${email.toLowerCase()}`;
  }

  private failuresKey(purpose: EmailCodePurpose, email: string): string {
    return `email-code-failures:${purpose}:${email.toLowerCase()}`;
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
