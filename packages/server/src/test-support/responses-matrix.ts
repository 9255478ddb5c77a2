import type OpenAI from 'openai';
import { expect } from 'vitest';
import type { Usage } from '../billing/usage.js';
import type { Storage } from '../storage/database.js';
import { seedChannel } from './seed.js';
import { fixtures } from './upstreams/fixtures.js';
import { anthropicDialect } from '../relay/dialects/anthropic/index.js';
import { bedrockConverseDialect } from '../relay/dialects/bedrock-converse/index.js';
import { geminiDialect } from '../relay/dialects/gemini/index.js';
import { openAiResponsesDialect } from '../relay/dialects/openai-responses/index.js';
import { adapterFor } from '../relay/providers/registry.js';

/**
 * Support for the Responses block of the dialect matrix: the channels each provider row gets (one per mock mode,
 * each serving its own model name mapped to the row's upstream model), what each provider's mock reports for a
 * scenario, and reading a Responses stream through the official SDK.
 */

/**
 * How a channel makes its mock behave: the modes every mock plays (upstreams/mock-server.ts MOCK_MODES and
 * mock-openai.ts): answer normally, force the answer that reads the prompt cache or that thinks, fail with 429 or
 * 500, break a stream half-way, stream slowly.
 */
export type ChannelMode = 'ok' | 'cache' | 'thinking' | 'fail-429' | 'fail-500' | 'break' | 'slow-stream';

/** A mock the block starts for itself, so it can see what reached the upstream. */
export interface RecordingMock {
  url: string;
  /** `mode` where the mock tells it; otherwise the key is the mode's name. */
  requests: Array<{ path: string; body: unknown; key?: string; mode?: string; aborted?: boolean }>;
  close(): Promise<void>;
  /** The channel's key (and config) that makes the mock behave so; by default the key is the mode's name. */
  channel?(mode: ChannelMode): { key: string; config?: string };
}

/** The model calls a mock received, from `from` on: not the Vertex mock's OAuth token exchanges (POST /token). */
export const callsOf = (mock: RecordingMock, from = 0) => mock.requests.slice(from).filter((r) => r.path !== '/token');

/** The mode a call reached the mock in. */
export const modeOfCall = (call: RecordingMock['requests'][number]) => call.mode ?? call.key;

/** The model names of one row's channels: each name reaches the row's mock in one mode. */
export interface ResponsesModels {
  ok: string;
  reasoning: string;
  cache: string;
  fault: string;
  broken: string;
  slow: string;
}

/** The upstream model a reasoning request needs: OpenAI refuses `reasoning` for non-reasoning models. */
const REASONING_MODEL: Record<number, string> = { 1: 'o4-mini' };

export async function seedResponsesChannels(storage: Storage, row: { name: string; type: number; model: string }, mock: RecordingMock): Promise<{ models: ResponsesModels; okChannel: number }> {
  const name = (suffix: string) => `${row.model}-responses-${suffix}`;
  const models: ResponsesModels = { ok: name('ok'), reasoning: name('think'), cache: name('cache'), fault: name('fault'), broken: name('break'), slow: name('slow') };
  const mapped = (list: string[], upstream: (m: string) => string) => JSON.stringify(Object.fromEntries(list.map((m) => [m, upstream(m)])));
  const seed = (mode: ChannelMode, list: string[], priority = 0) =>
    seedChannel(storage, {
      name: `${row.name}-responses-${mode}`,
      type: row.type,
      ...(mock.channel?.(mode) ?? { key: mode }),
      baseUrl: mock.url,
      models: list.join(','),
      priority,
      modelMapping: mapped(list, (m) => (m === models.reasoning ? (REASONING_MODEL[row.type] ?? row.model) : row.model)),
    });
  const okChannel = await seed('ok', [models.ok, models.reasoning, models.fault]);
  await seed('fail-429', [models.fault], 10);
  await seed('fail-500', [models.fault], 5);
  await seed('cache', [models.cache]);
  await seed('break', [models.broken]);
  await seed('slow-stream', [models.slow]);
  return { models, okChannel };
}

/** True when the row's channels take a Responses body as is (OpenAI), false when it is translated. */
export function passesThrough(row: { type: number; model: string }): boolean {
  const adapter = adapterFor(row.type);
  return Boolean(adapter?.dialects({ type: row.type, baseUrl: '', key: '', other: '', config: {} }, row.model).includes('openai-responses'));
}

type Scenario = 'reasoning' | 'cache';

/** A provider row as far as its recorded answers go: the model decides which recordings its mock answers from. */
interface RowModel {
  type: number;
  model: string;
}

const claude = (scenario: Scenario) => anthropicDialect.parseResponse(fixtures('anthropic').json(`${scenario}.response.json`)).usage;

/**
 * What each row's mock reports for a scenario, read from the provider's recorded answer with its own dialect (so
 * the charge is checked against the provider's numbers, not the gateway's rewriting of them), or why the row's
 * model cannot do the scenario at all. The first entry that matches the row counts; a provider row added to the
 * matrix adds its line here.
 */
const RECORDED: Array<{ type: number; model?: RegExp; usage(scenario: Scenario): Usage | undefined; cannot?: Partial<Record<Scenario, string>> }> = [
  { type: 1, usage: (scenario) => openAiResponsesDialect.parseResponse(fixtures('openai-compatible').json(`responses-${scenario}.response.json`)).usage },
  { type: 14, usage: claude },
  { type: 24, usage: (scenario) => geminiDialect.parseResponse(fixtures('gemini').json(`${scenario}.response.json`)).usage },
  // Vertex AI: Gemini answers from Vertex's own recordings, Claude (rawPredict) from Anthropic's.
  { type: 42, model: /^claude-/, usage: claude },
  { type: 42, usage: (scenario) => geminiDialect.parseResponse(fixtures('vertex').json(`${scenario}.response.json`)).usage },
  // Bedrock: Claude goes through InvokeModel (Anthropic's recordings), every other family through Converse.
  { type: 33, model: /claude/, usage: claude },
  {
    type: 33,
    model: /^(\w+\.)?amazon\.nova-(micro|lite|pro|premier)-v1/,
    usage: (scenario) => bedrockConverseDialect.parseResponse(fixtures('bedrock').json(`${scenario}.response.json`)).usage,
    // Nova v1 has no extended thinking: Converse takes no reasoning config for it and it answers without reasoning.
    cannot: { reasoning: 'Amazon Nova v1 models do not reason' },
  },
];

function recordedFor(row: RowModel) {
  const entry = RECORDED.find((e) => e.type === row.type && (!e.model || e.model.test(row.model)));
  if (!entry) throw new Error(`no recorded usage for channel type ${row.type} (${row.model}): add it to RECORDED in test-support/responses-matrix.ts`);
  return entry;
}

/** Why the row's model cannot do the scenario (its test is skipped), or undefined when it can. */
export const cannot = (row: RowModel, scenario: Scenario): string | undefined => recordedFor(row).cannot?.[scenario];

export function recordedUsage(row: RowModel, scenario: Scenario): Usage {
  const usage = recordedFor(row).usage(scenario);
  if (!usage) throw new Error(`the recorded ${scenario} answer for channel type ${row.type} (${row.model}) reports no usage`);
  return usage;
}

/** The client's view of a usage: what a Responses client must be told for it. */
export function responsesUsageOf(usage: Usage) {
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
  };
}

/** Every event of a Responses stream, in order, checking the sequence numbers count up from where they began. */
export async function eventsOf(stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>): Promise<OpenAI.Responses.ResponseStreamEvent[]> {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) {
    if (events.length > 0) expect(event.sequence_number).toBe(events.at(-1)!.sequence_number + 1);
    events.push(event);
  }
  return events;
}

export const deltas = (events: OpenAI.Responses.ResponseStreamEvent[], type: 'response.output_text.delta' | 'response.function_call_arguments.delta' | 'response.reasoning_summary_text.delta') =>
  events.flatMap((e) => (e.type === type ? [e.delta] : [])).join('');
