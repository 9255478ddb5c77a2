import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { openSource, type SourceDatabase, type SourceDialect } from '../../import/source/open-source.js';
import { createServerDatabase } from '../databases.js';
import { columnsOf, createStatements, type SourceKind } from './source-schemas.js';

/** 48 alphanumerics, as both products generate keys. */
const key = (seed: string) => (seed.repeat(48).replace(/[^A-Za-z0-9]/g, 'x')).slice(0, 48);

/** The facts a test checks the import against. */
export const FIXTURE = {
  passwords: { root: 'root-old-pass', alice: 'alice-old-pass' },
  // main has dashes, as new-api's keys may: it must import and relay as it is
  keys: { main: `alice-main-${key('AliceMain1').slice(11)}`, disabled: key('Disabled2'), expired: key('Expired3'), exhausted: key('Exhaust4'), unlimited: key('Unlimit5'), scoped: key('Scoped6'), badSubnet: key('BadNet7'), groupKey: key('GroupKey8'), deleted: key('Deleted9'), root: key('RootKey10') },
  aliceQuota: 2_000_000,
  mainKeyQuota: 500_000,
  codes: { unused: 'code-unused-0000000000000000000', used: 'code-used-00000000000000000000000', disabled: 'code-disabled-000000000000000000', expiring: 'code-expiring-000000000000000000', deleted: 'code-deleted-0000000000000000000' },
  consumeLogs: 40,
  logQuota: 100,
};

let hashes: { root: string; alice: string; other: string } | undefined;
/** bcrypt at cost 10 ($2a$10$), as one-api and new-api store passwords; made once per test process. */
function passwordHashes() {
  hashes ??= { root: bcrypt.hashSync(FIXTURE.passwords.root, 10).replace(/^\$2b\$/, '$2a$'), alice: bcrypt.hashSync(FIXTURE.passwords.alice, 10).replace(/^\$2b\$/, '$2a$'), other: bcrypt.hashSync('someone-else', 4) };
  return hashes;
}

export interface BuiltSource {
  /** What the import command is given. */
  location: string;
  kind: SourceKind;
  dialect: SourceDialect;
  /** Source users' quota summed. */
  quotaSum: number;
  /** Runs a statement on the source (tests add rows between runs). */
  db: SourceDatabase;
  drop(): Promise<void>;
}

const testEnv = process.env;

/** A one-api or new-api database on SQLite (a temporary file), PostgreSQL or MariaDB, filled with the fixture rows. */
export async function buildSource(kind: SourceKind, dialect: SourceDialect, upstreamUrl: string): Promise<BuiltSource> {
  let location: string;
  let dropServer: (() => Promise<void>) | undefined;
  let dir: string | undefined;
  if (dialect === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'mr-import-source-'));
    location = join(dir, `${kind}.db`);
  } else {
    const admin = dialect === 'postgres' ? testEnv.TEST_PG_DSN : testEnv.TEST_MYSQL_DSN;
    if (!admin) throw new Error(`no ${dialect} test server`);
    const server = await createServerDatabase(dialect, admin);
    location = server.dsn;
    dropServer = server.drop;
  }
  const db = await openSource(location, { create: true });
  for (const statement of createStatements(kind, dialect, db.id)) await db.exec(statement);
  const quotaSum = await fill(db, kind, upstreamUrl);
  return {
    location,
    kind,
    dialect,
    quotaSum,
    db,
    async drop() {
      await db.close();
      await dropServer?.();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Inserts a row with the columns the kind's table has (others of `row` are left out, as an older version lacks them). */
export async function insertRow(db: SourceDatabase, kind: SourceKind, table: string, row: Record<string, unknown>): Promise<void> {
  const columns = columnsOf(kind, table).filter((c) => c in row);
  const values = columns.map((c) => {
    const value = row[c];
    return typeof value === 'boolean' && db.dialect !== 'postgres' ? Number(value) : value;
  });
  await db.exec(`insert into ${db.id(table)} (${columns.map(db.id).join(', ')}) values (${columns.map(() => '?').join(', ')})`, values);
}

async function fill(db: SourceDatabase, kind: SourceKind, upstreamUrl: string): Promise<number> {
  const newApi = kind === 'new-api';
  const h = passwordHashes();
  const now = Math.floor(Date.now() / 1000);
  const put = (table: string, row: Record<string, unknown>) => insertRow(db, kind, table, row);
  const user = (fields: Record<string, unknown>): Record<string, unknown> => ({ display_name: '', role: 1, status: 1, email: '', github_id: '', wechat_id: '', lark_id: '', used_quota: 0, request_count: 0, group: 'default', inviter_id: 0, ...fields });
  const users = [
    user({ id: 1, username: 'root', password: h.root, display_name: 'Root User', role: 100, quota: 100_000_000, used_quota: 5000, request_count: 10, aff_code: 'ROOT', access_token: '0123456789abcdef0123456789abcdef' }),
    user({ id: 2, username: 'alice', password: h.alice, display_name: 'Alice', quota: FIXTURE.aliceQuota, used_quota: 300, request_count: 3, group: 'vip', email: 'alice@example.com', github_id: 'gh-alice', wechat_id: 'wx-alice', lark_id: 'lark-alice', aff_code: 'ALIC', inviter_id: 1, telegram_id: 'tg-alice', created_at: now - 86_400 }),
    user({ id: 3, username: 'bob', password: h.other, status: 2, quota: 1234, aff_code: 'BOBB' }),
    user({ id: 5, username: 'carol', password: h.other, quota: 5000, aff_code: 'CARO', ...(newApi ? { deleted_at: '2025-01-02 03:04:05' } : { status: 3 }) }),
  ];
  // MySQL's default collation refuses names differing only in case: only SQLite and PostgreSQL sources have twins.
  if (db.dialect !== 'mysql') users.push(user({ id: 4, username: 'Alice', password: h.other, quota: 10, aff_code: 'ALI2' }));
  for (const row of users) await put('users', row);

  const token = (fields: Record<string, unknown>) => ({ user_id: 2, status: 1, name: 'key', created_time: now - 3600, accessed_time: 0, expired_time: -1, remain_quota: 0, unlimited_quota: false, used_quota: 0, models: '', subnet: '', model_limits_enabled: false, model_limits: '', allow_ips: '', group: '', cross_group_retry: false, ...fields });
  const k = FIXTURE.keys;
  const tokens = [
    token({ id: 1, key: k.main, name: 'main', remain_quota: FIXTURE.mainKeyQuota, used_quota: 100 }),
    token({ id: 2, key: k.disabled, status: 2, remain_quota: 10 }),
    token({ id: 3, key: k.expired, status: 3, expired_time: now - 86_400, remain_quota: 10 }),
    token({ id: 4, key: k.exhausted, status: 4 }),
    token({ id: 5, key: k.unlimited, name: 'unlimited', unlimited_quota: true, expired_time: now + 86_400 * 30 }),
    token({ id: 6, key: k.scoped, name: 'scoped', remain_quota: 1000, models: 'gpt-4o-mini', subnet: '10.0.0.0/8', model_limits_enabled: true, model_limits: 'gpt-4o-mini', allow_ips: '10.0.0.0/8\n192.168.1.1' }),
    token({ id: 7, key: k.badSubnet, name: 'bad-subnet', remain_quota: 1000, subnet: 'not-an-ip', allow_ips: 'not-an-ip' }),
    token({ id: 10, user_id: 1, key: k.root, name: 'root', unlimited_quota: true }),
  ];
  if (newApi) tokens.push(token({ id: 8, key: k.groupKey, name: 'other-group', remain_quota: 1000, group: 'svip' }), token({ id: 9, key: k.deleted, name: 'deleted', deleted_at: '2025-01-02 03:04:05' }));
  for (const row of tokens) await put('tokens', row);

  const channel = (fields: Record<string, unknown>): Record<string, unknown> => ({ status: 1, weight: 0, created_time: now - 7200, test_time: 0, response_time: 0, base_url: '', other: '', balance: 0, balance_updated_time: 0, group: 'default', used_quota: 0, model_mapping: '', priority: 0, config: '', auto_ban: 1, ...fields });
  const vertexCredentials = JSON.stringify({ type: 'service_account', project_id: 'my-project-123', private_key: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n', client_email: 'relay@my-project-123.iam.gserviceaccount.com' }, null, 2);
  const channels = [
    channel({ id: 1, type: 1, name: 'openai-mock', key: 'ok', base_url: upstreamUrl, models: 'gpt-4o-mini,gpt-4o', group: 'default,vip', model_mapping: '{"gpt-4o":"gpt-4o-mini"}', priority: 10, weight: 5, balance: 12.5, used_quota: 999, system_prompt: '' }),
    channel({ id: 2, type: 3, name: 'azure', key: 'azure-key', base_url: 'https://example.openai.azure.com', other: '2024-02-01', models: 'gpt-4', status: 3 }),
    channel({ id: 3, type: 33, name: 'aws', key: 'AKIAEXAMPLE|secretkey|us-east-1', models: 'anthropic.claude-3-haiku-20240307-v1:0', config: '{"region":"us-east-1","ak":"AKIAEXAMPLE","sk":"secretkey"}' }),
    newApi
      ? channel({ id: 4, type: 41, name: 'vertex', key: vertexCredentials, other: 'us-central1', models: 'gemini-2.5-pro' })
      : channel({ id: 4, type: 42, name: 'vertex', key: `us-central1|my-project-123|${vertexCredentials}`, models: 'gemini-2.5-pro', config: JSON.stringify({ region: 'us-central1', vertex_ai_project_id: 'my-project-123', vertex_ai_adc: vertexCredentials }) }),
    channel({ id: 5, type: newApi ? 2 : 46, name: newApi ? 'midjourney' : 'replicate', key: 'x', models: 'mj_imagine' }),
    channel({ id: 6, type: newApi ? 26 : 16, name: 'zhipu', key: 'zhipu-key', models: 'glm-4' }),
    channel({ id: 7, type: newApi ? 43 : 36, name: 'deepseek', key: 'ds-key', models: 'deepseek-chat', status: 2 }),
  ];
  if (newApi) {
    channels.push(
      channel({ id: 8, type: 1, name: 'multi', key: 'ok\nok-two\nok-three', base_url: upstreamUrl, models: 'gpt-3.5-turbo', tag: 'pool', status_code_mapping: '{"429":"500"}',
        channel_info: JSON.stringify({ is_multi_key: true, multi_key_size: 3, multi_key_status_list: { 1: 2 }, multi_key_polling_index: 0, multi_key_mode: 'random' }) }),
    );
  }
  for (const row of channels) await put('channels', row);
  for (const row of channels) {
    for (const group of String(row.group).split(',')) for (const model of String(row.models).split(',')) await put('abilities', { group, model, channel_id: row.id, enabled: row.status === 1, priority: row.priority, weight: 0 });
  }

  const c = FIXTURE.codes;
  const codes = [
    { id: 1, user_id: 1, key: c.unused, status: 1, name: 'welcome', quota: 10_000, created_time: now - 100, redeemed_time: 0, used_user_id: 0, expired_time: 0 },
    { id: 2, user_id: 1, key: c.used, status: 3, name: 'used', quota: 20_000, created_time: now - 100, redeemed_time: now - 50, used_user_id: 2, expired_time: 0 },
    { id: 3, user_id: 1, key: c.disabled, status: 2, name: 'off', quota: 30_000, created_time: now - 100, redeemed_time: 0, used_user_id: 0, expired_time: 0 },
  ];
  if (newApi) codes.push({ id: 4, user_id: 1, key: c.expiring, status: 1, name: 'expiring', quota: 5, created_time: now, redeemed_time: 0, used_user_id: 0, expired_time: now + 86_400 }, { id: 5, user_id: 1, key: c.deleted, status: 1, name: 'deleted', quota: 5, created_time: now, redeemed_time: 0, used_user_id: 0, expired_time: 0, deleted_at: '2025-01-02 03:04:05' } as never);
  for (const row of codes) await put('redemptions', row);

  const options: Record<string, string> = {
    ModelRatio: JSON.stringify({ 'gpt-4o-mini': 0.3, 'custom-model': 2 }),
    CompletionRatio: JSON.stringify({ 'gpt-4o-mini': 4 }),
    GroupRatio: JSON.stringify({ default: 1, vip: 2 }),
    QuotaPerUnit: '500000',
    Notice: '系统公告：欢迎使用',
    SystemName: 'My One API',
    SMTPServer: 'smtp.example.com',
    SMTPPort: '465',
    SMTPAccount: 'mailer@example.com',
    SMTPToken: 'smtp-secret',
    GitHubClientId: 'gh-client',
    GitHubClientSecret: 'gh-secret',
    GitHubOAuthEnabled: 'true',
    RegisterEnabled: 'false',
    RetryTimes: '2',
    QuotaForNewUser: '1000',
    ChannelDisableThreshold: 'five',
    ...(newApi ? { CacheRatio: JSON.stringify({ 'gpt-4o-mini': 0.5 }), ModelPrice: JSON.stringify({ mj_imagine: 0.1 }), 'general_setting.docs_link': 'https://docs.example.com' } : { Theme: 'berry', OidcEnabled: 'true' }),
  };
  for (const [name, value] of Object.entries(options)) await put('options', { key: name, value });
  if (newApi) await put('setups', { id: 1, version: 'v0.9.0', initialized_at: now - 86_400 * 100 });

  await addLogs(db, kind, 1, FIXTURE.consumeLogs, now - 3 * 3600);
  await put('logs', { id: 1000, user_id: 2, created_at: now - 4 * 3600, type: 1, content: '通过兑换码充值 $0.04', username: 'alice', token_name: '', model_name: '', quota: 20_000, prompt_tokens: 0, completion_tokens: 0, channel_id: 0, is_stream: false });
  if (newApi) await put('logs', { id: 1001, user_id: 2, created_at: now - 3600, type: 6, content: '任务失败退款', username: 'alice', token_name: 'main', model_name: 'suno', quota: 50, prompt_tokens: 0, completion_tokens: 0, channel_id: 1, token_id: 1, is_stream: false, use_time: 0, other: '' });
  return users.reduce((sum, u) => sum + Number(u.quota), 0);
}

/** `count` consume logs of alice's main key through channel 1, with ids from `firstId`, a minute apart from `start`. */
export async function addLogs(db: SourceDatabase, kind: SourceKind, firstId: number, count: number, start: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await insertRow(db, kind, 'logs', {
      id: firstId + i, user_id: 2, created_at: start + i * 240, type: 2, content: '模型倍率 0.30，分组倍率 2.00', username: 'alice', token_name: 'main', token_id: 1, model_name: 'gpt-4o-mini',
      quota: FIXTURE.logQuota, prompt_tokens: 10, completion_tokens: 20, channel_id: 1, request_id: `req-${firstId + i}`, elapsed_time: 1500, use_time: 2, is_stream: i % 2 === 0, group: 'vip', ip: '', other: JSON.stringify({ cache_tokens: 4 }),
    });
  }
}
