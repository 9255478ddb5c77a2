import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** The limits of one key or one user; 0 means none. Quota limits are per calendar day and month (server time). */
export interface LimitSubject {
  /** 'key:<id>' or 'user:<id>': whose counters these are. */
  id: string;
  /** Shown in the refusal: 令牌 or 用户. */
  label: string;
  rpm: number;
  tpm: number;
  daily: number;
  monthly: number;
}

/** A limit was reached: an OpenAI-style 429 with Retry-After follows. */
export class LimitExceeded extends Error {
  constructor(
    message: string,
    /** Seconds until the limit admits again. */
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

/** What a request holds against the limits between admission and settlement. */
export interface Admission {
  subjects: LimitSubject[];
  tokens: number;
  quota: number;
}

type Window = 'minute' | 'day' | 'month';

/**
 * Requests and tokens per minute, quota per day and month, for keys and users. Counted with
 * rate-limiter-flexible: in Redis when it is configured (every instance counts in the same place, each step an
 * atomic script, so a concurrent burst cannot pass a limit on any mix of instances), in memory otherwise.
 *
 * Each request takes one request and its estimated tokens at admission, and the quota it reserved once the
 * ledger reserved it; its settlement corrects tokens and quota to what it really used. When the store cannot
 * be reached the limits let requests through (money is still guarded by the ledger) and say so in the log.
 */
export class UsageLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly redis: Redis | undefined,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Takes one request and `tokens` for every subject, or none of them; throws LimitExceeded when a limit is reached. */
  async admit(subjects: LimitSubject[], tokens: number): Promise<Admission> {
    const admission: Admission = { subjects, tokens: 0, quota: 0 };
    const taken: Array<() => Promise<unknown>> = [];
    try {
      for (const subject of subjects) {
        if (subject.rpm > 0) {
          await this.take('rpm', subject, 'minute', subject.rpm, 1, `${subject.label}每分钟请求次数已达上限（${subject.rpm}）`);
          taken.push(() => this.give('rpm', subject, 'minute', subject.rpm, 1));
        }
        if (subject.tpm > 0 && tokens > 0) {
          await this.take('tpm', subject, 'minute', subject.tpm, tokens, `${subject.label}每分钟 token 数已达上限（${subject.tpm}）`);
          taken.push(() => this.give('tpm', subject, 'minute', subject.tpm, tokens));
        }
      }
    } catch (error) {
      await Promise.all(taken.map((undo) => undo()));
      throw error;
    }
    admission.tokens = tokens;
    return admission;
  }

  /** Holds the reserved quota against the daily and monthly limits; throws LimitExceeded (holding nothing) when it would pass one. */
  async hold(admission: Admission, quota: number): Promise<void> {
    const taken: Array<() => Promise<unknown>> = [];
    try {
      for (const subject of admission.subjects) {
        for (const [window, limit, name] of [['day', subject.daily, '每日'], ['month', subject.monthly, '每月']] as const) {
          if (limit <= 0 || quota <= 0) continue;
          await this.take('quota', subject, window, limit, quota, `${subject.label}${name}额度已达上限`);
          taken.push(() => this.give('quota', subject, window, limit, quota));
        }
      }
    } catch (error) {
      await Promise.all(taken.map((undo) => undo()));
      throw error;
    }
    admission.quota = quota;
  }

  /** Corrects the counters to what the request really used (tokens in and out, quota charged). */
  async settle(admission: Admission, used: { tokens: number; charged: number }): Promise<void> {
    for (const subject of admission.subjects) {
      if (subject.tpm > 0) await this.adjust('tpm', subject, 'minute', subject.tpm, used.tokens - admission.tokens);
      for (const [window, limit] of [['day', subject.daily], ['month', subject.monthly]] as const) {
        if (limit > 0 && admission.quota > 0) await this.adjust('quota', subject, window, limit, used.charged - admission.quota);
      }
    }
  }

  private limiter(kind: string, window: Window, points: number): RateLimiterAbstract {
    const name = `${kind}:${window}:${points}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      // A day or month counter lives a little past its period; the period is in its key.
      const duration = window === 'minute' ? 60 : window === 'day' ? 2 * 86_400 : 32 * 86_400;
      const options = { keyPrefix: `mr:limit:${kind}:${window}`, points, duration };
      limiter = this.redis ? new RateLimiterRedis({ ...options, storeClient: this.redis }) : new RateLimiterMemory(options);
      this.limiters.set(name, limiter);
    }
    return limiter;
  }

  private key(subject: LimitSubject, window: Window): string {
    const now = this.now();
    if (window === 'minute') return subject.id;
    const period = window === 'day' ? `${now.getFullYear()}-${now.getMonth() + 1}-${now.getDate()}` : `${now.getFullYear()}-${now.getMonth() + 1}`;
    return `${subject.id}:${period}`;
  }

  /** Seconds until the current day or month ends (the quota limits are calendar periods). */
  private untilPeriodEnds(window: Window): number {
    const now = this.now();
    const end = window === 'day' ? new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1) : new Date(now.getFullYear(), now.getMonth() + 1, 1);
    return Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
  }

  private async take(kind: string, subject: LimitSubject, window: Window, points: number, amount: number, message: string): Promise<void> {
    try {
      await this.limiter(kind, window, points).consume(this.key(subject, window), amount);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) return this.onError(error);
      // Refused: what this attempt added is taken back, so a refused request does not count against the limit.
      await this.give(kind, subject, window, points, amount);
      const retryAfter = window === 'minute' ? Math.max(1, Math.ceil(error.msBeforeNext / 1000)) : this.untilPeriodEnds(window);
      throw new LimitExceeded(message, retryAfter);
    }
  }

  private async give(kind: string, subject: LimitSubject, window: Window, points: number, amount: number): Promise<void> {
    await this.limiter(kind, window, points)
      .reward(this.key(subject, window), amount)
      .catch((error: unknown) => this.onError(error));
  }

  private async adjust(kind: string, subject: LimitSubject, window: Window, points: number, difference: number): Promise<void> {
    if (difference === 0) return;
    const limiter = this.limiter(kind, window, points);
    const key = this.key(subject, window);
    await (difference > 0 ? limiter.penalty(key, difference) : limiter.reward(key, -difference)).catch((error: unknown) => this.onError(error));
  }
}
