import { isRecord } from '../../dialects/shared.js';
import type { ChannelTarget } from '../types.js';

/**
 * Where a Vertex AI channel sends its requests and with which service account. The console keeps the parts in
 * the channel's config (`region`, `vertex_ai_project_id`, `vertex_ai_adc`) and composes the key
 * "region|project|credentials JSON" from them; a channel made through the API may have only the key. The config
 * wins (the key of a pasted multi-line JSON can be cut at its first line), the key fills what it lacks, the
 * project defaults to the service account's own and the region to `global`.
 */
export interface VertexChannel {
  region: string;
  project: string;
  /** The service-account key file (JSON text). */
  credentials: string;
}

/** A Vertex channel whose settings cannot work; the message says which one, in the console's words. */
export class VertexConfigError extends Error {}

const REGION = /^[a-z][a-z0-9-]{1,40}$/;
/** Project ids, including the legacy domain-scoped form ("example.com:project"). */
const PROJECT = /^([a-z0-9.-]+:)?[a-z][a-z0-9-]{3,61}[a-z0-9]$/;

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

function jsonObject(value: string): Record<string, unknown> | undefined {
  if (!value.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function readVertexChannel(channel: ChannelTarget): VertexChannel {
  const key = channel.key.trim();
  const piped = !key.startsWith('{') && key.includes('|');
  const [keyRegion = '', keyProject = '', ...rest] = piped ? key.split('|') : [];
  const keyCredentials = piped ? rest.join('|').trim() : key;

  const fromConfig = text(channel.config.vertex_ai_adc);
  const credentials = jsonObject(fromConfig) ? fromConfig : jsonObject(keyCredentials) ? keyCredentials : '';
  if (!credentials) throw new VertexConfigError('Vertex AI 渠道缺少有效的凭证 JSON（服务账号密钥）');
  const region = text(channel.config.region) || keyRegion.trim() || text(channel.other) || 'global';
  const project = text(channel.config.vertex_ai_project_id) || keyProject.trim() || text(jsonObject(credentials)?.project_id);
  if (!REGION.test(region)) throw new VertexConfigError(`Vertex AI 区域无效：${region.slice(0, 60)}`);
  if (!project) throw new VertexConfigError('Vertex AI 渠道缺少 Project ID');
  if (!PROJECT.test(project)) throw new VertexConfigError(`Vertex AI Project ID 无效：${project.slice(0, 60)}`);
  return { region, project, credentials };
}
