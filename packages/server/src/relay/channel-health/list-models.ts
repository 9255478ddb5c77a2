import { providerInfo } from '@model-relay/contract';
import { adapterFor } from '../providers/registry.js';
import type { ChannelTarget } from '../providers/types.js';
import type { UpstreamPools } from '../transport/upstream-pools.js';

/**
 * The models a channel's upstream says its key can use (the channel form's 获取模型列表): the provider's own list
 * endpoint (OpenAI-compatible /v1/models at the vendor's path, Anthropic's and Gemini's lists, Ollama's /api/tags,
 * Cohere's), read with the channel's key. Sorted, without duplicates. Throws an Error with a Chinese message.
 */
export async function listUpstreamModels(pools: UpstreamPools, channel: ChannelTarget): Promise<string[]> {
  const request = adapterFor(channel.type)?.modelList?.(channel);
  if (!request) throw new Error(`${providerInfo(channel.type).text} 没有可查询的模型列表接口，请手动填写模型`);
  const url = new URL(request.url);
  let status: number;
  let text: string;
  try {
    const response = await pools.get(url.origin).request({ method: 'GET', path: `${url.pathname}${url.search}`, headers: request.headers, signal: AbortSignal.timeout(30_000) });
    status = response.statusCode;
    text = await response.body.text();
  } catch {
    throw new Error('无法连接上游服务');
  }
  if (status >= 400) throw new Error(`上游返回 HTTP ${status}${status === 401 || status === 403 ? '（密钥无效或无权限）' : ''}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('上游返回的不是 JSON');
  }
  return [...new Set(request.read(json))].sort();
}
