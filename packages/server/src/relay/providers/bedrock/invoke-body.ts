import { asArray, badRequest, isRecord } from '../../dialects/shared.js';

/** The Messages API version InvokeModel takes for Claude (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html). */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * What InvokeModel's Claude schema takes. It refuses any other key ("extraneous key [model] is not permitted"), and
 * Anthropic's API has several Bedrock does not (model, stream, metadata, service_tier, container, mcp_servers,
 * inference_geo, ...): those are features of Anthropic's own service and are left out rather than failing the call.
 */
const INVOKE_KEYS = new Set(['anthropic_beta', 'max_tokens', 'system', 'messages', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'tools', 'tool_choice', 'thinking', 'output_config', 'cache_control']);

/**
 * Beta features Claude on Bedrock accepts in `anthropic_beta`. Bedrock answers "invalid beta flag" to others, and
 * Claude Code sends several that exist only at Anthropic (claude-code-…, oauth-…, files-api-…): forwarding those
 * would fail every request, so only these pass.
 */
const BEDROCK_BETAS = new Set([
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
]);

/**
 * An Anthropic Messages body (a client's, passed through, or one the translation built) as InvokeModel's body:
 * `anthropic_version: bedrock-2023-05-31`, no model or stream (both are in the URL), betas from the client's
 * `anthropic-beta` header moved into `anthropic_beta`.
 */
export function invokeModelBody(body: Record<string, unknown>, betaHeader?: string): Record<string, unknown> {
  // Tools Anthropic runs on its own service (web search and fetch, code execution) do not run on Bedrock.
  for (const tool of asArray(body.tools)) {
    const type = isRecord(tool) && typeof tool.type === 'string' ? tool.type : '';
    if (/^(web_search|web_fetch|code_execution)/.test(type)) throw badRequest(`AWS Bedrock 上的 Claude 不支持 Anthropic 服务端工具 ${type.slice(0, 60)}：请换用 Claude 或 Vertex 渠道，或关闭该工具`);
  }
  const out: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  for (const [key, value] of Object.entries(body)) if (INVOKE_KEYS.has(key)) out[key] = value;
  const requested = [...asArray(body.anthropic_beta), ...(betaHeader ?? '').split(',')].map((beta) => String(beta).trim());
  const betas = [...new Set(requested)].filter((beta) => BEDROCK_BETAS.has(beta));
  if (betas.length) out.anthropic_beta = betas;
  else delete out.anthropic_beta;
  return out;
}
