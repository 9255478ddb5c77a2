import type { Redis } from 'ioredis';

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
  /**
   * The day and month counters the quota was held against: the settlement corrects these, not the ones of the day
   * it runs (a request held before midnight and settled after it).
   */
  held?: Array<{ key: string; window: 'day' | 'month' }>;
}

type Window = 'minute' | 'day' | 'month';

/** How long a counter lives: a minute window, or a little past its calendar period (the period is in its key). */
const LIFETIME: Record<Window, number> = { minute: 60, day: 2 * 86_400, month: 32 * 86_400 };

/** One counter a step changes: by how much and, when the step checks, the limit it may not pass. */
interface Change {
  key: string;
  window: Window;
  amount: number;
  limit: number;
  /** The refusal when this counter is the one that is full. */
  message: string;
}

/** The counter that refused a step, and the milliseconds until its window ends. */
interface Refusal {
  change: Change;
  msLeft: number;
}

/**
 * Every counter of a step in one script, so a step is one round trip and all or nothing: when asked to check, it
 * first checks every counter and adds to none unless all have room; then it adds to all of them. A counter is
 * created with the lifetime of its window on first use and keeps it (fixed windows, like rate-limiter-flexible's
 * counters, whose keys and values these are). It answers the position (from 1) of the counter that refused and
 * the milliseconds left in its window, or 0 when the step was applied.
 * KEYS: the counters. ARGV[1]: '1' to check first. Then per counter: amount, limit, lifetime in seconds.
 */
const COUNTERS_SCRIPT = `
if ARGV[1] == '1' then
  for i = 1, #KEYS do
    local current = tonumber(redis.call('get', KEYS[i]) or '0')
    if current + tonumber(ARGV[i * 3 - 1]) > tonumber(ARGV[i * 3]) then
      local left = redis.call('pttl', KEYS[i])
      if left < 0 then left = tonumber(ARGV[i * 3 + 1]) * 1000 end
      return {i, left}
    end
  end
end
for i = 1, #KEYS do
  local lifetime = ARGV[i * 3 + 1]
  redis.call('set', KEYS[i], 0, 'EX', lifetime, 'NX')
  redis.call('incrby', KEYS[i], ARGV[i * 3 - 1])
  if redis.call('pttl', KEYS[i]) == -1 then redis.call('expire', KEYS[i], lifetime) end
end
return {0, 0}
`;

type CountersCommand = (numberOfKeys: number, ...args: Array<string | number>) => Promise<[number, number]>;
const COMMAND = 'mrLimitCounters';

/**
 * Requests and tokens per minute, quota per day and month, for keys and users. Counted in Redis when it is
 * configured (every instance counts in the same place, each step one atomic script, so a concurrent burst cannot
 * pass a limit on any mix of instances, nor is a request refused because another one being refused counted for a
 * moment), in memory otherwise.
 *
 * Each request takes one request and its estimated tokens at admission, and the quota it reserved once the
 * ledger reserved it; its settlement corrects tokens and quota to what it really used. When the store cannot
 * be reached the limits let requests through (money is still guarded by the ledger) and say so in the log.
 */
export class UsageLimits {
  private readonly memory = new MemoryCounters();

  constructor(
    private readonly redis: Redis | undefined,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {
    if (redis && typeof (redis as unknown as Record<string, unknown>)[COMMAND] !== 'function') redis.defineCommand(COMMAND, { lua: COUNTERS_SCRIPT });
  }

  /** Takes one request and `tokens` for every subject, or none of them; throws LimitExceeded when a limit is reached. */
  async admit(subjects: LimitSubject[], tokens: number): Promise<Admission> {
    tokens = whole(tokens);
    const changes: Change[] = [];
    for (const subject of subjects) {
      if (subject.rpm > 0) changes.push(this.change('rpm', subject, 'minute', 1, subject.rpm, `${subject.label}每分钟请求次数已达上限（${subject.rpm}）`));
      if (subject.tpm > 0 && tokens > 0) changes.push(this.change('tpm', subject, 'minute', tokens, subject.tpm, `${subject.label}每分钟 token 数已达上限（${subject.tpm}）`));
    }
    await this.take(changes);
    return { subjects, tokens, quota: 0 };
  }

  /** Holds the reserved quota against the daily and monthly limits; throws LimitExceeded (holding nothing) when it would pass one. */
  async hold(admission: Admission, quota: number): Promise<void> {
    quota = whole(quota);
    const changes: Change[] = [];
    for (const subject of admission.subjects) {
      for (const [window, limit, name] of [['day', subject.daily, '每日'], ['month', subject.monthly, '每月']] as const) {
        if (limit > 0 && quota > 0) changes.push(this.change('quota', subject, window, quota, limit, `${subject.label}${name}额度已达上限`));
      }
    }
    await this.take(changes);
    admission.quota = quota;
    admission.held = changes.map(({ key, window }) => ({ key, window: window === 'month' ? 'month' : 'day' }));
  }

  /** Corrects the counters to what the request really used (tokens in and out, quota charged). */
  async settle(admission: Admission, used: { tokens: number; charged: number }): Promise<void> {
    const tokens = whole(used.tokens) - admission.tokens;
    const quota = whole(used.charged) - admission.quota;
    const changes: Change[] = [];
    for (const subject of admission.subjects) {
      if (subject.tpm > 0 && tokens !== 0) changes.push(this.change('tpm', subject, 'minute', tokens, subject.tpm, ''));
    }
    if (quota !== 0 && admission.quota > 0) {
      // Corrected on the counters the quota was held on (their lifetime is only a fallback: they exist already).
      for (const { key, window } of admission.held ?? []) changes.push({ key, window, amount: quota, limit: 0, message: '' });
    }
    // A settlement only corrects what was counted: it never refuses, and a failure is only logged.
    await this.apply(changes, false);
  }

  private change(kind: string, subject: LimitSubject, window: Window, amount: number, limit: number, message: string): Change {
    return { key: `mr:limit:${kind}:${window}:${this.key(subject, window)}`, window, amount, limit, message };
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

  /** Adds every change or, when one of the limits would be passed, none, and throws the first such limit's refusal. */
  private async take(changes: Change[]): Promise<void> {
    const refusal = await this.apply(changes, true);
    if (!refusal) return;
    const { change, msLeft } = refusal;
    const retryAfter = change.window === 'minute' ? Math.max(1, Math.ceil(msLeft / 1000)) : this.untilPeriodEnds(change.window);
    throw new LimitExceeded(change.message, retryAfter);
  }

  private async apply(changes: Change[], check: boolean): Promise<Refusal | undefined> {
    if (changes.length === 0) return undefined;
    if (!this.redis) return this.memory.apply(changes, check, this.now().getTime());
    const args: Array<string | number> = [check ? 1 : 0];
    for (const change of changes) args.push(change.amount, change.limit, LIFETIME[change.window]);
    try {
      const command = (this.redis as unknown as Record<typeof COMMAND, CountersCommand>)[COMMAND];
      const [refused, msLeft] = await command.call(this.redis, changes.length, ...changes.map((c) => c.key), ...args);
      return refused > 0 ? { change: changes[refused - 1], msLeft: Number(msLeft) } : undefined;
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }
}

/** A whole, finite amount: Redis counts integers, and a step must not fail halfway on a fraction. */
const whole = (amount: number): number => (Number.isFinite(amount) ? Math.ceil(amount) : 0);

/** The counters of a single instance: what the script does in Redis, on a Map whose entries expire with their windows. */
class MemoryCounters {
  private readonly counters = new Map<string, { value: number; endsAt: number }>();
  private lastSweep = 0;

  apply(changes: Change[], check: boolean, now: number): Refusal | undefined {
    if (now - this.lastSweep > 60_000) this.sweep(now);
    if (check) {
      for (const change of changes) {
        const counter = this.live(change.key, now);
        if ((counter?.value ?? 0) + change.amount > change.limit) return { change, msLeft: counter ? counter.endsAt - now : LIFETIME[change.window] * 1000 };
      }
    }
    for (const change of changes) {
      let counter = this.live(change.key, now);
      if (!counter) this.counters.set(change.key, (counter = { value: 0, endsAt: now + LIFETIME[change.window] * 1000 }));
      counter.value += change.amount;
    }
    return undefined;
  }

  private live(key: string, now: number) {
    const counter = this.counters.get(key);
    return counter && counter.endsAt > now ? counter : undefined;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, counter] of this.counters) if (counter.endsAt <= now) this.counters.delete(key);
  }
}
