import { ImportError } from '../import-error.js';
import type { SourceDatabase } from './open-source.js';

export type Product = 'one-api' | 'new-api';

/** What the source is: the product, the schema generation its columns show, and each table's columns. */
export interface SourceSchema {
  product: Product;
  /** In words, for the report: "one-api（表结构相当于 v0.6.10 或更新）". */
  version: string;
  tables: Set<string>;
  columns: Record<'users' | 'tokens' | 'channels' | 'redemptions' | 'logs' | 'options', Set<string>>;
}

const REQUIRED = ['users', 'tokens', 'channels', 'options'] as const;
/** Tables only new-api creates. */
const NEW_API_TABLES = ['setups', 'midjourneys', 'tasks', 'top_ups', 'quota_data', 'vendors', 'models', 'two_fas'];

/**
 * Tells one-api from new-api by facts of their published schemas: new-api soft-deletes users (users.deleted_at)
 * and keeps tables one-api never had; one-api's generations differ by the columns each release added
 * (channels.config in v0.6.0, users.lark_id and tokens.models / subnet in v0.6.5, channels.system_prompt in
 * v0.6.10, logs.request_id after v0.6.10).
 */
export async function detectProduct(source: SourceDatabase): Promise<SourceSchema> {
  const tables = await source.tables();
  const missing = REQUIRED.filter((table) => !tables.has(table));
  if (missing.length > 0) {
    throw new ImportError(`${source.label} 不像 one-api 或 new-api 的数据库：缺少表 ${missing.join('、')}`);
  }
  const read = async (table: string) => (tables.has(table) ? await source.columns(table) : new Set<string>());
  const columns = {
    users: await read('users'),
    tokens: await read('tokens'),
    channels: await read('channels'),
    redemptions: await read('redemptions'),
    logs: await read('logs'),
    options: await read('options'),
  };
  if (tables.has('quota_reservations') || columns.users.has('username_key')) {
    throw new ImportError(`${source.label} 是 Model Relay 自己的数据库，不是 one-api 或 new-api 的：无需导入（直接把 SQLITE_PATH / SQL_DSN 指向它即可）`);
  }
  for (const needed of ['id', 'username', 'password', 'quota']) {
    if (!columns.users.has(needed)) throw new ImportError(`${source.label} 的 users 表缺少列 ${needed}，无法识别为 one-api 或 new-api`);
  }
  const newApi = columns.users.has('deleted_at') || columns.channels.has('channel_info') || columns.tokens.has('model_limits') || NEW_API_TABLES.some((t) => tables.has(t));
  if (newApi) {
    let version = '';
    if (tables.has('setups')) {
      const rows = await source.query(`select version from ${source.id('setups')} order by id desc limit 1`).catch(() => []);
      version = rows[0]?.version ? String(rows[0].version) : '';
    }
    return { product: 'new-api', version: version ? `new-api ${version}` : 'new-api（未记录版本，按当前表结构读取）', tables, columns };
  }
  let generation: string;
  if (columns.logs.has('request_id')) generation = 'v0.6.11 预览版或更新';
  else if (columns.channels.has('system_prompt')) generation = 'v0.6.10';
  else if (columns.tokens.has('models')) generation = 'v0.6.5 – v0.6.9';
  else if (columns.channels.has('config')) generation = 'v0.6.0 – v0.6.4';
  else generation = 'v0.5.x 或更早';
  return { product: 'one-api', version: `one-api（表结构相当于 ${generation}）`, tables, columns };
}
