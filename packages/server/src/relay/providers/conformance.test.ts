import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { collectStream, textOf, type ChatRequest, type ChatResponse, type StreamPart } from '../canonical.js';
import { allDialects, dialectOf } from '../dialects/registry.js';
import type { Dialect, DialectName, Frame } from '../dialects/types.js';
import { JsonStreamDecoder, SseDecoder } from '../transport/frame-decoders.js';
import { validatorFor } from '../../test-support/upstreams/validators.js';
import { PROVIDERS } from './registry.js';
import type { ChannelTarget, Endpoint, ProviderAdapter } from './types.js';

/**
 * The conformance battery: every registered provider against the payloads recorded from its documentation in
 * providers/<id>/__fixtures__/. Adding a provider adds fixtures (and, for its mock, a validator), not test code.
 *
 * Per scenario (`<scenario>.request.json`, with `.response.json` and a stream in `.stream.txt` (SSE),
 * `.stream.json` (JSON array) or `.stream.frames.json` (AWS event-stream frames)):
 *  - the documented request survives the canonical model: parsed, rebuilt, parsed again, it says the same, and
 *    the rebuilt body passes the provider mock's validation;
 *  - the same conversation written by every client dialect, translated into the provider's, passes too;
 *  - the response and the stream read into the canonical answer the scenario implies (text, tool call with its
 *    arguments, reasoning, cache usage), and every client dialect writes them in a form it reads back the same;
 * Per provider: each documented error (`errors.json`) gets the verdict `verdicts.json` expects, and every
 * OpenAI-only endpoint it does not serve is refused.
 *
 * `conformance.json` (optional) names the model a scenario uses when the request does not say (Vertex puts
 * the model in the URL): {"models": {"<scenario prefix>": "<model>"}}, the dialect its payloads are in when the
 * provider speaks several for that model (Bedrock: Claude through InvokeModel or Converse):
 * {"dialects": {"<scenario prefix>": "<dialect>"}}, lists recorded exchanges that are no chat
 * ({"notChat": ["token"]}), or takes another provider's payloads when the wire format is the same:
 * {"sameAs": "<provider id>"}, or says the vendor reports no usage (the gateway counts it): {"noUsage": true}, or
 * names the client dialects that cannot write a scenario, whose translation is refused with a 400:
 * {"refusedBy": {"<scenario>": ["<dialect>"]}}. A
 * vendor of its own wire (a codec) has its answers read through it; one that only streams records no response.
 * The longest matching prefix wins ("" matches every scenario). A provider runs
 * only the scenarios written in a dialect it speaks (Azure borrows OpenAI's payloads but not its Responses API).
 */
const ownDir = (id: string) => fileURLToPath(new URL(`./${id}/__fixtures__/`, import.meta.url));
/** A provider of another's dialect may take that provider's payloads ({"sameAs": "<id>"} in conformance.json). */
const fixturesDir = (id: string): string => {
  const config = ownDir(id) + 'conformance.json';
  const sameAs = existsSync(config) ? (JSON.parse(readFileSync(config, 'utf8')) as { sameAs?: string }).sameAs : undefined;
  return sameAs ? ownDir(sameAs) : ownDir(id);
};
const read = (id: string, name: string) => readFileSync(fixturesDir(id) + name, 'utf8');
const json = (id: string, name: string) => JSON.parse(read(id, name));

const target = (type: number): ChannelTarget => ({ type, baseUrl: 'http://upstream.test', key: 'ok', other: '', config: {} });

function scenariosOf(provider: ProviderAdapter): string[] {
  const id = provider.id;
  if (!existsSync(fixturesDir(id))) return [];
  // Recorded exchanges that are no chat (Vertex's login at the token endpoint) are named in conformance.json.
  const other = existsSync(fixturesDir(id) + 'conformance.json') ? ((json(id, 'conformance.json') as { notChat?: string[] }).notChat ?? []) : [];
  return readdirSync(fixturesDir(id))
    .filter((f) => f.endsWith('.request.json') && !f.startsWith('count-tokens'))
    .map((f) => f.replace('.request.json', ''))
    .filter((scenario) => !other.includes(scenario))
    .filter((scenario) => {
      const dialect = configured(id, scenario, 'dialects');
      return dialect === undefined || provider.dialects(target(provider.channelTypes[0]), modelOf(id, scenario, json(id, `${scenario}.request.json`))).includes(dialect as DialectName);
    });
}

/**
 * A vendor with a wire of its own (a codec): its documented answers (`<scenario>.response.json`, a stream in
 * `.stream.txt` or `.stream.ndjson`) have no request of the dialect to go with them; they are read through the codec.
 */
function codecScenariosOf(provider: ProviderAdapter): string[] {
  const id = provider.id;
  if (!existsSync(fixturesDir(id)) || !provider.codec?.(target(provider.channelTypes[0]), 'model')?.answer) return [];
  const other = existsSync(fixturesDir(id) + 'conformance.json') ? ((json(id, 'conformance.json') as { notChat?: string[] }).notChat ?? []) : [];
  return readdirSync(fixturesDir(id))
    .filter((f) => f.endsWith('.response.json') && !existsSync(fixturesDir(id) + f.replace('.response.json', '.request.json')))
    .map((f) => f.replace('.response.json', ''))
    .filter((scenario) => !other.includes(scenario) && !scenario.startsWith('count-tokens'));
}

/** The entry of a conformance.json map whose scenario prefix is the longest that matches. */
function configured(id: string, scenario: string, map: 'models' | 'dialects'): string | undefined {
  const config = existsSync(fixturesDir(id) + 'conformance.json') ? json(id, 'conformance.json') : {};
  const entries = Object.entries((config[map] ?? {}) as Record<string, string>).sort((a, b) => b[0].length - a[0].length);
  return entries.find(([prefix]) => scenario.startsWith(prefix))?.[1];
}

function modelOf(id: string, scenario: string, request: Record<string, unknown>): string {
  if (typeof request.model === 'string') return request.model;
  return configured(id, scenario, 'models') ?? 'model';
}

/** The recorded stream of a scenario as frames, whatever its framing; undefined when none was recorded. */
function streamFrames(id: string, scenario: string, provider: ProviderAdapter): Frame[] | undefined {
  const decode = (decoder: SseDecoder | JsonStreamDecoder, text: string) => [...decoder.push(Buffer.from(text)), ...decoder.end()];
  let frames: Frame[] | undefined;
  if (existsSync(`${fixturesDir(id)}${scenario}.stream.txt`)) frames = decode(new SseDecoder(), read(id, `${scenario}.stream.txt`));
  else if (existsSync(`${fixturesDir(id)}${scenario}.stream.ndjson`)) frames = decode(new JsonStreamDecoder(), read(id, `${scenario}.stream.ndjson`));
  else if (existsSync(`${fixturesDir(id)}${scenario}.stream.json`)) frames = decode(new JsonStreamDecoder(), read(id, `${scenario}.stream.json`));
  else if (existsSync(`${fixturesDir(id)}${scenario}.stream.frames.json`)) {
    frames = (json(id, `${scenario}.stream.frames.json`) as Array<{ headers: Record<string, string>; payload: unknown }>).map((f) => ({
      event: f.headers[':event-type'] ?? f.headers[':exception-type'],
      data: JSON.stringify(f.payload),
    }));
  }
  const unwrap = provider.codec?.(target(provider.channelTypes[0]), 'model')?.stream?.();
  return frames?.flatMap((frame) => (unwrap ? unwrap(frame) : [frame]));
}

/** The client dialects that cannot write a scenario (conformance.json `refusedBy`): translating it from them is refused. */
const refusedBy = (id: string, scenario: string): string[] =>
  existsSync(fixturesDir(id) + 'conformance.json') ? (((json(id, 'conformance.json') as { refusedBy?: Record<string, string[]> }).refusedBy ?? {})[scenario] ?? []) : [];

/** A vendor that reports no usage ({"noUsage": true} in conformance.json): the gateway counts it. */
const reportsUsage = (id: string) => !(existsSync(fixturesDir(id) + 'conformance.json') && (json(id, 'conformance.json') as { noUsage?: boolean }).noUsage);

/** The recorded whole answer in the provider's dialect (through its codec), or undefined when it only streams. */
function wholeAnswer(provider: ProviderAdapter, scenario: string, model: string): Record<string, unknown> | undefined {
  if (!existsSync(`${fixturesDir(provider.id)}${scenario}.response.json`)) return undefined;
  const recorded = json(provider.id, `${scenario}.response.json`) as Record<string, unknown>;
  const answer = provider.codec?.(target(provider.channelTypes[0]), model)?.answer;
  return answer ? answer(recorded) : recorded;
}

/** What any answer to a scenario must contain, whichever dialect carried it. */
function expectScenario(scenario: string, answer: ChatResponse, usage = true): void {
  const kind = scenario.replace(/^[a-z]+-(?=(text|tools|tool-result|image|reasoning|cache)$)/, '');
  const calls = answer.content.filter((p) => p.type === 'tool_call');
  if (kind === 'tools') {
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]).toMatchObject({ name: 'get_weather' });
    expect(JSON.parse((calls[0] as { arguments: string }).arguments || '{}')).toHaveProperty('city');
    expect(answer.finishReason).toBe('tool_calls');
  } else {
    expect(textOf(answer.content).length).toBeGreaterThan(0);
  }
  if (kind === 'reasoning') expect(answer.content.some((p) => p.type === 'reasoning')).toBe(true);
  if (!usage) return;
  expect(answer.usage).toBeDefined();
  expect(answer.usage!.prompt_tokens).toBeGreaterThan(0);
  if (kind === 'cache') expect((answer.usage!.cached_tokens ?? 0) + (answer.usage!.cache_write_tokens ?? 0) + (answer.usage!.cache_write_1h_tokens ?? 0)).toBeGreaterThan(0);
  if (kind === 'reasoning' && answer.usage!.reasoning_tokens !== undefined) expect(answer.usage!.reasoning_tokens).toBeGreaterThan(0);
}

/** The parts of an answer, in the order a stream would carry them. */
function partsOf(answer: ChatResponse): StreamPart[] {
  const parts: StreamPart[] = [{ type: 'start', id: answer.id, model: answer.model }];
  answer.content.forEach((part, index) => {
    if (part.type === 'tool_call') parts.push({ type: 'tool_call', index, id: part.id, name: part.name }, { type: 'tool_call_delta', index, arguments: part.arguments });
    else parts.push(part.type === 'text' ? { type: 'text', text: part.text } : { type: 'reasoning', text: part.text, signature: part.signature });
  });
  parts.push({ type: 'finish', reason: answer.finishReason });
  if (answer.usage) parts.push({ type: 'usage', usage: answer.usage });
  return parts;
}

/** A client dialect writes the answer (whole and streamed) and reads back the same answer. */
function expectWritesBack(client: Dialect, answer: ChatResponse): void {
  const context = { id: 'id-1', model: 'm', created: 1, includeUsage: true };
  const whole = client.parseResponse(JSON.parse(JSON.stringify(client.writeResponse(answer, context))));
  const writer = client.createStreamWriter(context);
  const text = partsOf(answer).map((p) => writer.write(p)).join('') + writer.end();
  const decoder = client.streamContentType.includes('json') ? new JsonStreamDecoder() : new SseDecoder();
  const reader = client.createStreamReader();
  const streamed = collectStream([...decoder.push(Buffer.from(text)), ...decoder.end()].flatMap((f) => reader.read(f)));
  for (const back of [whole, streamed]) {
    expect(textOf(back.content)).toBe(textOf(answer.content));
    const calls = (r: ChatResponse) => r.content.flatMap((p) => (p.type === 'tool_call' ? [{ name: p.name, args: JSON.parse(p.arguments || '{}') }] : []));
    expect(calls(back)).toEqual(calls(answer));
    expect(back.finishReason).toBe(answer.finishReason);
    // An answer without usage (the vendor reports none) may be written with zeros.
    if (answer.usage) expect(back.usage?.prompt_tokens).toBe(answer.usage.prompt_tokens);
    if (answer.usage) expect(back.usage?.completion_tokens).toBe(answer.usage.completion_tokens);
  }
}

/** What must survive any translation: the user's words, the tools offered, and which result answers which call. */
function essentials(request: ChatRequest) {
  return {
    lastUser: textOf(request.messages.filter((m) => m.role === 'user').at(-1)?.content.filter((p) => p.type === 'text') ?? []),
    tools: request.tools.map((t) => t.name),
    calls: request.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_call' ? [p.name] : []))),
    results: request.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_result' ? [p.content.length > 0] : []))),
    images: request.messages.flatMap((m) => m.content.filter((p) => p.type === 'image')).length,
  };
}

const OPENAI_ONLY: Endpoint[] = ['completions', 'embeddings', 'images', 'audio_speech', 'audio_transcription', 'audio_translation', 'moderations'];

for (const provider of PROVIDERS) {
  const scenarios = scenariosOf(provider);
  const codecScenarios = codecScenariosOf(provider);
  describe(`provider ${provider.id}`, () => {
    it('has recorded fixtures', () => {
      expect(scenarios.length + codecScenarios.length, `providers/${provider.id}/__fixtures__ holds no <scenario>.request.json (nor, for a codec, <scenario>.response.json)`).toBeGreaterThan(0);
    });

    describe.each(codecScenarios)('%s (through the vendor codec)', (scenario) => {
      const channel = target(provider.channelTypes[0]);
      const dialect = dialectOf(provider.dialects(channel, 'model')[0])!;
      const codec = provider.codec!(channel, 'model')!;
      const whole = () => dialect.parseResponse(codec.answer!(json(provider.id, `${scenario}.response.json`)));

      it('the vendor\'s answer and stream read into the answer the scenario implies', () => {
        expectScenario(scenario, whole());
        const frames = streamFrames(provider.id, scenario, provider);
        if (!frames) return;
        const reader = dialect.createStreamReader();
        expectScenario(scenario, collectStream(frames.flatMap((f) => reader.read(f))));
      });

      it.each(allDialects().map((d) => [d.name, d] as const))('a %s client gets the same answer back', (_name, client) => {
        expectWritesBack(client, whole());
      });
    });

    describe.each(scenarios)('%s', (scenario) => {
      const request = json(provider.id, `${scenario}.request.json`) as Record<string, unknown>;
      const model = modelOf(provider.id, scenario, request);
      const spoken = provider.dialects(target(provider.channelTypes[0]), model);
      const dialect = dialectOf((configured(provider.id, scenario, 'dialects') as DialectName | undefined) ?? spoken[0])!;
      const validate = validatorFor(provider.id, dialect.name, model);
      // A body whose wire format keeps the model in the URL (Bedrock, Vertex, Gemini) is read as its provider reads
      // it: with the scenario's model.
      const parse = (body: Record<string, unknown>): ChatRequest => ({ ...dialect.parseRequest({ model, ...body }), model });

      it('the documented request survives the canonical model and passes the provider checks', () => {
        expect(spoken).toContain(dialect.name);
        const canonical = parse(request);
        const rebuilt = dialect.buildRequest(canonical);
        expect(parse(rebuilt)).toEqual(canonical);
        expect(validate(rebuilt)).toBeNull();
        expect(validate(request)).toBeNull();
      });

      it.each(allDialects().map((d) => [d.name, d] as const))('written by a %s client, translated, it still passes', (_name, client) => {
        const canonical = parse(request);
        if (refusedBy(provider.id, scenario).includes(client.name)) {
          // A dialect that cannot say what the scenario asks (a search the provider runs) refuses it with a 400.
          expect(() => client.buildRequest(canonical)).toThrow(expect.objectContaining({ status: 400 }));
          return;
        }
        const asClient = client.parseRequest(client.buildRequest(canonical));
        const upstream = dialect.buildRequest({ ...asClient, model: canonical.model, maxOutputTokens: canonical.maxOutputTokens ?? 1024 });
        expect(validate(upstream)).toBeNull();
        expect(essentials(parse(upstream))).toEqual(essentials(canonical));
      });

      it('the response and the stream read into the answer the scenario implies', () => {
        const recorded = wholeAnswer(provider, scenario, model);
        const frames = streamFrames(provider.id, scenario, provider);
        expect(recorded ?? frames, 'neither a response nor a stream was recorded').toBeDefined();
        if (recorded) expectScenario(scenario, dialect.parseResponse(recorded), reportsUsage(provider.id));
        if (!frames) return;
        const reader = dialect.createStreamReader();
        const streamed = collectStream(frames.flatMap((f) => reader.read(f)));
        expectScenario(scenario, streamed, reportsUsage(provider.id));
      });

      it.each(allDialects().map((d) => [d.name, d] as const))('a %s client gets the same answer back', (_name, client) => {
        const recorded = wholeAnswer(provider, scenario, model);
        if (recorded) expectWritesBack(client, dialect.parseResponse(recorded));
        const frames = streamFrames(provider.id, scenario, provider);
        if (frames) {
          const reader = dialect.createStreamReader();
          expectWritesBack(client, collectStream(frames.flatMap((f) => reader.read(f))));
        }
      });
    });

    it('documented errors get the expected verdict', () => {
      const errors = json(provider.id, 'errors.json') as Record<string, { status?: number; body: unknown }>;
      const verdicts = json(provider.id, 'verdicts.json') as Record<string, { retry: boolean; disableChannel: boolean }>;
      for (const [name, error] of Object.entries(errors)) {
        if (error.status === undefined) continue; // an in-stream error event, not an HTTP answer
        const verdict = provider.classifyError(error.status, JSON.stringify(error.body));
        expect({ name, retry: verdict.retry, disableChannel: verdict.disableChannel }).toEqual({ name, ...verdicts[name] });
        expect(verdict.message.length).toBeGreaterThan(0);
        expect(verdict.message.startsWith('{')).toBe(false);
      }
    });

    it('serves chat, and refuses the OpenAI-only endpoints it cannot serve', () => {
      const channel = target(provider.channelTypes[0]);
      // A provider of another dialect serves an OpenAI-only endpoint only through a codec that writes its answer in
      // OpenAI's shape (Gemini's embeddings by batchEmbedContents).
      const unanswered = OPENAI_ONLY.filter((endpoint) => provider.supports(endpoint) && !provider.codec?.(channel, 'model', undefined, endpoint)?.answer);
      if (provider.dialects(channel, 'model')[0] !== 'openai-chat') expect(unanswered).toEqual([]);
    });
  });
}
