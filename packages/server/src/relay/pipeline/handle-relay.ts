import type { RelayRequest, RelayReply } from './types.js';
import type { LogAttempt } from '@model-relay/contract';
import { InsufficientQuotaError, LimitExceeded, type Finish, type Meter, type Routing } from '../../billing/meter.js';
import type { ChannelRow } from '../../storage/schema.js';
import { LargeJson } from '../ingress/large-json.js';
import { RelayError } from '../relay-error.js';
import { attemptChannels } from './attempt-channels.js';
import { authenticateKey, type KeyAuth } from './authenticate-key.js';
import type { DeliveryOutcome, Streaming } from './delivery-types.js';
import { asksExactModel, modelChain } from './route-request.js';
import { isUpload, type IncomingCall, type RelayDeps } from './types.js';

export type { IncomingCall, RelayDeps } from './types.js';

/** Longest model name taken: names are echoed in errors and logs. */
const MAX_MODEL_LENGTH = 200;

/**
 * The relay pipeline for one request: authenticate the key -> open the billing meter (admission, plan, reservation)
 * -> (select a channel -> build the upstream request, translating between dialects only when they differ -> send ->
 * deliver, retrying on another channel after a failure the client has not seen) -> close the meter once (usage,
 * cost, log row, settlement). The meter is closed exactly once on every path, including thrown errors, through
 * `finally`. The channel loop is attempt-channels.ts; billing is billing/meter.ts.
 */
export async function handleRelay(deps: RelayDeps, call: IncomingCall, request: RelayRequest, reply: RelayReply): Promise<void> {
  // Only a large body's worker copy is kept for the end of the request, never the call itself (its body).
  const large = call.body instanceof LargeJson ? call.body : undefined;
  const { inFlight } = deps;
  inFlight.begin();
  // A stream under way: the request is done here (the answer is written around it) and runs on until the stream
  // has been settled, which then calls `done`; the one function `end` when there is no large body to let go of.
  const done = large ? () => (inFlight.end(), deps.bodies.release(large)) : inFlight.end;
  let streaming = false;
  try {
    streaming = await relay(deps, call, request, reply, done);
  } finally {
    if (!streaming) done();
  }
}

/** Lets go of a large body's worker copy once nothing more will be asked of it (the request has settled). */
export function release(deps: Pick<RelayDeps, 'bodies'>, read: { body: unknown }): void {
  if (read.body instanceof LargeJson) deps.bodies.release(read.body);
}

/** Serves the request; answers true for a stream under way, which calls `settled` once it has been settled. */
async function relay(deps: RelayDeps, call: IncomingCall, request: RelayRequest, reply: RelayReply, settled: () => void): Promise<boolean> {
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

  // Admission against the usage limits, the reservation's plan (the dearest model of the chain) and the reservation
  // itself: billing's half, in one call (billing/meter.ts). A stream whose balance plainly covers it reserves while
  // the upstream is called, and nothing reaches the client before it has (`meter.ready`); if that reservation is
  // refused after all (another instance spent the balance meanwhile), the upstream call is dropped at its first
  // event, unseen, and the request goes again under a careful reservation.
  const meter = await deps.meter
    .open(auth, {
      requestId: request.id,
      started,
      endpoint: call.endpoint,
      dialect: dialectLabel(call),
      models,
      facts: call.facts,
      uploadBytes: isUpload(call.body) ? call.body.raw.length : undefined,
      log: request.log,
    })
    .catch(refusal);
  const job: Job = { deps, call, auth, meter, models, request, reply, settled };
  const served = (await serve(job)) || (await serve(job));
  // A stream under way: this frame ends here, and the stream's settlement tells the caller when it is done.
  return served === 'streaming';
}

interface Job {
  deps: RelayDeps;
  call: IncomingCall;
  auth: KeyAuth;
  meter: Meter;
  /** The model asked for and the fallbacks a channel serves, in the order they are tried. */
  models: string[];
  request: RelayRequest;
  reply: RelayReply;
  /** Called once a stream under way has been settled. */
  settled: () => void;
}

/**
 * Calls the upstream under the meter's reservation (each model of the chain in turn) and closes the meter once.
 * Returns false, having closed nothing and written nothing, when an optimistic reservation was refused: the meter
 * then holds a careful one, and the attempt is to run again. A stream under way is not waited for: the answer is
 * its settlement, the meter's close once the stream has ended.
 */
async function serve(job: Job): Promise<boolean | 'streaming'> {
  const { deps, call, auth, meter, request } = job;
  let outcome: DeliveryOutcome | Streaming | undefined;
  let channel: ChannelRow | undefined;
  let error: unknown;
  const attempts: LogAttempt[] = [];
  const routing: Routing = { affinity: false, requested: call.facts.model, models: job.models.slice(0, 1) };
  let model = job.models[0];
  for (const [i, next] of job.models.entries()) {
    model = next;
    // The models tried so far, as an array of their own size: a stream keeps it until it ends (pushed onto `[]`, it
    // would hold room for 17).
    if (i > 0) routing.models = job.models.slice(0, i + 1);
    try {
      ({ outcome, channel } = await attemptChannels(deps, call, next, auth, meter, request, job.reply, attempts, routing));
      error = undefined;
      break;
    } catch (thrown) {
      error = thrown;
      // The next model only when this one failed in a way another could fix (each channel failed and could be retried).
      if (i === job.models.length - 1 || !(thrown instanceof RelayError && (thrown as RelayError & { retry?: boolean }).retry)) break;
    }
  }
  // Nothing was held, and nothing reached the client, when an optimistic reservation was refused: every write waits for `ready`.
  if (!meter.held && !(await meter.confirm().catch(refusal))) return false;
  if (outcome?.kind === 'streaming') {
    settleStream(meter, outcome, { model, channel, routing, attempts }, request.log, job.settled);
    return 'streaming';
  }
  try {
    if (error) throw error;
  } finally {
    await meter.close({ model, outcome, channel, routing, attempts, failure: outcome ? undefined : failureOf(error) });
  }
  return true;
}

/**
 * Closes the meter once a stream has ended, as `serve` does after an answer it waited for. Made outside `serve` so
 * that the stream holds only what settlement needs, not the request's whole job. Never rejects: a fault while the
 * stream ran (the client has its answer, or part of it) is settled like one thrown before it and logged.
 */
function settleStream(meter: Meter, streaming: Streaming, finish: Omit<Finish, 'outcome' | 'failure'>, log: RelayRequest['log'], settled: () => void): void {
  const { ends } = streaming;
  void streaming.finished.then(
    (outcome) => {
      endSteps(ends, outcome, log);
      return closeLogged(meter, { ...finish, outcome }, log, settled);
    },
    (error: unknown) => {
      endSteps(ends, undefined, log);
      log.error({ err: error }, 'stream failed');
      return closeLogged(meter, { ...finish, channel: undefined, outcome: undefined, failure: failureOf(error) }, log, settled);
    },
  );
}

/** The layers' steps at a stream's end (`Streaming.ends`): a fault of theirs is logged, and the settlement goes on. */
function endSteps(ends: Streaming['ends'], outcome: DeliveryOutcome | undefined, log: RelayRequest['log']): void {
  try {
    ends?.(outcome);
  } catch (error) {
    log.error({ err: error }, 'stream end step failed');
  }
}

/** Closes the meter of a stream, logging (not throwing) a fault: nobody is left to answer. Then `settled`, whatever happened. */
function closeLogged(meter: Meter, finish: Finish, log: RelayRequest['log'], settled: () => void): Promise<void> {
  return meter.close(finish).then(settled, (error: unknown) => {
    log.error({ err: error }, 'stream settlement failed');
    settled();
  });
}

/** The failure logged for a request no channel answered. */
const failureOf = (error: unknown) => (error instanceof RelayError ? { message: error.message, status: error.status } : { message: '网关内部错误', status: 500 });

/** Billing's refusals in OpenAI's shape: a balance too small (429 insufficient_quota), a usage limit reached. */
function refusal(error: unknown): never {
  if (error instanceof InsufficientQuotaError) throw new RelayError(429, error.message, 'insufficient_quota', 'insufficient_quota');
  if (error instanceof LimitExceeded) throw limitError(error);
  throw error;
}

/** The models of a chain that a channel of the group serves. */
async function servedModels(deps: RelayDeps, group: string, chain: string[]): Promise<string[]> {
  const served: string[] = [];
  for (const model of chain) if ((await deps.store.candidates(group, model)).length > 0) served.push(model);
  // The chain itself when every model is served (the usual case): a stream keeps the list until it ends.
  return served.length === chain.length ? chain : served;
}

/** OpenAI's shape for a rate limit: 429, type `requests` / code `rate_limit_exceeded`, with Retry-After. */
const limitError = (error: LimitExceeded) => new RelayError(429, error.message, 'requests', 'rate_limit_exceeded', { 'retry-after': String(error.retryAfter) });

/** The client dialect as logged: the conversation dialect, or the OpenAI endpoint for OpenAI's other APIs. */
const dialectLabel = (call: IncomingCall) => call.label ?? (call.endpoint === 'chat' ? call.dialect.name : `openai-${call.endpoint}`);

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 32 || code === 127) return true;
  }
  return false;
}
