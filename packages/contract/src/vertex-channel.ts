import { ChannelMessages, parseJsonObject } from './channels.js';

/**
 * How a Vertex AI channel (type 42) is read: the relay's provider and credentials (packages/server/src/relay/
 * providers/vertex/vertex-channel.ts, relay/credentials/google-service-account.ts) and the channel submit checks of
 * the console and the API use these same rules, so a channel is refused on save exactly when it could answer nothing.
 */
export const VERTEX_CHANNEL_TYPE = 42;

/** What a Vertex AI channel is read from, as the relay passes it: its key, `other`, and its config object. */
export interface VertexChannelSource {
  key: string;
  other: string;
  config: Record<string, unknown>;
}

/**
 * Where a Vertex AI channel sends its requests and with which service account. The console keeps the parts in
 * the channel's config (`region`, `vertex_ai_project_id`, `vertex_ai_adc`) and composes the key
 * "region|project|credentials JSON" from them; a channel made through the API may have only the key. The config
 * wins (the key of a pasted multi-line JSON can be cut at its first line), the key fills what it lacks, the
 * project defaults to the service account's own and the region to `global`.
 */
export interface VertexChannelSettings {
  region: string;
  project: string;
  /** The service-account key file (JSON text). */
  credentials: string;
}

/** The fields of a service-account key file the token exchange uses. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/** A reading that worked, or which part of the channel cannot work and why (in the console's words). */
export type VertexReading<T> = { ok: true; value: T } | { ok: false; part: 'credentials' | 'region' | 'project'; message: string };

const REGION = /^[a-z][a-z0-9-]{1,40}$/;
/** Project ids, including the legacy domain-scoped form ("example.com:project"). */
const PROJECT = /^([a-z0-9.-]+:)?[a-z][a-z0-9-]{3,61}[a-z0-9]$/;

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
const jsonObject = (value: string) => (value.startsWith('{') ? parseJsonObject(value) : undefined);

/** The key's parts: "region|project|credentials JSON", or the credentials JSON alone. */
function keyParts(key: string): { region: string; project: string; credentials: string } {
  const trimmed = key.trim();
  if (trimmed.startsWith('{') || !trimmed.includes('|')) return { region: '', project: '', credentials: trimmed };
  const [region = '', project = '', ...rest] = trimmed.split('|');
  return { region: region.trim(), project: project.trim(), credentials: rest.join('|').trim() };
}

/** The credentials JSON text the channel logs in with (config first, then the key), or '' when neither is a JSON object. */
export function vertexCredentials(channel: VertexChannelSource): string {
  const fromConfig = text(channel.config.vertex_ai_adc);
  if (jsonObject(fromConfig)) return fromConfig;
  const fromKey = keyParts(channel.key).credentials;
  return jsonObject(fromKey) ? fromKey : '';
}

/** Region, project and credentials of a Vertex AI channel; the region and the project must be valid ids. */
export function readVertexChannelSettings(channel: VertexChannelSource): VertexReading<VertexChannelSettings> {
  const credentials = vertexCredentials(channel);
  if (!credentials) return { ok: false, part: 'credentials', message: 'Vertex AI 渠道缺少有效的凭证 JSON（服务账号密钥）' };
  const fromKey = keyParts(channel.key);
  const region = text(channel.config.region) || fromKey.region || text(channel.other) || 'global';
  const project = text(channel.config.vertex_ai_project_id) || fromKey.project || text(jsonObject(credentials)?.project_id);
  if (!REGION.test(region)) return { ok: false, part: 'region', message: `Vertex AI 区域无效：${region.slice(0, 60)}` };
  if (!project) return { ok: false, part: 'project', message: 'Vertex AI 渠道缺少 Project ID' };
  if (!PROJECT.test(project)) return { ok: false, part: 'project', message: `Vertex AI Project ID 无效：${project.slice(0, 60)}` };
  return { ok: true, value: { region, project, credentials } };
}

/** A service-account key file: a JSON object of type `service_account` with `client_email` and `private_key`. */
export function readServiceAccountKey(json: string): VertexReading<ServiceAccountKey> {
  const refuse = (message: string) => ({ ok: false, part: 'credentials', message }) as const;
  let key: unknown;
  try {
    key = JSON.parse(json);
  } catch {
    return refuse('凭证不是合法的 JSON');
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return refuse('凭证不是合法的 JSON 对象');
  const fields = key as Record<string, unknown>;
  if (fields.type !== 'service_account') return refuse(`仅支持服务账号（service_account）密钥 JSON，当前类型：${String(fields.type ?? '未知').slice(0, 40)}`);
  if (typeof fields.client_email !== 'string' || typeof fields.private_key !== 'string') return refuse('服务账号密钥缺少 client_email 或 private_key');
  return { ok: true, value: fields as unknown as ServiceAccountKey };
}

/**
 * Why a Vertex AI channel as it would be saved could answer nothing, or undefined when it can work: its credentials
 * (config first, then the key) must be a service-account key file, its region and project valid.
 */
export function vertexChannelProblem(channel: VertexChannelSource): string | undefined {
  const credentials = vertexCredentials(channel);
  if (!credentials || !readServiceAccountKey(credentials).ok) return ChannelMessages.vertexCredentialsInvalid;
  const settings = readVertexChannelSettings(channel);
  return settings.ok ? undefined : settings.message;
}

/** The credentials JSON text alone (what the console's credentials field holds): a service-account key file, or why not. */
export function vertexCredentialsProblem(json: string): string | undefined {
  const trimmed = json.trim();
  return jsonObject(trimmed) && readServiceAccountKey(trimmed).ok ? undefined : ChannelMessages.vertexCredentialsInvalid;
}
