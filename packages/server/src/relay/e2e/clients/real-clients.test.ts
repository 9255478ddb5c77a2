import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../../billing/pricing.js';
import { PROVIDERS } from '../../../test-support/dialect-providers.js';
import { startMockUpstream } from '../../../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../../test-support/test-app.js';
import { startMockAnthropic } from '../../../test-support/upstreams/anthropic.js';
import { startMockGemini } from '../../../test-support/upstreams/gemini.js';
import { reportMeasuredUsage, scriptToolCalls } from '../../../test-support/upstreams/tool-script.js';
import { CLIENTS, installedClient, type ClientName } from './installed-clients.js';
import { startRecorder } from './recorder.js';
import { runClient } from './run-client.js';

/**
 * The real coding agents (issue 15, item 5): Claude Code, Codex CLI and Gemini CLI, pinned and installed from npm,
 * run non-interactively as their users run them (README settings only), with no network but the gateway, against
 * local mocks of each provider. Each reaches a channel of every native kind (OpenAI-format, Claude, Gemini, Gemini on
 * Vertex AI, Claude on Bedrock): its own dialect passed through, the others translated; one run each has the model
 * call the agent's own file-reading tool; every request is billed exactly once.
 */
const MODELS = { openai: 'gpt-5', claude: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash', vertex: 'gemini-2.5-pro', bedrock: 'claude-3-7-sonnet-20250219' } as const;
type Kind = keyof typeof MODELS;
/** The channel kinds that speak each agent's own dialect (its requests pass through). */
const NATIVE: Record<ClientName, Kind[]> = { claude: ['claude', 'bedrock'], codex: ['openai'], gemini: ['gemini', 'vertex'] };

let t: TestApp;
let gatewayPort: number;
let userId: number;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  // Installed first (the first run downloads them; later runs reuse the cache).
  for (const name of Object.keys(CLIENTS) as ClientName[]) installedClient(name);
  // An agent's prompt is tens of kilobytes: the mocks report what they were sent, not their recordings' numbers.
  reportMeasuredUsage(true);
  const openai = await startMockUpstream();
  const claude = await startMockAnthropic();
  const gemini = await startMockGemini();
  // Gemini on Vertex AI (service-account login) and Claude on Bedrock (SigV4), as the dialect matrix sets them up.
  const vertex = await PROVIDERS.find((row) => row.name === 'Vertex Gemini')!.start();
  const bedrock = await PROVIDERS.find((row) => row.name === 'Bedrock Claude')!.start();
  closers.push(() => openai.close(), () => claude.close(), () => gemini.close(), () => vertex.close(), () => bedrock.close());
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '120' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  gatewayPort = (t.app.server.address() as AddressInfo).port;
  await seedChannel(t.ctx.storage, { name: 'openai', type: 1, key: 'ok', baseUrl: openai.url, models: MODELS.openai });
  await seedChannel(t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: claude.url, models: MODELS.claude });
  await seedChannel(t.ctx.storage, { name: 'gemini', type: 24, key: 'ok', baseUrl: gemini.url, models: MODELS.gemini });
  await seedChannel(t.ctx.storage, { name: 'vertex', type: 42, baseUrl: vertex.url, models: MODELS.vertex, ...vertex.channel!('ok') });
  await seedChannel(t.ctx.storage, { name: 'bedrock', type: 33, baseUrl: bedrock.url, models: MODELS.bedrock, ...bedrock.channel!('ok') });
  userId = await seedUser(t.ctx.storage, 'agents', 500_000_000, 'AGENTS');
}, 900_000);
afterAll(async () => {
  reportMeasuredUsage(false);
  await t?.close();
  for (const close of closers) await close();
});
beforeEach(() => scriptToolCalls([]));

/** Requests that generate an answer (and a log row): not the free token counts. */
const generations = <T extends { method: string; path: string }>(requests: T[]) => requests.filter((r) => r.method === 'POST' && !/count_tokens|countTokens|input_tokens/.test(r.path));

/** Runs an agent through a recorder in front of the gateway with a fresh key; answers what it did and what it cost. */
async function agent(name: ClientName, kind: Kind, prompt: string, files?: Record<string, string>) {
  const token = await seedToken(t.ctx.storage, userId, { unlimited: true, name: `${name}-${kind}` });
  const recorder = await startRecorder(gatewayPort);
  try {
    const run = await runClient(name, { port: recorder.port, key: `sk-${token.key}`, model: MODELS[kind], prompt, files });
    const logs = await settledLogs(token.id, generations(recorder.requests).length);
    return { run, requests: recorder.requests, logs };
  } finally {
    await recorder.close();
  }
}

async function settledLogs(tokenId: number, count: number) {
  for (let i = 0; i < 300; i++) {
    const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).orderBy('id').execute();
    const open = await t.ctx.storage.db.selectFrom('quota_reservations').select('request_id').where('token_id', '=', tokenId).execute();
    if (logs.length >= count && open.length === 0) return logs;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('requests not settled');
}

/** Every request answered and billed once, at its price for the usage the provider reported; nothing flagged. */
function expectBilledExactly(logs: Awaited<ReturnType<typeof settledLogs>>, requests: number) {
  expect(logs.filter((l) => l.type === 2)).toHaveLength(requests);
  for (const log of logs) {
    expect(log.type, log.content ?? '').toBe(2);
    expect(log.content).not.toContain('用量异常');
    expect(log.content).not.toContain('超出预留');
    const usage = { prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens, cached_tokens: Number(log.cached_tokens), cache_write_tokens: Number(log.cache_write_tokens), reasoning_tokens: Number(log.reasoning_tokens) };
    expect(log.quota).toBe(costOf(usage, pricesFor(t.ctx.options, log.model_name, 'default')));
    expect(log.prompt_tokens).toBeGreaterThan(0);
  }
}

const runs: Array<[ClientName, Kind]> = (Object.keys(CLIENTS) as ClientName[]).flatMap((name) => (Object.keys(MODELS) as Kind[]).map((kind) => [name, kind] as [ClientName, Kind]));

describe.each(runs)('%s on a %s channel', (name, kind) => {
  it(`answers, ${NATIVE[name].includes(kind) ? 'passed through' : 'translated'}, and every request is billed once`, async () => {
    const { run, requests, logs } = await agent(name, kind, 'Say hello in one short sentence.');
    expect(run.code, `${run.stderr}\n${run.stdout}`.slice(-3000)).toBe(0);
    expect(run.stdout.trim().length).toBeGreaterThan(0);
    expect(requests.length).toBeGreaterThan(0);
    expectBilledExactly(logs, generations(requests).length);
  }, 240_000);
});

/** The agent's own file-reading tool and how the model asks for it, per agent. */
const READ_TOOL: Record<ClientName, (work: string) => { name: string; args: Record<string, unknown> }> = {
  claude: (work) => ({ name: 'Read', args: { file_path: join(work, 'notes.txt') } }),
  codex: () => ({ name: 'exec_command', args: { cmd: 'cat notes.txt' } }),
  gemini: (work) => ({ name: 'read_file', args: { file_path: join(work, 'notes.txt') } }),
};

// The tool call crosses dialects: each agent runs against a channel of another kind.
const TOOL_RUNS: Array<[ClientName, Kind]> = [
  ['claude', 'openai'],
  ['codex', 'claude'],
  ['gemini', 'claude'],
];

describe.each(TOOL_RUNS)('%s calls its own tool through a %s channel', (name, kind) => {
  it('the model asks for the file, the agent reads it, and the contents come back in the next request', async () => {
    const secret = `secret-${name}-${Date.now()}`;
    const { run, requests, logs } = await agentWithTool(name, kind, { 'notes.txt': `${secret}\n` });
    expect(run.code, `${run.stderr}\n${run.stdout}`.slice(-3000)).toBe(0);
    const posts = generations(requests);
    expect(posts.length).toBeGreaterThanOrEqual(2);
    // The request after the call carries the file's contents as the tool's result.
    expect(posts.slice(1).some((r) => JSON.stringify(r.body).includes(secret))).toBe(true);
    expectBilledExactly(logs, posts.length);
  }, 240_000);
});

async function agentWithTool(name: ClientName, kind: Kind, files: Record<string, string>) {
  const token = await seedToken(t.ctx.storage, userId, { unlimited: true, name: `${name}-${kind}-tool` });
  const recorder = await startRecorder(gatewayPort);
  try {
    // The workspace is made here so that the scripted call can name a path in it.
    const work = mkdtempSync(join(tmpdir(), `mr-${name}-tool-`));
    scriptToolCalls([READ_TOOL[name](work)]);
    const run = await runClient(name, { port: recorder.port, key: `sk-${token.key}`, model: MODELS[kind], prompt: 'Read notes.txt and tell me what it says.', files, work });
    const logs = await settledLogs(token.id, generations(recorder.requests).length);
    return { run, requests: recorder.requests, logs };
  } finally {
    scriptToolCalls([]);
    await recorder.close();
  }
}
