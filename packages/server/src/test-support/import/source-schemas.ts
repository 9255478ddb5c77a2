import type { SourceDialect } from '../../import/source/open-source.js';

/**
 * The tables of one-api and new-api as their gorm models define them (table and column names and kinds, as facts;
 * none of their code). one-api: model/*.go of v0.5.11 (no channels.config, no users.lark_id, no tokens.models /
 * subnet) and of the last v0.6 line (all of those, plus users.oidc_id, channels.system_prompt and logs.request_id /
 * elapsed_time / is_stream). new-api: model/*.go as of 2025/2026 (soft-deleted users, tokens and codes, multi-key
 * channels with channel_info, logs with use_time and other).
 */
type Kind = 'id' | 'int' | 'str' | 'text' | 'bool' | 'float' | 'json' | 'time';
type Column = [name: string, kind: Kind, unique?: 'unique'];
export type SourceKind = 'one-api' | 'one-api-0.5' | 'new-api';

const ONE_API_06: Record<string, Column[]> = {
  users: [['id', 'id'], ['username', 'str', 'unique'], ['password', 'str'], ['display_name', 'str'], ['role', 'int'], ['status', 'int'], ['email', 'str'], ['github_id', 'str'], ['wechat_id', 'str'], ['lark_id', 'str'], ['oidc_id', 'str'], ['access_token', 'str', 'unique'], ['quota', 'int'], ['used_quota', 'int'], ['request_count', 'int'], ['group', 'str'], ['aff_code', 'str', 'unique'], ['inviter_id', 'int']],
  tokens: [['id', 'id'], ['user_id', 'int'], ['key', 'str', 'unique'], ['status', 'int'], ['name', 'str'], ['created_time', 'int'], ['accessed_time', 'int'], ['expired_time', 'int'], ['remain_quota', 'int'], ['unlimited_quota', 'bool'], ['used_quota', 'int'], ['models', 'text'], ['subnet', 'str']],
  channels: [['id', 'id'], ['type', 'int'], ['key', 'text'], ['status', 'int'], ['name', 'str'], ['weight', 'int'], ['created_time', 'int'], ['test_time', 'int'], ['response_time', 'int'], ['base_url', 'str'], ['other', 'str'], ['balance', 'float'], ['balance_updated_time', 'int'], ['models', 'text'], ['group', 'str'], ['used_quota', 'int'], ['model_mapping', 'str'], ['priority', 'int'], ['config', 'text'], ['system_prompt', 'text']],
  redemptions: [['id', 'id'], ['user_id', 'int'], ['key', 'str', 'unique'], ['status', 'int'], ['name', 'str'], ['quota', 'int'], ['created_time', 'int'], ['redeemed_time', 'int']],
  logs: [['id', 'id'], ['user_id', 'int'], ['created_at', 'int'], ['type', 'int'], ['content', 'text'], ['username', 'str'], ['token_name', 'str'], ['model_name', 'str'], ['quota', 'int'], ['prompt_tokens', 'int'], ['completion_tokens', 'int'], ['channel_id', 'int'], ['request_id', 'str'], ['elapsed_time', 'int'], ['is_stream', 'bool'], ['system_prompt_reset', 'bool']],
  options: [['key', 'str', 'unique'], ['value', 'text']],
  abilities: [['group', 'str'], ['model', 'str'], ['channel_id', 'int'], ['enabled', 'bool'], ['priority', 'int']],
};

const without = (columns: Column[], names: string[]) => columns.filter(([name]) => !names.includes(name));
const ONE_API_05: Record<string, Column[]> = {
  ...ONE_API_06,
  users: without(ONE_API_06.users, ['lark_id', 'oidc_id']),
  tokens: without(ONE_API_06.tokens, ['models', 'subnet']),
  channels: without(ONE_API_06.channels, ['config', 'system_prompt']),
  logs: without(ONE_API_06.logs, ['request_id', 'elapsed_time', 'is_stream', 'system_prompt_reset']),
};

const NEW_API: Record<string, Column[]> = {
  users: [['id', 'id'], ['username', 'str', 'unique'], ['password', 'str'], ['display_name', 'str'], ['role', 'int'], ['status', 'int'], ['email', 'str'], ['github_id', 'str'], ['discord_id', 'str'], ['oidc_id', 'str'], ['wechat_id', 'str'], ['telegram_id', 'str'], ['access_token', 'str', 'unique'], ['quota', 'int'], ['used_quota', 'int'], ['request_count', 'int'], ['group', 'str'], ['aff_code', 'str', 'unique'], ['aff_count', 'int'], ['aff_quota', 'int'], ['aff_history', 'int'], ['inviter_id', 'int'], ['deleted_at', 'time'], ['linux_do_id', 'str'], ['setting', 'text'], ['remark', 'str'], ['stripe_customer', 'str'], ['created_at', 'int'], ['last_login_at', 'int']],
  tokens: [['id', 'id'], ['user_id', 'int'], ['key', 'str', 'unique'], ['status', 'int'], ['name', 'str'], ['created_time', 'int'], ['accessed_time', 'int'], ['expired_time', 'int'], ['remain_quota', 'int'], ['unlimited_quota', 'bool'], ['model_limits_enabled', 'bool'], ['model_limits', 'text'], ['allow_ips', 'str'], ['used_quota', 'int'], ['group', 'str'], ['cross_group_retry', 'bool'], ['deleted_at', 'time']],
  channels: [['id', 'id'], ['type', 'int'], ['key', 'text'], ['openai_organization', 'str'], ['test_model', 'str'], ['status', 'int'], ['name', 'str'], ['weight', 'int'], ['created_time', 'int'], ['test_time', 'int'], ['response_time', 'int'], ['base_url', 'str'], ['other', 'text'], ['balance', 'float'], ['balance_updated_time', 'int'], ['models', 'text'], ['group', 'str'], ['used_quota', 'int'], ['model_mapping', 'text'], ['status_code_mapping', 'str'], ['priority', 'int'], ['auto_ban', 'int'], ['other_info', 'text'], ['tag', 'str'], ['setting', 'text'], ['param_override', 'text'], ['header_override', 'text'], ['remark', 'str'], ['channel_info', 'json'], ['settings', 'text']],
  redemptions: [['id', 'id'], ['user_id', 'int'], ['key', 'str', 'unique'], ['status', 'int'], ['name', 'str'], ['quota', 'int'], ['created_time', 'int'], ['redeemed_time', 'int'], ['used_user_id', 'int'], ['deleted_at', 'time'], ['expired_time', 'int']],
  logs: [['id', 'id'], ['user_id', 'int'], ['created_at', 'int'], ['type', 'int'], ['content', 'text'], ['username', 'str'], ['token_name', 'str'], ['model_name', 'str'], ['quota', 'int'], ['prompt_tokens', 'int'], ['completion_tokens', 'int'], ['use_time', 'int'], ['is_stream', 'bool'], ['channel_id', 'int'], ['token_id', 'int'], ['group', 'str'], ['ip', 'str'], ['request_id', 'str'], ['other', 'text']],
  options: [['key', 'str', 'unique'], ['value', 'text']],
  abilities: [['group', 'str'], ['model', 'str'], ['channel_id', 'int'], ['enabled', 'bool'], ['priority', 'int'], ['weight', 'int'], ['tag', 'str']],
  setups: [['id', 'id'], ['version', 'str'], ['initialized_at', 'int']],
};

export const SOURCE_SCHEMAS: Record<SourceKind, Record<string, Column[]>> = { 'one-api': ONE_API_06, 'one-api-0.5': ONE_API_05, 'new-api': NEW_API };

const TYPES: Record<SourceDialect, Record<Kind, string>> = {
  sqlite: { id: 'integer primary key autoincrement', int: 'integer', str: 'text', text: 'text', bool: 'numeric', float: 'real', json: 'json', time: 'datetime' },
  postgres: { id: 'bigserial primary key', int: 'bigint', str: 'text', text: 'text', bool: 'boolean', float: 'decimal', json: 'json', time: 'timestamptz' },
  mysql: { id: 'bigint auto_increment primary key', int: 'bigint', str: 'varchar(191)', text: 'longtext', bool: 'tinyint(1)', float: 'double', json: 'json', time: 'datetime(3)' },
};

/** CREATE TABLE statements of one product's schema in one dialect. */
export function createStatements(kind: SourceKind, dialect: SourceDialect, quote: (name: string) => string): string[] {
  return Object.entries(SOURCE_SCHEMAS[kind]).map(([table, columns]) => {
    const defs = columns.map(([name, type, unique]) => `${quote(name)} ${TYPES[dialect][type]}${unique ? ' unique' : ''}`);
    return `create table ${quote(table)} (${defs.join(', ')})`;
  });
}

export function columnsOf(kind: SourceKind, table: string): string[] {
  return (SOURCE_SCHEMAS[kind][table] ?? []).map(([name]) => name);
}
