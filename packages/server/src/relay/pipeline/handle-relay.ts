import { parseGroupLimits, type LogAttempt } from '@model-relay/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InsufficientQuotaError, type Reservation } from '../../billing/ledger.js';
import { outputCapFor, planReservation, type ReservationPlan } from '../../billing/plan-reservation.js';
import { pricesFor } from '../../billing/pricing.js';
import { LimitExceeded, type Admission, type LimitSubject, type UsageLimits } from '../../billing/usage-limits.js';
import type { OptionStore } from '../../options/option-store.js';
import type { ChannelRow } from '../../storage/schema.js';
import { LargeJson } from '../ingress/large-json.js';
import { RelayError } from '../relay-error.js';
import { attemptChannels, generates } from './attempt-channels.js';
import { authenticateKey, type KeyAuth } from './authenticate-key.js';
import type { DeliveryOutcome } from './deliver.js';
import { asksExactModel, modelChain } from './route-request.js';
import { settle, type Routing } from './settle.js';
import { usageBounds } from './usage-bounds.js';
import type { InFlightRequests } from './in-flight.js';
import type { IncomingCall, RelayDeps } from './types.js';

export type { IncomingCall, RelayDeps } from './types.js';

/** Longest model name taken: names are echoed in errors and logs. */
const MAX_MODEL_LENGTH = 200;

/**
 * The relay pipeline for one request: authenticate the key -> reserve quota -> (select a channel -> build
 * the upstream request, translating between dialects only when they differ -> send -> deliver, retrying on
 * another channel after a failure the client has not seen) -> settle once. The reservation is settled exactly
 * once on every path, including thrown errors, through `finally`. The channel loop is attempt-channels.ts.
 */
export function handleRelay(deps: RelayDeps, call: IncomingCall, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return deps.inFlight.track(relay(deps, call, request, reply).finally(() => release(deps, call)));
}

/** Lets go of a large body's worker copy once nothing more will be asked of it (the request has settled). */
export function release(deps: Pick<RelayDeps, 'bodies'>, read: { body: unknown }): void {
  if (read.body instanceof LargeJson) deps.bodies.release(read.body);
}

async function relay(deps: RelayDeps, call: IncomingCall, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const started = Date.now();
  const auth = await authenticateKey(deps.store, request);
  const { token, user } = auth;
  const model = call.facts.model;
  if (!model) throw new RelayError(400, '请求缺少 model 字段');
  if (model.length > MAX_MODEL_LENGTH || hasControlCharacter(model)) throw new RelayError(400, '模型名称无效');
  const scope = token.models ? token.models.split(',').map((m) => m.trim()).filter(Boolean) : [];
  if (scope.length > 0 && !scope.includes(model)) throw new RelayError(403, `该令牌无权使用模型：${model}`, 'invalid_request_error', 'model_not_allowed');

  if (call.problem) throw new RelayError(400, call.problem);

  // The model asked for, then its fallbacks, each only if a channel of the caller's group serves it. None at all is
  // the client's mistake (OpenAI: 404 model_not_found), known before anything is counted or reserved.
  const chain = auth.pinnedChannelId ? [model] : modelChain(deps.options, model, user.group, scope, asksExactModel(request.headers));
  const models = auth.pinnedChannelId ? chain : await servedModels(deps, user.group, chain);
  if (models.length === 0) throw new RelayError(404, `当前分组 ${user.group} 下没有可用于模型 ${model} 的渠道`, 'invalid_request_error', 'model_not_found');

  // Requests and tokens per minute, before anything is reserved.
  const subjects = limitSubjects(auth, deps.options);
  const admission = await admit(deps.limits, subjects, Math.ceil(call.facts.promptBound * 0.3));

  // The reservation covers whichever model of the chain answers: the plan of the dearest.
  const plan = models
    .map((m) =>
      planReservation(
        {
          model: m,
          promptBound: call.facts.promptBound,
          generates: generates(call),
          maxTokens: call.facts.maxTokens,
          choices: call.facts.choices,
          images: call.endpoint === 'images' ? call.facts.choices : 0,
          cacheWrites: call.facts.cacheWrites,
          floor: deps.options.number('PreConsumedQuota'),
        },
        pricesFor(deps.options, m, user.group),
      ),
    )
    .reduce((a, b) => (b.amount > a.amount ? b : a));
  const job: Job = { deps, call, auth, admission, models, plan, request, reply, started };
  // A stream's first byte must not wait for the reservation's commit: when the balances read with the key cover
  // the whole amount beyond what this instance's other requests for the same user and key hold (and no daily or
  // monthly limit needs the amount first), the reservation commits while the upstream is called, and nothing
  // reaches the client before it has. If it is refused after all (another instance spent the balance meanwhile),
  // the upstream call is dropped at its first event, unseen, and the request goes the careful way below. Answers
  // that are not streamed arrive whole after the generation, long after any commit: they always go the careful way.
  const release = deps.inFlight.hold([`user:${user.id}`, `key:${token.id}`], plan.amount);
  try {
    if (call.facts.stream && coveredAhead(auth, admission, plan.amount, deps.inFlight) && (await serve(job, true))) return;
    await serve(job, false);
  } finally {
    release();
  }
}

interface Job {
  deps: RelayDeps;
  call: IncomingCall;
  auth: KeyAuth;
  admission: Admission;
  /** The model asked for and the fallbacks a channel serves, in the order they are tried. */
  models: string[];
  plan: ReservationPlan;
  request: FastifyRequest;
  reply: FastifyReply;
  started: number;
}

/**
 * Whether the key's and the user's balances as last read cover what this instance's running requests for them hold
 * (this one's amount included) and no quota limit has to see the amount first. Conservative: a balance read after
 * some of those requests reserved counts them twice, which only sends a request the careful way.
 */
function coveredAhead({ token, user }: KeyAuth, admission: Admission, amount: number, inFlight: InFlightRequests): boolean {
  if (amount <= 0 || admission.subjects.some((s) => s.daily > 0 || s.monthly > 0)) return false;
  const keyCovered = Boolean(token.unlimited_quota) || Number(token.remain_quota) >= inFlight.holding(`key:${token.id}`);
  return keyCovered && Number(user.quota) >= inFlight.holding(`user:${user.id}`);
}

/** Thrown through the upstream attempt when an optimistic reservation was refused before anything was written. */
class ReservationRefused extends Error {}

/**
 * Reserves, calls the upstream and settles once. `optimistic`: reserve the whole amount while the upstream is
 * called (the first write to the client waits for it); returns false, having written nothing and held nothing,
 * when that reservation is refused. Otherwise the reservation (perhaps partial, capping the output) comes first.
 */
async function serve(job: Job, optimistic: boolean): Promise<boolean> {
  const { deps, call, auth, admission, plan, request } = job;
  const { token, user } = auth;
  const reserving = reserve(job, optimistic);
  reserving.catch(() => undefined);
  let reservation = optimistic ? undefined : await reserving;
  const ready = async () => {
    try {
      reservation ??= await reserving;
    } catch {
      throw new ReservationRefused();
    }
  };

  let outcome: DeliveryOutcome | undefined;
  let channel: ChannelRow | undefined;
  let error: unknown;
  const attempts: LogAttempt[] = [];
  const routing: Routing = { affinity: false, requested: call.facts.model, models: [] };
  const cap = outputCapFor(plan, reservation?.amount ?? plan.amount, call.facts.choices);
  let model = job.models[0];
  for (const [i, next] of job.models.entries()) {
    model = next;
    routing.models.push(next);
    try {
      ({ outcome, channel } = await attemptChannels(deps, call, next, auth, plan, cap, request, job.reply, attempts, ready, routing));
      error = undefined;
      break;
    } catch (thrown) {
      error = thrown;
      // The next model only when this one failed in a way another could fix (each channel failed and could be retried).
      if (i === job.models.length - 1 || !(thrown instanceof RelayError && (thrown as RelayError & { retry?: boolean }).retry)) break;
    }
  }
  if (!reservation) {
    try {
      reservation = await reserving;
    } catch (refused) {
      // Nothing was held, and nothing reached the client: every write waits for `ready`.
      if (refused instanceof InsufficientQuotaError) return false;
      throw refused;
    }
  }
  try {
    if (error) throw error;
  } finally {
    const failure = outcome ? undefined : error instanceof RelayError ? { message: error.message, status: error.status } : { message: '网关内部错误', status: 500 };
    const bounds = usageBounds(call, plan, cap, channel);
    const prices = pricesFor(deps.options, model, user.group);
    const used = await settle(deps, request, { reservation, prices, facts: call.facts, model, routing, outcome, channel, user, token, requestId: request.id, started: job.started, dialect: dialectLabel(call), attempts, failure, bounds });
    await deps.limits.settle(admission, used);
  }
  return true;
}

/**
 * Takes the reservation and holds it against the daily and monthly limits. Optimistic: all of the amount or
 * nothing, and a refusal is left to the caller (it retries the careful way). Careful: down to the plan's
 * minimum; a refusal releases the admission and answers the client.
 */
async function reserve({ deps, call, auth, admission, plan, request }: Job, optimistic: boolean): Promise<Reservation> {
  let reservation: Reservation;
  try {
    reservation = await deps.ledger.reserve({
      requestId: request.id,
      userId: auth.user.id,
      tokenId: auth.token.id,
      unlimited: Boolean(auth.token.unlimited_quota),
      amount: plan.amount,
      minimum: optimistic ? plan.amount : plan.minimum,
      // For a crash takeover: bytes overstate tokens about threefold for English and Chinese alike.
      model: call.facts.model,
      promptEstimate: call.facts.promptBound * 0.3,
      stream: call.facts.stream,
    });
  } catch (error) {
    if (optimistic && error instanceof InsufficientQuotaError) throw error;
    await deps.limits.settle(admission, { tokens: 0, charged: 0 });
    if (error instanceof InsufficientQuotaError) throw new RelayError(429, error.message, 'insufficient_quota', 'insufficient_quota');
    throw error;
  }
  // Quota per day and month, once it is known what this request holds.
  try {
    await deps.limits.hold(admission, reservation.amount);
  } catch (error) {
    await deps.ledger.settle(reservation, { cost: 0, channelId: 0, served: false });
    await deps.limits.settle(admission, { tokens: 0, charged: 0 });
    throw error instanceof LimitExceeded ? limitError(error) : error;
  }
  return reservation;
}

/** The key's own limits and its owner's (a user without their own takes their group's defaults, GroupLimits). */
function limitSubjects(auth: KeyAuth, options: OptionStore): LimitSubject[] {
  const { token, user } = auth;
  const group = parseGroupLimits(options.get('GroupLimits'))?.[user.group] ?? {};
  const own = (value: number, fallback = 0) => Number(value) > 0 ? Number(value) : fallback;
  return [
    { id: `key:${token.id}`, label: '令牌', rpm: own(token.rpm_limit), tpm: own(token.tpm_limit), daily: own(token.daily_quota_limit), monthly: own(token.monthly_quota_limit) },
    { id: `user:${user.id}`, label: '用户', rpm: own(user.rpm_limit, group.rpm), tpm: own(user.tpm_limit, group.tpm), daily: own(user.daily_quota_limit, group.daily), monthly: own(user.monthly_quota_limit, group.monthly) },
  ].filter((s) => s.rpm > 0 || s.tpm > 0 || s.daily > 0 || s.monthly > 0);
}

async function admit(limits: UsageLimits, subjects: LimitSubject[], tokens: number): Promise<Admission> {
  try {
    return await limits.admit(subjects, tokens);
  } catch (error) {
    throw error instanceof LimitExceeded ? limitError(error) : error;
  }
}

/** The models of a chain that a channel of the group serves. */
async function servedModels(deps: RelayDeps, group: string, chain: string[]): Promise<string[]> {
  const served: string[] = [];
  for (const model of chain) if ((await deps.store.candidates(group, model)).length > 0) served.push(model);
  return served;
}

/** OpenAI's shape for a rate limit: 429, type `requests` / code `rate_limit_exceeded`, with Retry-After. */
const limitError = (error: LimitExceeded) => new RelayError(429, error.message, 'requests', 'rate_limit_exceeded', { 'retry-after': String(error.retryAfter) });

/** The client dialect as logged: the conversation dialect, or the OpenAI endpoint for OpenAI's other APIs. */
const dialectLabel = (call: IncomingCall) => (call.endpoint === 'chat' ? call.dialect.name : `openai-${call.endpoint}`);

const hasControlCharacter = (text: string) => [...text].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127);
