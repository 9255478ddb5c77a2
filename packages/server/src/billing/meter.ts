import { parseGroupLimits, providerInfo } from '@model-relay/contract';
import type { OptionStore } from '../options/option-store.js';
import type { ChannelRow, TokenRow, UserRow } from '../storage/schema.js';
import { checkUsage, type CheckedUsage, type UsageBounds } from './check-usage.js';
import { approximateTokens } from './count-tokens.js';
import { InsufficientQuotaError, type Reservation, type ReserveInput, type Settlement } from './ledger.js';
import { contextWindowOf, mediaBoundsFor } from './media-bounds.js';
import { searchesEveryAnswer } from './model-catalogue.js';
import { IMAGE_OUTPUT_TOKENS, outputCapFor, planReservation, type ReservationPlan } from './plan-reservation.js';
import { pricesFor, totalCostOf, type PricedSubUsage } from './pricing.js';
import { meterLogRow } from './meter-log-row.js';
import type { Finish, MeterDeps, MeteredOutcome, MeteredRequest } from './meter-types.js';
import { EMPTY_USAGE, writesAsAsked, type Usage } from './usage.js';
import { LimitExceeded, type Admission, type LimitSubject } from './usage-limits.js';

/**
 * The billing meter (docs/ledger.md, "The meter"): the relay's one crossing into billing each way. `open` admits the
 * request against the usage limits, prices every model it may be answered by, plans the reservation (the dearest
 * model's) and takes it; the relay is told the output cap to send upstream and waits on `ready` before anything
 * reaches the client. `close` checks the upstream's usage, prices it for the model that answered, builds the log row
 * and settles with the ledger exactly once, feeds the metrics and corrects the usage limits.
 */

export type { Finish, MeterDeps, MeteredEndpoint, MeteredOutcome, MeteredRequest, MeterLog, Routing } from './meter-types.js';

/** An optimistic reservation was refused before anything was written: nothing is held, nothing reached the client. */
export class ReservationRefused extends Error {}

/** Rounds a provider may take with tools it runs itself (Anthropic stops server-tool loops after 10 by default). */
const HOSTED_TOOL_ROUNDS = 10;
/** Web searches a provider may run for one answer with a search tool: a report above it is billed at it. */
const MAX_SEARCHES = HOSTED_TOOL_ROUNDS * 10;

export class BillingMeter {
  constructor(private readonly deps: MeterDeps) {}

  /**
   * Admits the request (requests and tokens per minute, before anything is reserved), plans the reservation for
   * the dearest model of the chain and takes it. A stream whose balances as last read cover the whole amount beyond
   * what this instance's other requests hold (and that no daily or monthly limit must see first) reserves while
   * the upstream is called: nothing may reach the client before `ready`. Otherwise the reservation is held when
   * `open` answers, perhaps partially, capping the output. Throws LimitExceeded or InsufficientQuotaError when the
   * request is refused (holding nothing).
   */
  async open(auth: { token: TokenRow; user: UserRow }, request: MeteredRequest): Promise<Meter> {
    const { facts } = request;
    const admission = await this.deps.limits.admit(limitSubjects(auth, this.deps.options), Math.ceil(facts.promptBound * 0.3));
    const generating = request.endpoint === 'chat' || request.endpoint === 'completions';
    const plan = request.models
      .map((m) =>
        planReservation(
          {
            model: m,
            promptBound: facts.promptBound,
            generates: generating,
            maxTokens: facts.maxTokens,
            choices: facts.choices,
            images: request.endpoint === 'images' ? facts.choices * (facts.imageSizeRatio ?? 1) : 0,
            cacheWrites: facts.cacheWrites,
            fastMode: facts.fastMode,
            audioTokens: facts.audioBound,
            searches: !generating ? 0 : searchesEveryAnswer(m) ? 1 : Math.min(facts.searchBound ?? 0, MAX_SEARCHES),
            floor: this.deps.options.number('PreConsumedQuota'),
          },
          pricesFor(this.deps.options, m, auth.user.group),
        ),
      )
      .reduce((a, b) => (b.amount > a.amount ? b : a));
    const meter = new Meter(this.deps, auth, request, admission, plan);
    if (facts.stream && meter.coveredAhead()) meter.reserve(true);
    else await meter.reserve(false);
    return meter;
  }
}

/** One request's meter, from its reservation to its settlement. */
export class Meter {
  /** The output cap per answer to send upstream (undefined: the reservation covers the whole allowance). */
  cap: number | undefined;
  private reserving!: Promise<Reservation>;
  private reservation?: Reservation;
  private optimistic = false;
  /** A reservation held in a balance slice moving to a row of its own (it runs long): settled once that is done. */
  private promoting?: Promise<void>;
  private closing?: Promise<{ charged: number; tokens: number }>;
  private readonly releaseHold: () => void;

  constructor(
    private readonly deps: MeterDeps,
    private readonly auth: { token: TokenRow; user: UserRow },
    private readonly request: MeteredRequest,
    private readonly admission: Admission,
    /** The reservation's plan: the dearest model of the chain. */
    readonly plan: ReservationPlan,
  ) {
    this.releaseHold = deps.holds.hold([`user:${auth.user.id}`, `key:${auth.token.id}`], plan.amount);
  }

  /** Output tokens per answer the upstream may write: the cap, or the plan's allowance when nothing caps it. */
  get allowance(): number {
    return this.cap ?? this.plan.outputTokens;
  }

  /**
   * Whether the key's and the user's balances as last read cover what this instance's running requests for them hold
   * (this one's amount included) and no quota limit has to see the amount first. Conservative: a balance read after
   * some of those requests reserved counts them twice, which only sends a request the careful way.
   */
  coveredAhead(): boolean {
    const { token, user } = this.auth;
    const amount = this.plan.amount;
    if (amount <= 0 || this.admission.subjects.some((s) => s.daily > 0 || s.monthly > 0)) return false;
    const keyCovered = Boolean(token.unlimited_quota) || Number(token.remain_quota) >= this.deps.holds.holding(`key:${token.id}`);
    return keyCovered && Number(user.quota) >= this.deps.holds.holding(`user:${user.id}`);
  }

  /**
   * Takes the reservation and holds it against the daily and monthly limits. Optimistic: all of the amount or
   * nothing, and a refusal is left to `confirm` (the request goes again the careful way). Careful: down to the
   * plan's minimum; a refusal releases the admission and is thrown.
   */
  reserve(optimistic: boolean): Promise<void> {
    this.optimistic = optimistic;
    this.reservation = undefined;
    this.reserving = this.take(optimistic);
    this.reserving.catch(() => undefined);
    if (optimistic) {
      this.cap = outputCapFor(this.plan, this.plan.amount, this.request.facts.choices);
      return Promise.resolve();
    }
    return this.reserving.then(
      (reservation) => {
        this.reservation = reservation;
        this.cap = outputCapFor(this.plan, reservation.amount, this.request.facts.choices);
      },
      (error: unknown) => {
        this.releaseHold();
        throw error;
      },
    );
  }

  /** Resolves once the reservation is held; nothing is written to the client, nor an upstream answer read, before. */
  readonly ready = async (): Promise<void> => {
    if (this.reservation) return;
    try {
      this.reservation = await this.reserving;
    } catch {
      throw new ReservationRefused();
    }
  };

  /**
   * After the upstream attempt: true when the reservation it ran under is held (it is to be closed). False when an
   * optimistic one was refused (nothing was held, nothing reached the client): a careful one is held now, and the
   * attempt is to run again under it. Throws, holding nothing, when the request is refused.
   */
  async confirm(): Promise<boolean> {
    if (this.reservation) return true;
    try {
      this.reservation = await this.reserving;
      return true;
    } catch (refused) {
      if (!(this.optimistic && refused instanceof InsufficientQuotaError)) {
        this.releaseHold();
        throw refused;
      }
    }
    await this.reserve(false);
    return false;
  }

  /** Whether the reservation is held (a careful one always is; an optimistic one once its commit answered). */
  get held(): boolean {
    return this.reservation !== undefined;
  }

  /**
   * How far the answer got (best effort, for a takeover's charge). A request held in a balance slice first gets a
   * reservation row of its own (ledger-slices.ts), which records it.
   */
  progress(channelId: number, deliveredChars: number): void {
    const reservation = this.reservation;
    const progress = { requestId: this.request.requestId, channelId, deliveredChars };
    if (reservation?.slice === undefined) return this.deps.ledger.progress(progress);
    if (this.promoting) return;
    const { facts } = this.request;
    const details = { model: facts.model, promptEstimate: facts.promptBound * 0.3, stream: facts.stream };
    this.promoting = this.deps.ledger.promote(reservation as Reservation & { slice: string }, details, progress).then(
      (promoted) => {
        this.reservation = promoted;
        this.promoting = undefined;
      },
      () => {
        this.promoting = undefined;
      },
    );
  }

  /**
   * Settles the reservation, exactly once (a second close answers the first's result), and answers what was charged
   * and the tokens used. The upstream's usage is checked first (check-usage.ts). Nothing may stop the settlement:
   * counting is bounded and falls back to an approximate count, and whatever else throws still ends in a settlement
   * (charging what is known), so no exception can leave quota held or a request unbilled.
   */
  close(finish: Finish): Promise<{ charged: number; tokens: number }> {
    this.closing ??= this.settle(finish);
    return this.closing;
  }

  private async settle(finish: Finish): Promise<{ charged: number; tokens: number }> {
    const { deps, request } = this;
    if (this.promoting) await this.promoting;
    const reservation = this.reservation;
    if (!reservation) throw new Error('the meter closed before its reservation was held');
    const { outcome, channel } = finish;
    let usage: Usage = EMPTY_USAGE;
    let anomalies: string[] = [];
    let settlement: Settlement = { cost: 0, served: Boolean(outcome), channelId: outcome && channel ? channel.id : 0 };
    let charged: number | undefined;
    let elapsed = Date.now() - request.started;
    const failed = !outcome && (finish.attempts.length > 0 || (finish.failure?.status ?? 0) >= 500);
    try {
      try {
        const prices = pricesFor(deps.options, finish.model, this.auth.user.group);
        if (outcome) ({ usage, anomalies } = await this.usageOf(outcome, channel));
        // Inferences on other models within the request (an advisor) are priced as their models.
        let subs: PricedSubUsage[] = [];
        let cost = 0;
        if (outcome) ({ cost, subs } = totalCostOf(usage, prices, (model) => pricesFor(deps.options, model, this.auth.user.group)));
        elapsed = Date.now() - request.started;
        settlement = {
          cost,
          served: Boolean(outcome),
          channelId: outcome && channel ? channel.id : 0,
          usageAnomaly: anomalies.length > 0,
          usage:
            outcome || failed
              ? { model: finish.model, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, cachedTokens: usage.cached_tokens ?? 0, reasoningTokens: usage.reasoning_tokens ?? 0, latencyMs: elapsed, failed: !outcome }
              : undefined,
        };
        // A request no channel answered is logged (type 5, no charge) when a channel was tried or the gateway failed it.
        if ((outcome || failed) && deps.options.bool('LogConsumeEnabled')) settlement.log = meterLogRow(this.auth, request, finish, prices, usage, anomalies, cost, elapsed, subs);
      } catch (error) {
        request.log.error({ err: error }, 'metering failed; settling what is known');
      }
      charged = await deps.ledger
        .settle(reservation, settlement)
        .catch((error: unknown) => {
          request.log.error({ err: error, reservation: reservation.requestId }, 'settlement failed; crash recovery will refund it');
          return undefined;
        });
      if (outcome || failed) this.observe(finish, usage, anomalies, charged, elapsed);
      const used = { charged: charged ?? 0, tokens: usage.prompt_tokens + usage.completion_tokens };
      await deps.limits.settle(this.admission, used);
      return used;
    } finally {
      this.releaseHold();
    }
  }

  /** The request in /metrics; a failure there is logged, never in the way of the rest of the close. */
  private observe(finish: Finish, usage: Usage, anomalies: string[], charged: number | undefined, elapsed: number): void {
    const { outcome, channel } = finish;
    const lastTried = finish.attempts.at(-1);
    try {
      this.deps.metrics?.observeRequest({
        dialect: this.request.dialect,
        model: finish.model,
        channelId: channel?.id ?? lastTried?.channel_id ?? 0,
        channelName: channel?.name ?? lastTried?.channel_name ?? '',
        outcome: outcome?.kind ?? 'failed',
        seconds: elapsed / 1000,
        firstByteSeconds: outcome?.firstByteAt ? Math.max(0, outcome.firstByteAt - this.request.started) / 1000 : undefined,
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        cachedTokens: usage.cached_tokens ?? 0,
        reasoningTokens: usage.reasoning_tokens ?? 0,
        quota: charged ?? 0,
        usageAnomaly: anomalies.length > 0,
      });
    } catch (error) {
      this.request.log.error({ err: error }, 'recording the request in the metrics failed');
    }
  }

  /** The usage to bill: what the answer was already told it is billed, or the upstream's report checked now. */
  private async usageOf(outcome: MeteredOutcome, channel: ChannelRow | undefined): Promise<CheckedUsage> {
    const checked = outcome.billed ?? (await this.bill(channel, outcome.usage, outcome.text));
    if (checked.anomalies.length > 0) this.request.log.warn({ channel: channel?.id, reported: outcome.usage, anomalies: checked.anomalies }, 'upstream usage anomaly');
    return checked;
  }

  /**
   * The usage a channel's answer is billed: the upstream's report checked against what was sent, delivered and
   * allowed (check-usage.ts), or counted when there is none. Never throws: a failed count bills an approximate one
   * within the bounds. deliver.ts asks it before the end of an answer it writes itself (a codec's), so the client is
   * told the very usage it is charged.
   */
  readonly bill = async (channel: ChannelRow | undefined, reported: Usage | undefined, delivered: string): Promise<CheckedUsage> => {
    const { deps, request } = this;
    const { facts } = request;
    const bounds = this.bounds(channel);
    const approximate = deps.options.bool('ApproximateTokenEnabled');
    const count = (texts: string[]) => (approximate ? Promise.resolve(texts.map(approximateTokens)) : deps.counter.count(texts));
    try {
      return await checkUsage(writesAsAsked(reported, facts.cacheWrites), { promptText: facts.promptText, promptChars: facts.promptBound, delivered, bounds, count, imageSizeRatio: facts.imageSizeRatio });
    } catch (error) {
      request.log.error({ err: error }, 'usage counting failed; billing an approximate count');
      return { usage: { prompt_tokens: Math.min(bounds.prompt, Math.ceil(facts.promptBound / 4)), completion_tokens: Math.min(bounds.completion, approximateTokens(delivered)) }, anomalies: [] };
    }
  };

  /**
   * The most the request could use, as the upstream was told: the prompt's upper bound (plus a context window per
   * round of provider-run tools, whose results enter the prompt, and one for a bot or knowledge base that adds its own
   * context), and the output limit sent upstream for each answer. A usage report above these is billed at them.
   */
  bounds(channel: ChannelRow | undefined): UsageBounds {
    const { facts, endpoint } = this.request;
    const rounds = facts.hostedTools ? HOSTED_TOOL_ROUNDS : 1;
    // A bot or knowledge base that answered put its own context in the prompt it bills (catalogue `addsContext`).
    const vendorContext = channel && providerInfo(channel.type).addsContext ? contextWindowOf(facts.model) : 0;
    const prompt = facts.promptBound + (facts.hostedTools ? rounds * contextWindowOf(facts.model) : 0) + vendorContext;
    const searches = facts.hostedTools || searchesEveryAnswer(facts.model) ? MAX_SEARCHES : 0;
    if (this.request.uploadBytes !== undefined) {
      // An uploaded recording: its transcript is bounded like the audio itself.
      const audio = mediaBoundsFor(facts.model).audio(this.request.uploadBytes);
      return { prompt: Math.max(prompt, audio), completion: audio };
    }
    switch (endpoint) {
      case 'chat':
      case 'completions':
        return { prompt, completion: (this.cap ?? this.plan.outputTokens) * facts.choices * rounds, searches };
      case 'embeddings':
      case 'moderations':
        return { prompt, completion: 0 };
      case 'images':
        return { prompt, completion: facts.choices * IMAGE_OUTPUT_TOKENS };
      default:
        // Speech is billed by what the upstream reports of its audio; beyond the reservation the user pays from the balance.
        return { prompt, completion: Number.MAX_SAFE_INTEGER };
    }
  }

  private async take(optimistic: boolean): Promise<Reservation> {
    const { deps, auth, admission, plan, request } = this;
    const input: ReserveInput = {
      requestId: request.requestId,
      userId: auth.user.id,
      tokenId: auth.token.id,
      unlimited: Boolean(auth.token.unlimited_quota),
      amount: plan.amount,
      minimum: optimistic ? plan.amount : plan.minimum,
      alongsideCall: optimistic,
      // For a crash takeover: bytes overstate tokens about threefold for English and Chinese alike.
      model: request.facts.model,
      promptEstimate: request.facts.promptBound * 0.3,
      stream: request.facts.stream,
      // A busy key's request may be held in a slice of the balances (no daily or monthly limit must see it first).
      sliceable: admission.subjects.some((s) => s.daily > 0 || s.monthly > 0) ? undefined : { userQuota: Number(auth.user.quota), keyQuota: Number(auth.token.remain_quota) },
    };
    let reservation: Reservation;
    try {
      reservation = await deps.ledger.reserve(input).catch(async (error: unknown) => {
        // Refused for want of quota while slices of the user's balance are out (here or on other instances): they are
        // called back first, and the reservation tried once more. (An optimistic one goes the careful way anyway.)
        if (optimistic || !(error instanceof InsufficientQuotaError) || !(await deps.ledger.recall(auth.user.id).catch(() => false))) throw error;
        return deps.ledger.reserve({ ...input, sliceable: undefined });
      });
    } catch (error) {
      if (optimistic && error instanceof InsufficientQuotaError) throw error;
      await deps.limits.settle(admission, { tokens: 0, charged: 0 });
      throw error;
    }
    // Quota per day and month, once it is known what this request holds.
    try {
      await deps.limits.hold(admission, reservation.amount);
    } catch (error) {
      await deps.ledger.settle(reservation, { cost: 0, channelId: 0, served: false });
      await deps.limits.settle(admission, { tokens: 0, charged: 0 });
      throw error;
    }
    return reservation;
  }
}

/** The key's own limits and its owner's (a user without their own takes their group's defaults, GroupLimits). */
function limitSubjects(auth: { token: TokenRow; user: UserRow }, options: OptionStore): LimitSubject[] {
  const { token, user } = auth;
  const group = options.parsed('GroupLimits', parseGroupLimits)?.[user.group] ?? {};
  const own = (value: number, fallback = 0) => (Number(value) > 0 ? Number(value) : fallback);
  return [
    { id: `key:${token.id}`, label: '令牌', rpm: own(token.rpm_limit), tpm: own(token.tpm_limit), daily: own(token.daily_quota_limit), monthly: own(token.monthly_quota_limit) },
    { id: `user:${user.id}`, label: '用户', rpm: own(user.rpm_limit, group.rpm), tpm: own(user.tpm_limit, group.tpm), daily: own(user.daily_quota_limit, group.daily), monthly: own(user.monthly_quota_limit, group.monthly) },
  ].filter((s) => s.rpm > 0 || s.tpm > 0 || s.daily > 0 || s.monthly > 0);
}

export { InsufficientQuotaError, LimitExceeded };
