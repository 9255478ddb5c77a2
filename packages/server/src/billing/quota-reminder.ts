import { formatQuota } from '@model-relay/contract';
import type { Kysely } from 'kysely';
import type { Notifier } from '../notify/notifier.js';
import type { OptionStore } from '../options/option-store.js';
import type { SharedStore } from '../cluster/shared-store.js';
import type { Database } from '../storage/schema.js';

/** What the ledger needs to notice users running low (see QuotaLedger). */
export interface LowQuotaWatch {
  /** Remind when a user's quota falls below this; 0 turns reminders off. */
  threshold(): number;
  /** Called after a commit, once for each user whose quota that commit took from at least the threshold to below it. */
  crossed(userId: number, quota: number): void;
}

/** One reminder per user per this long at most, whichever instance notices (the mark is in the shared store). */
const QUIET_SECONDS = 60 * 60;

/**
 * The quota reminder (option QuotaRemindThreshold): when a user's remaining quota drops below the threshold,
 * an e-mail tells them to top up. Needs SMTP and an address on the user; otherwise nothing is sent.
 */
export class QuotaReminder implements LowQuotaWatch {
  /** Deliveries started and not finished (tests wait on them). */
  readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: OptionStore,
    private readonly notifier: Notifier,
    private readonly shared: SharedStore,
    private readonly onError: (error: unknown, what: string) => void = () => undefined,
  ) {}

  threshold(): number {
    return Math.max(0, this.options.number('QuotaRemindThreshold'));
  }

  crossed(userId: number, quota: number): void {
    const delivery = this.shared
      .setIfAbsent(`quota-reminder:${userId}`, '1', QUIET_SECONDS)
      .then((first) => (first ? this.send(userId, quota) : undefined))
      .catch((error: unknown) => this.onError(error, 'quota reminder'))
      .finally(() => this.pending.delete(delivery));
    this.pending.add(delivery);
  }

  private async send(userId: number, quota: number): Promise<void> {
    if (!this.options.get('SMTPServer')) return;
    const user = await this.db.selectFrom('users').select(['email', 'username']).where('id', '=', userId).executeTakeFirst();
    if (!user?.email) return;
    const topUp = this.options.get('TopUpLink');
    const text =
      `${user.username}，您的额度即将用尽，当前剩余额度为 ${this.amount(quota)}。为了不影响您的使用，请及时充值。` +
      (topUp ? `\n充值链接：${topUp}` : '');
    await this.notifier.sendMail(user.email, '您的额度即将用尽', text);
  }

  /** The amount as the console shows it: the one money display rule (contract formatQuota, docs/console.md §9). */
  private amount(quota: number): string {
    return formatQuota(quota, { quotaPerUnit: this.options.number('QuotaPerUnit'), displayInCurrency: this.options.bool('DisplayInCurrencyEnabled') });
  }
}
