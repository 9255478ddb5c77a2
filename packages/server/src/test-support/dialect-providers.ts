import type { Usage } from '../billing/usage.js';
import { MOCK_REPLY, startMockUpstream } from './mock-openai.js';
import type { ChannelMode, RecordingMock } from './responses-matrix.js';
import { startMockAnthropic } from './upstreams/anthropic.js';
import { bedrockCredentials, startMockBedrock } from './upstreams/bedrock.js';
import { startMockGemini } from './upstreams/gemini.js';
import { startMockVertex } from './upstreams/vertex.js';

/**
 * The providers of the dialect matrix (relay/e2e/dialect-matrix.test.ts): one row per provider, with the mock that
 * speaks its protocol and what that mock answers and reports. A new provider in the matrix is a new row.
 */
/**
 * A long document to ask about in prompt-cache scenarios: a provider caches only long prompts (Claude from 1,024
 * tokens), and the gateway bills no more prompt tokens than a prompt can hold (issue 19), so the recorded cache
 * usage (up to 3,334 prompt tokens) needs a prompt of that size.
 */
export const HANDBOOK = Array.from({ length: 400 }, (_, i) => `Step ${i + 1}: hold the reset button of the router for ten seconds and wait for the lights.`).join('\n');

/** How a mock answers: normally, forced to its answer that reads the prompt cache or that thinks, or a fault. */
export type Behaviour = ChannelMode;

/** A started mock: what it received, and the channel key (and config) for each behaviour where the key is not its name. */
export type Upstream = RecordingMock;

export interface ProviderRow {
  name: string;
  type: number;
  model: string;
  start(): Promise<Upstream>;
  /** What the mock answers to a plain question, and the usage it reports for it. */
  text: string;
  usage: Usage;
  /** The usage of the mock's cache-reading and thinking answers, in canonical terms (rows without them skip those tests). */
  cacheUsage?: Usage;
  thinkingUsage?: Usage;
  /** The model as the provider names it in its answers, where that differs (a passed-through answer keeps it). */
  answerModel?: string;
}

const CLAUDE_CACHE: Usage = { prompt_tokens: 14 + 1800 + 1520, completion_tokens: 31, cached_tokens: 1800, cache_write_tokens: 320, cache_write_1h_tokens: 1200 };
const CLAUDE_THINKING: Usage = { prompt_tokens: 46, completion_tokens: 142 };
const GEMINI_CACHE: Usage = { prompt_tokens: 2058, completion_tokens: 14, cached_tokens: 2048 };
const GEMINI_THINKING: Usage = { prompt_tokens: 11, completion_tokens: 12 + 180, reasoning_tokens: 180 };
const HELLO = 'Hello! How can I help you today?';

/** A Bedrock mock (us-east-1) whose channels sign with the access key of the asked behaviour. */
async function bedrockUpstream(options: { strictTurns?: boolean }): Promise<Upstream> {
  const mock = await startMockBedrock({ region: 'us-east-1', ...options });
  return {
    ...mock,
    channel(behaviour) {
      const { accessKeyId, secretAccessKey } = bedrockCredentials(behaviour);
      return { key: `${accessKeyId}|${secretAccessKey}|us-east-1` };
    },
  };
}

/** A Vertex AI mock whose channels log in with a service account of the asked behaviour. */
async function vertexUpstream(region: string): Promise<Upstream> {
  const mock = await startMockVertex();
  return {
    ...mock,
    channel(behaviour) {
      const account = mock.serviceAccount({ mode: behaviour });
      const config = { region, vertex_ai_project_id: account.project_id, vertex_ai_adc: JSON.stringify(account) };
      return { key: `${region}|${account.project_id}|${config.vertex_ai_adc}`, config: JSON.stringify(config) };
    },
  };
}


export const PROVIDERS: ProviderRow[] = [
  {
    name: 'OpenAI',
    type: 1,
    model: 'gpt-4o-mini',
    start: async () => ({ ...(await startMockUpstream()), channel: (b) => ({ key: b === 'thinking' ? 'reasoning' : b }) }),
    text: MOCK_REPLY,
    usage: { prompt_tokens: 12, completion_tokens: 10 },
    cacheUsage: { prompt_tokens: 2048, completion_tokens: 20, cached_tokens: 1920 },
    thinkingUsage: { prompt_tokens: 40, completion_tokens: 20, reasoning_tokens: 8 },
  },
  {
    name: 'Anthropic',
    type: 14,
    model: 'claude-sonnet-4-5-20250929',
    start: () => startMockAnthropic(),
    text: HELLO,
    usage: { prompt_tokens: 12, completion_tokens: 12 },
    cacheUsage: CLAUDE_CACHE,
    thinkingUsage: CLAUDE_THINKING,
  },
  { name: 'Gemini', type: 24, model: 'gemini-2.5-flash', start: () => startMockGemini(), text: HELLO, usage: { prompt_tokens: 6, completion_tokens: 9 }, cacheUsage: GEMINI_CACHE, thinkingUsage: GEMINI_THINKING },
  { name: 'Vertex Gemini', type: 42, model: 'gemini-2.5-pro', start: () => vertexUpstream('us-central1'), text: HELLO, usage: { prompt_tokens: 6, completion_tokens: 9 }, cacheUsage: GEMINI_CACHE, thinkingUsage: GEMINI_THINKING },
  {
    name: 'Vertex Claude',
    type: 42,
    model: 'claude-sonnet-4-5@20250929',
    start: () => vertexUpstream('us-east5'),
    text: HELLO,
    usage: { prompt_tokens: 12, completion_tokens: 12 },
    cacheUsage: CLAUDE_CACHE,
    thinkingUsage: CLAUDE_THINKING,
    answerModel: 'claude-sonnet-4-5-20250929',
  },
  {
    // Claude through InvokeModel: the Anthropic SDK passes through; the console's name becomes the inference profile.
    name: 'Bedrock Claude',
    type: 33,
    model: 'claude-3-7-sonnet-20250219',
    start: () => bedrockUpstream({ strictTurns: true }),
    text: HELLO,
    usage: { prompt_tokens: 12, completion_tokens: 12 },
    cacheUsage: CLAUDE_CACHE,
    thinkingUsage: CLAUDE_THINKING,
  },
  {
    // Amazon Nova through Converse / ConverseStream: every client dialect is translated.
    name: 'Bedrock Nova',
    type: 33,
    model: 'amazon.nova-lite-v1:0',
    start: () => bedrockUpstream({}),
    text: HELLO,
    usage: { prompt_tokens: 9, completion_tokens: 10 },
    // Converse reports the same cache split as InvokeModel; the thinking answer's reasoning comes within the output.
    cacheUsage: CLAUDE_CACHE,
    thinkingUsage: CLAUDE_THINKING,
  },
];

