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
  /**
   * When the minute windows that counted the estimated tokens end (by counter, milliseconds on this instance's
   * clock): a settlement takes back an estimate that was too high only from the window that holds it.
   */
  windowEnds?: Map<string, number>;
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
  /**
   * Only for a window ending then (ms; see Admission.windowEnds): a counter whose window ends later is a new
   * window, which this change must not touch.
   */
  endsAt?: number;
}

/** How far apart two readings of one window's end may be (the round trips between them) and still be the same window. */
const SAME_WINDOW_MS = 1_000;

/** The counter that refused a step, and the milliseconds until its window ends. */
interface Refusal {
  change: Change;
  msLeft: number;
}

/**
 * Every counter of a step in one script, so a step is one round trip and all or nothing: when asked to check, it
 * first checks every counter and adds to none unless all have room; then it adds to all of them. A counter is
 * created with the lifetime of its window on first use and keeps it (fixed windows, like rate-limiter-flexible's
 * counters, whose keys and values these are). A counter never goes below zero, and a change that names the end of
 * its window (a settlement taking back part of an estimate) is left out when that window has ended: the counter
 * there now is a later window's, which never counted the estimate. It answers the position (from 1) of the
 * counter that refused and the milliseconds left in its window, or 0, 0 and then each counter's milliseconds left
 * when the step was applied.
 * KEYS: the counters. ARGV[1]: '1' to check first; ARGV[2]: now (ms, the instance's clock). Then per counter:
 * amount, limit, lifetime in seconds, the end of its window or 0.
 */
const COUNTERS_SCRIPT = `
local now = tonumber(ARGV[2])
if ARGV[1] == '1' then
  for i = 1, #KEYS do
    local base = 2 + (i - 1) * 4
    local current = tonumber(redis.call('get', KEYS[i]) or '0')
    if current + tonumber(ARGV[base + 1]) > tonumber(ARGV[base + 2]) then
      local left = redis.call('pttl', KEYS[i])
      if left < 0 then left = tonumber(ARGV[base + 3]) * 1000 end
      return {i, left}
    end
  end
end
local answer = {0, 0}
for i = 1, #KEYS do
  local base = 2 + (i - 1) * 4
  local lifetime = ARGV[base + 3]
  local ends = tonumber(ARGV[base + 4])
  local left = redis.call('pttl', KEYS[i])
  if ends == 0 or (left > 0 and now + left <= ends + ${SAME_WINDOW_MS}) then
    redis.call('set', KEYS[i], 0, 'EX', lifetime, 'NX')
    if redis.call('incrby', KEYS[i], ARGV[base + 1]) < 0 then redis.call('set', KEYS[i], 0, 'KEEPTTL') end
    left = redis.call('pttl', KEYS[i])
    if left == -1 then
      redis.call('expire', KEYS[i], lifetime)
      left = tonumber(lifetime) * 1000
    end
  end
  answer[i + 2] = left
end
return answer
`;

type CountersCommand = (numberOfKeys: number, ...args: Array<string | number>) => Promise<number[]>;
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
    const left = await this.take(changes);
    const now = this.now().getTime();
    // Made only when a token limit counted something: the admission lives as long as its request (a stream's minutes).
    let windowEnds: Map<string, number> | undefined;
    changes.forEach((change, i) => change.key.startsWith('mr:limit:tpm:') && left[i] > 0 && (windowEnds ??= new Map()).set(change.key, now + left[i]));
    return { subjects, tokens, quota: 0, windowEnds };
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
      if (subject.tpm <= 0 || tokens === 0) continue;
      const change = this.change('tpm', subject, 'minute', tokens, subject.tpm, '');
      // Fewer tokens than estimated: taken back from the window that counted the estimate, if it has not ended.
      // More: counted now, in whichever window is running.
      if (tokens < 0) change.endsAt = admission.windowEnds?.get(change.key) ?? 0;
      changes.push(change);
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

  /**
   * Adds every change or, when one of the limits would be passed, none, and throws the first such limit's refusal.
   * Answers each counter's milliseconds left in its window.
   */
  private async take(changes: Change[]): Promise<number[]> {
    const { refusal, left } = await this.apply(changes, true);
    if (!refusal) return left;
    const { change, msLeft } = refusal;
    const retryAfter = change.window === 'minute' ? Math.max(1, Math.ceil(msLeft / 1000)) : this.untilPeriodEnds(change.window);
    throw new LimitExceeded(change.message, retryAfter);
  }

  private async apply(changes: Change[], check: boolean): Promise<{ refusal?: Refusal; left: number[] }> {
    if (changes.length === 0) return { left: [] };
    const now = this.now().getTime();
    if (!this.redis) return this.memory.apply(changes, check, now);
    const args: Array<string | number> = [check ? 1 : 0, now];
    for (const change of changes) args.push(change.amount, change.limit, LIFETIME[change.window], change.endsAt ?? 0);
    try {
      const command = (this.redis as unknown as Record<typeof COMMAND, CountersCommand>)[COMMAND];
      const [refused, msLeft, ...left] = await command.call(this.redis, changes.length, ...changes.map((c) => c.key), ...args);
      return refused > 0 ? { refusal: { change: changes[refused - 1], msLeft: Number(msLeft) }, left: [] } : { left: left.map(Number) };
    } catch (error) {
      this.onError(error);
      return { left: [] };
    }
  }
}

/** A whole, finite amount: Redis counts integers, and a step must not fail halfway on a fraction. */
const whole = (amount: number): number => (Number.isFinite(amount) ? Math.ceil(amount) : 0);

/** The counters of a single instance: what the script does in Redis, on a Map whose entries expire with their windows. */
class MemoryCounters {
  private readonly counters = new Map<string, { value: number; endsAt: number }>();
  private lastSweep = 0;

  apply(changes: Change[], check: boolean, now: number): { refusal?: Refusal; left: number[] } {
    if (now - this.lastSweep > 60_000) this.sweep(now);
    if (check) {
      for (const change of changes) {
        const counter = this.live(change.key, now);
        if ((counter?.value ?? 0) + change.amount > change.limit) return { refusal: { change, msLeft: counter ? counter.endsAt - now : LIFETIME[change.window] * 1000 }, left: [] };
      }
    }
    const left = changes.map((change) => {
      let counter = this.live(change.key, now);
      // A correction for a window that has ended leaves the later window alone.
      if (change.endsAt && (!counter || counter.endsAt > change.endsAt + SAME_WINDOW_MS)) return counter ? counter.endsAt - now : 0;
      if (!counter) this.counters.set(change.key, (counter = { value: 0, endsAt: now + LIFETIME[change.window] * 1000 }));
      counter.value = Math.max(0, counter.value + change.amount);
      return counter.endsAt - now;
    });
    return { left };
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
