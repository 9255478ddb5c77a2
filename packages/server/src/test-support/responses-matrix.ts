import type OpenAI from 'openai';
import { expect } from 'vitest';
import type { Usage } from '../billing/usage.js';
import type { Storage } from '../storage/database.js';
import { seedChannel } from './seed.js';
import { fixtures } from './upstreams/fixtures.js';
import { anthropicDialect } from '../relay/dialects/anthropic/index.js';
import { openAiResponsesDialect } from '../relay/dialects/openai-responses/index.js';
import { adapterFor } from '../relay/providers/registry.js';

/**
 * Support for the Responses block of the dialect matrix: the channels each provider row gets (one per mock mode,
 * each serving its own model name mapped to the row's upstream model), what each provider's mock reports for a
 * scenario, and reading a Responses stream through the official SDK.
 */

/** A mock the block starts for itself, so it can see what reached the upstream. */
export interface RecordingMock {
  url: string;
  requests: Array<{ path: string; body: unknown; key?: string; aborted?: boolean }>;
  close(): Promise<void>;
}

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
  const seed = (key: string, list: string[], priority = 0) =>
    seedChannel(storage, {
      name: `${row.name}-responses-${key}`,
      type: row.type,
      key,
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

/**
 * What the row's mock reports for a scenario, read from the provider's recorded answer with its own dialect (so
 * the charge is checked against the provider's numbers, not the gateway's rewriting of them). A provider row
 * added to the matrix adds its line here.
 */
const RECORDED: Record<number, (scenario: 'reasoning' | 'cache') => Usage | undefined> = {
  1: (scenario) => openAiResponsesDialect.parseResponse(fixtures('openai-compatible').json(`responses-${scenario}.response.json`)).usage,
  14: (scenario) => anthropicDialect.parseResponse(fixtures('anthropic').json(`${scenario}.response.json`)).usage,
};

/** Whether the Responses block can check a row's charges yet (its provider's recorded usage is listed above). */
export const hasRecordedUsage = (type: number): boolean => type in RECORDED;

export function recordedUsage(type: number, scenario: 'reasoning' | 'cache'): Usage {
  const read = RECORDED[type];
  if (!read) throw new Error(`no recorded usage for channel type ${type}: add it to RECORDED in test-support/responses-matrix.ts`);
  return read(scenario)!;
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
