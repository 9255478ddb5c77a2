import { sql, type Kysely, type Transaction, type Updateable } from 'kysely';
import { ChannelStatus, PAGE_SIZE, idFromKeyword, splitList } from '@model-relay/contract';
import type { Dialect } from '../database.js';
import type { RelayCache } from '../relay-cache.js';
import type { AbilitiesTable, ChannelRow, ChannelsTable, Database } from '../schema.js';
import { escapeLike } from './users.js';
import { flatMap } from '../../lib/arrays.js';

export type NewChannel = Omit<ChannelRow, 'id' | 'test_error' | 'usage_anomalies'>;
export type ChannelChanges = Omit<Updateable<ChannelsTable>, 'id'>;

/**
 * Channels and the abilities index the relay selects from: one (group, model, channel) row per group x model
 * of each channel, rebuilt in the same transaction as every change, so the two never disagree.
 */
export class ChannelsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly cache?: RelayCache,
  ) {}

  list(page: number): Promise<ChannelRow[]> {
    return this.db.selectFrom('channels').selectAll().orderBy('id', 'desc').limit(PAGE_SIZE).offset(Math.max(0, page) * PAGE_SIZE).execute();
  }

  /** Exact id, name prefix, or exact key (an admin pasting a key finds its channel; the key is never returned). */
  search(keyword: string): Promise<ChannelRow[]> {
    const id = idFromKeyword(keyword) ?? -1;
    return this.db
      .selectFrom('channels')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', id), sql<boolean>`${sql.ref('name')} like ${`${escapeLike(keyword)}%`} escape '!'`, eb('key', '=', keyword)]))
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
  }

  find(id: number): Promise<ChannelRow | undefined> {
    return this.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Inserts several channels (batch create) atomically; returns their ids. */
  async insertMany(rows: NewChannel[]): Promise<number[]> {
    const ids = await this.db.transaction().execute(async (trx) => {
      const ids: number[] = [];
      for (const row of rows) {
        const id =
          this.dialect === 'mysql'
            ? Number((await trx.insertInto('channels').values(row).executeTakeFirstOrThrow()).insertId)
            : (await trx.insertInto('channels').values(row).returning('id').executeTakeFirstOrThrow()).id;
        ids.push(id);
        await this.rebuildAbilities(trx, { ...row, id, test_error: '', usage_anomalies: 0 });
      }
      return ids;
    });
    this.cache?.invalidateChannels();
    return ids;
  }

  async update(id: number, changes: ChannelChanges): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (Object.keys(changes).length > 0) await trx.updateTable('channels').set(changes).where('id', '=', id).execute();
      const row = await trx.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
      if (row) await this.rebuildAbilities(trx, row);
    });
    this.cache?.invalidateChannels();
  }

  async delete(id: number): Promise<boolean> {
    const deleted = await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('abilities').where('channel_id', '=', id).execute();
      const result = await trx.deleteFrom('channels').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
    this.cache?.invalidateChannels();
    return deleted;
  }

  /** Deletes every manually or automatically disabled channel with its abilities; returns how many. */
  async deleteDisabled(): Promise<number> {
    const count = await this.db.transaction().execute(async (trx) => {
      const ids = (await trx.selectFrom('channels').select('id').where('status', '!=', ChannelStatus.Enabled).execute()).map((r) => r.id);
      if (ids.length === 0) return 0;
      await trx.deleteFrom('abilities').where('channel_id', 'in', ids).execute();
      const result = await trx.deleteFrom('channels').where('id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
    this.cache?.invalidateChannels();
    return count;
  }

  private async rebuildAbilities(trx: Transaction<Database>, channel: ChannelRow): Promise<void> {
    await trx.deleteFrom('abilities').where('channel_id', '=', channel.id).execute();
    const rows = abilitiesOf(channel);
    for (let i = 0; i < rows.length; i += 200) await trx.insertInto('abilities').values(rows.slice(i, i + 200)).execute();
  }
}

/** The abilities index rows of one channel: one per group x model, enabled while the channel is. */
export function abilitiesOf(channel: Pick<ChannelRow, 'id' | 'group' | 'models' | 'status' | 'priority' | 'weight'>): AbilitiesTable[] {
  const groups = splitList(channel.group || 'default');
  const models = splitList(channel.models ?? '');
  return flatMap(groups, (group) =>
    models.map((model) => ({
      group,
      model,
      channel_id: channel.id,
      enabled: channel.status === ChannelStatus.Enabled ? 1 : 0,
      priority: Number(channel.priority),
      weight: Number(channel.weight),
    })),
  );
}
