import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../../test-support/databases.js';
import type { Storage } from '../database.js';
import { ChannelsRepository, type NewChannel } from './channels.js';
import { RelayStore } from './relay-store.js';

const base: NewChannel = {
  type: 1, key: 'k', status: 1, name: 'c', weight: 0, created_time: 0, test_time: 0, response_time: 0, base_url: '', other: '', balance: 0,
  balance_updated_time: 0, models: 'gpt-4o,gpt-4o-mini', group: 'default,vip', used_quota: 0, request_count: 0, model_mapping: '', priority: 0, config: '', system_prompt: '',
};

describe.each(testDatabases())('channels and the abilities index on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let channels: ChannelsRepository;
  let relay: RelayStore;
  beforeAll(async () => {
    storage = await database.open();
    channels = new ChannelsRepository(storage.db, storage.dialect);
    relay = new RelayStore(storage.db);
  });
  afterAll(async () => {
    await storage?.drop();
  });

  it('batch insert returns distinct ids and indexes every group x model', async () => {
    const ids = await channels.insertMany([{ ...base, key: 'a', priority: 5 }, { ...base, key: 'b', priority: 1 }]);
    expect(new Set(ids).size).toBe(2);
    const vip = await relay.candidates('vip', 'gpt-4o');
    expect(vip.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(vip.find((c) => c.id === ids[0])?.priority).toBe(5);
  });

  it('an update rebuilds the index; a disabled channel is no longer a candidate', async () => {
    const [id] = await channels.insertMany([{ ...base, key: 'c', models: 'o1', group: 'default' }]);
    expect((await relay.candidates('default', 'o1')).map((c) => c.id)).toEqual([id]);
    await channels.update(id, { models: 'o3-mini' });
    expect(await relay.candidates('default', 'o1')).toEqual([]);
    expect((await relay.candidates('default', 'o3-mini')).map((c) => c.id)).toEqual([id]);
    await relay.setChannelStatus(id, 3);
    expect(await relay.candidates('default', 'o3-mini')).toEqual([]);
    expect(await channels.deleteDisabled()).toBe(1);
    expect(await channels.find(id)).toBeUndefined();
  });

  it('finds by exact key or name prefix, and deletes with abilities', async () => {
    const [id] = await channels.insertMany([{ ...base, key: 'unique-key-1', name: 'findme' }]);
    expect((await channels.search('unique-key-1')).map((c) => c.id)).toEqual([id]);
    expect((await channels.search('find')).map((c) => c.id)).toEqual([id]);
    expect(await channels.delete(id)).toBe(true);
    expect(await storage.db.selectFrom('abilities').selectAll().where('channel_id', '=', id).execute()).toEqual([]);
  });
});
