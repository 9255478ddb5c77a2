import type { Kysely } from 'kysely';
import { ChannelStatus } from '@model-relay/contract';
import type { RelayCache } from '../relay-cache.js';
import type { ChannelRow, Database, TokenRow, UserRow } from '../schema.js';
import { TokensRepository } from './tokens.js';

/** A channel that can serve a (group, model) pair, with what selection needs. */
export interface Candidate {
  id: number;
  priority: number;
  weight: number;
}

/** The reads and the few writes the relay makes outside the billing ledger. */
export class RelayStore {
  private readonly tokens: TokensRepository;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly cache?: RelayCache,
  ) {
    this.tokens = new TokensRepository(db, cache);
  }

  findTokenByKey(key: string): Promise<TokenRow | undefined> {
    const load = () => this.db.selectFrom('tokens').selectAll().where('key', '=', key).executeTakeFirst();
    return this.cache ? this.cache.token(key, load) : load();
  }

  findUser(id: number): Promise<UserRow | undefined> {
    const load = () => this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return this.cache ? this.cache.user(id, load) : load();
  }

  findChannel(id: number): Promise<ChannelRow | undefined> {
    return this.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Enabled channels serving the model for the group, from the abilities index (whole rows: no second lookup). */
  async candidates(group: string, model: string): Promise<ChannelRow[]> {
    return this.cache ? this.cache.channels(group, model, () => this.loadCandidates(group, model)) : this.loadCandidates(group, model);
  }

  private async loadCandidates(group: string, model: string): Promise<ChannelRow[]> {
    const rows = await this.db
      .selectFrom('abilities')
      .innerJoin('channels', 'channels.id', 'abilities.channel_id')
      .selectAll('channels')
      .where('abilities.group', '=', group)
      .where('abilities.model', '=', model)
      .where('abilities.enabled', '=', 1)
      .where('channels.status', '=', ChannelStatus.Enabled)
      .execute();
    return rows.map((row) => ({ ...row, priority: Number(row.priority), weight: Number(row.weight) }));
  }

  /** Every model some enabled channel serves for the group, sorted. */
  async groupModels(group: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('abilities')
      .select('model')
      .distinct()
      .where('group', '=', group)
      .where('enabled', '=', 1)
      .orderBy('model')
      .execute();
    return rows.map((row) => row.model);
  }

  /** The outcome of a channel test: its time, and why it failed ('' when it passed). */
  async recordTest(id: number, responseTimeMs: number, testTime: number, error = ''): Promise<void> {
    await this.db
      .updateTable('channels')
      .set({ response_time: responseTimeMs, test_time: testTime, test_error: error.slice(0, 500) })
      .where('id', '=', id)
      .execute();
  }

  async recordBalance(id: number, balance: number, updatedTime: number): Promise<void> {
    await this.db.updateTable('channels').set({ balance, balance_updated_time: updatedTime }).where('id', '=', id).execute();
  }

  /** "Test all" tests every channel (so an automatically disabled one can come back); "test disabled" only those not enabled. */
  channelsForTest(scope: 'all' | 'disabled'): Promise<ChannelRow[]> {
    const query = this.db.selectFrom('channels').selectAll();
    return (scope === 'disabled' ? query.where('status', '!=', ChannelStatus.Enabled) : query).orderBy('id').execute();
  }

  /** Written by the tokens table's writer (tokens.ts). */
  setTokenStatus(id: number, status: number): Promise<void> {
    return this.tokens.setStatusById(id, status);
  }

  /** Sets a channel's status and keeps the abilities index in step, in one transaction. */
  async setChannelStatus(id: number, status: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('channels').set({ status }).where('id', '=', id).execute();
      await trx
        .updateTable('abilities')
        .set({ enabled: status === ChannelStatus.Enabled ? 1 : 0 })
        .where('channel_id', '=', id)
        .execute();
    });
    this.cache?.invalidateChannels();
  }
}
