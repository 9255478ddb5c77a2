import { LogType, Role } from '@model-relay/contract';
import type { Kysely } from 'kysely';
import { request } from 'undici';
import { optional } from '../lib/optional-modules.js';
import type { OptionStore } from '../options/option-store.js';
import type { LogsRepository } from '../storage/repositories/logs.js';
import type { Database } from '../storage/schema.js';

/**
 * Notices to the super admin (channel disabled / enabled, ...): always a system log row (type 4), then one
 * delivery: through Message Pusher when its address is set, and by e-mail to every super admin with an
 * address when Message Pusher is not set up or fails (one-api's order). Delivery failures are reported,
 * never thrown: a notice must not break the request that caused it.
 */
export class Notifier {
  constructor(
    private readonly db: Kysely<Database>,
    /** The logs table's writer (the notice's system log row). */
    private readonly logs: LogsRepository,
    private readonly options: OptionStore,
    private readonly onError: (error: unknown, what: string) => void = () => undefined,
  ) {}

  async notifyRoot(subject: string, content: string): Promise<void> {
    await this.logs.insert({ type: LogType.System, username: '', created_at: Math.floor(Date.now() / 1000), quota: 0, content });
    if (this.options.get('MessagePusherAddress')) {
      try {
        await this.pushMessage(subject, content);
        return;
      } catch (error) {
        this.onError(error, 'Message Pusher');
      }
    }
    const roots = await this.db.selectFrom('users').select('email').where('role', '>=', Role.Root).where('email', '!=', '').execute();
    const results = await Promise.allSettled(roots.map((root) => this.sendMail(root.email, subject, content)));
    for (const result of results) if (result.status === 'rejected') this.onError(result.reason, 'notify');
  }

  /** Sends one e-mail through the configured SMTP server. */
  async sendMail(to: string, subject: string, text: string, html?: string): Promise<void> {
    const server = this.options.get('SMTPServer');
    if (!server) throw new Error('SMTP 服务器未配置');
    const port = this.options.number('SMTPPort') || 587;
    const account = this.options.get('SMTPAccount');
    const transport = optional.nodemailer().createTransport({
      host: server,
      port,
      secure: port === 465,
      auth: account ? { user: account, pass: this.options.get('SMTPToken') } : undefined,
      // Local and self-signed relays are common on self-hosted installs.
      tls: { rejectUnauthorized: false },
    });
    const from = this.options.get('SMTPFrom') || account;
    const systemName = this.options.get('SystemName');
    await transport.sendMail({ from: `${systemName} <${from}>`, to, subject: `[${systemName}] ${subject}`, text, html });
  }

  private async pushMessage(title: string, content: string): Promise<void> {
    const response = await request(this.options.get('MessagePusherAddress'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title, description: content, content, url: '', channel: '', token: this.options.get('MessagePusherToken') }),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await response.body.text();
    if (response.statusCode >= 400) throw new Error(`Message Pusher 返回 HTTP ${response.statusCode}`);
    // Message Pusher answers {success, message}; a refusal (wrong token, unknown channel) comes as HTTP 200.
    let answer: { success?: unknown; message?: unknown } | undefined;
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      answer = undefined;
    }
    if (answer?.success === false) throw new Error(`Message Pusher 拒绝了消息：${String(answer.message ?? '')}`);
  }
}
