import { classifyAnthropicError } from '../anthropic/adapter.js';
import { geminiMethod, modelPath, withoutModel } from '../gemini/adapter.js';
import { DEAD_CHANNEL_REASONS, isPassingFault, readGoogleError } from '../gemini/google-errors.js';
import type { BuildInput, ErrorVerdict, ProviderAdapter, UpstreamRequest } from '../types.js';
import { readVertexChannel } from './vertex-channel.js';

/** The Messages API version Claude on Vertex takes, in the body (https://docs.anthropic.com/en/api/claude-on-vertex-ai). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

const isClaude = (model: string) => /^claude/i.test(model);

/**
 * Vertex AI (type 42): Gemini models through generateContent and Claude models through rawPredict, on the
 * channel's project and region (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference,
 * https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude). The pipeline logs in with the
 * channel's service account first (credentials `google-service-account`); the access token goes as a bearer.
 * The channel's base URL, when set, replaces `https://{region}-aiplatform.googleapis.com`.
 */
export const vertexAdapter: ProviderAdapter = {
  id: 'vertex',
  channelTypes: [42],
  credentials: 'google-service-account',
  dialects: (_channel, model) => (isClaude(model) ? ['anthropic'] : ['gemini']),
  supports: (endpoint) => endpoint === 'chat',
  build(input) {
    const { region, project } = readVertexChannel(input.channel);
    const host = input.channel.baseUrl || (region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`);
    const publishers = `${host}/v1/projects/${encodeURIComponent(project)}/locations/${region}/publishers`;
    const token = input.channel.credentials?.kind === 'bearer' ? input.channel.credentials.token : '';
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (input.dialect === 'anthropic') return claudeRequest(input, publishers, headers);
    const url = `${publishers}/google/models/${modelPath(input.model)}:${geminiMethod(input.stream, input.jsonArrayStream)}`;
    return { url, method: 'POST', headers, body: JSON.stringify(vertexGeminiBody(withoutModel(input.body))) };
  },
  classifyError: classifyVertexError,
};

function claudeRequest(input: BuildInput, publishers: string, headers: Record<string, string>): UpstreamRequest {
  const url = `${publishers}/anthropic/models/${modelPath(vertexClaudeModel(input.model))}:${input.stream ? 'streamRawPredict' : 'rawPredict'}`;
  const beta = input.forwardHeaders?.['anthropic-beta'];
  return { url, method: 'POST', headers: beta ? { ...headers, 'anthropic-beta': beta } : headers, body: JSON.stringify(vertexClaudeBody(withoutModel(input.body))) };
}

/** Vertex names Claude versions with `@` ("claude-sonnet-4-5@20250929"); Anthropic's dated names are taken too. */
export function vertexClaudeModel(model: string): string {
  return model.replace(/^(claude-.+)-(\d{8})$/, '$1@$2');
}

/** A Messages body as rawPredict takes it: the model in the URL, the API version in the body. */
export function vertexClaudeBody(body: Record<string, unknown>): Record<string, unknown> {
  const { model: _model, anthropic_version: _version, ...rest } = body;
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
}

/** Vertex wants a role on every content, where the Gemini API assumes `user`. */
function vertexGeminiBody(body: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(body.contents) || body.contents.every((c) => typeof c !== 'object' || c === null || typeof (c as { role?: unknown }).role === 'string')) return body;
  return { ...body, contents: body.contents.map((c) => (typeof c === 'object' && c !== null && typeof (c as { role?: unknown }).role !== 'string' ? { ...c, role: 'user' } : c)) };
}

/**
 * Vertex's errors: Google-shaped for the platform (auth, quota, project, model), Anthropic-shaped for what Claude
 * itself refuses. 429, 5xx, 529 and timeouts are worth another channel; so are 401 (the token) and 403 (the
 * project's permissions, or a model this project cannot use: "... (or it may not exist)", so a client naming an
 * unknown model must not disable the channel). The API or billing disabled on the project, or a service account
 * the token endpoint refuses, leave the channel dead.
 */
export function classifyVertexError(status: number, body: string): ErrorVerdict {
  let parsed: Record<string, unknown> | undefined;
  try {
    const value: unknown = JSON.parse(body);
    parsed = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed?.error === 'string') {
    const description = typeof parsed.error_description === 'string' ? `: ${parsed.error_description}` : '';
    return { retry: true, disableChannel: true, message: `${parsed.error}${description}` };
  }
  if (parsed?.type === 'error') return { ...classifyAnthropicError(status, body), disableChannel: false };
  const error = readGoogleError(status, body);
  if (error.reasons.some((reason) => DEAD_CHANNEL_REASONS.includes(reason))) return { retry: true, disableChannel: true, message: error.message };
  const retry = isPassingFault(status) || status === 401 || status === 403 || error.status === 'FAILED_PRECONDITION';
  return { retry, disableChannel: false, message: error.message };
}
