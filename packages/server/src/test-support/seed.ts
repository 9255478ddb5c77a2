import { randomAlphanumeric } from '../lib/random.js';
import type { Storage } from '../storage/database.js';
import { UsersRepository } from '../storage/repositories/users.js';
import type { NewUser } from '../storage/schema.js';

/** Direct inserts for relay and ledger tests (the console APIs are tested on their own). */

/**
 * A plain user (role 1, enabled, group default, no email or display name unless `fields` says) with `quota`; its
 * invite code must be unique.
 */
export function seedUser(storage: Storage, username: string, quota: number, affCode: string, fields: Partial<Pick<NewUser, 'group' | 'email' | 'display_name'>> = {}): Promise<number> {
  return new UsersRepository(storage.db).insert({
    username, password: 'x', display_name: '', role: 1, status: 1, email: '', github_id: '', wechat_id: '', lark_id: '',
    access_token: null, quota, used_quota: 0, request_count: 0, group: 'default', aff_code: affCode, inviter_id: 0, created_at: 0,
    ...fields,
  });
}

export async function seedToken(storage: Storage, userId: number, fields: { remain_quota?: number; unlimited?: boolean; name?: string; models?: string; subnet?: string; expired_time?: number; key?: string } = {}) {
  const key = fields.key ?? randomAlphanumeric(48);
  await storage.db
    .insertInto('tokens')
    .values({
      user_id: userId,
      key,
      status: 1,
      name: fields.name ?? 'test-token',
      created_time: Math.floor(Date.now() / 1000),
      accessed_time: 0,
      expired_time: fields.expired_time ?? -1,
      remain_quota: fields.remain_quota ?? 0,
      unlimited_quota: fields.unlimited ? 1 : 0,
      used_quota: 0,
      request_count: 0,
      models: fields.models ?? '',
      subnet: fields.subnet ?? '',
    })
    .execute();
  const row = await storage.db.selectFrom('tokens').select('id').where('key', '=', key).executeTakeFirstOrThrow();
  return { id: row.id, key };
}

export async function seedChannel(
  storage: Storage,
  fields: { name?: string; type?: number; key: string; baseUrl: string; models: string; group?: string; priority?: number; weight?: number; modelMapping?: string; other?: string; config?: string },
) {
  const group = fields.group ?? 'default';
  const result = await storage.db
    .insertInto('channels')
    .values({
      type: fields.type ?? 1,
      key: fields.key,
      status: 1,
      name: fields.name ?? `ch-${fields.key}`,
      weight: fields.weight ?? 0,
      created_time: 0,
      test_time: 0,
      response_time: 0,
      base_url: fields.baseUrl,
      other: fields.other ?? '',
      balance: 0,
      balance_updated_time: 0,
      models: fields.models,
      group,
      used_quota: 0,
      request_count: 0,
      model_mapping: fields.modelMapping ?? '',
      priority: fields.priority ?? 0,
      config: fields.config ?? '',
      system_prompt: '',
    })
    .executeTakeFirstOrThrow();
  const id = result.insertId !== undefined ? Number(result.insertId) : (await storage.db.selectFrom('channels').select('id').where('name', '=', fields.name ?? `ch-${fields.key}`).executeTakeFirstOrThrow()).id;
  for (const g of group.split(',')) {
    for (const model of fields.models.split(',')) {
      await storage.db.insertInto('abilities').values({ group: g, model, channel_id: id, enabled: 1, priority: fields.priority ?? 0, weight: fields.weight ?? 0 }).execute();
    }
  }
  return id;
}
