import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../test-support/databases.js';
import { ClusterNode } from './cluster-node.js';
import { RedisLeaseStore, SqlLeaseStore, type LeaseStore } from './leases.js';

const redisUrl = process.env.TEST_REDIS_URL;
const redis = redisUrl ? new Redis(redisUrl) : undefined;
afterAll(() => redis?.disconnect());

const stores: Array<{ name: string; open(): Promise<{ store: LeaseStore; close(): Promise<void> }> }> = testDatabases().map((database) => ({
  name: `sql on ${database.name}`,
  async open() {
    const storage = await database.open();
    return { store: new SqlLeaseStore(storage.db), close: () => storage.drop() };
  },
}));
if (redis) stores.push({ name: 'redis', open: async () => ({ store: new RedisLeaseStore(redis), close: async () => undefined }) });
// For counting instances: a namespace of its own, as every deployment has (its keys carry its cluster id).
if (redisUrl) {
  stores.push({
    name: 'redis, a namespace of its own',
    open: async () => {
      const own = new Redis(redisUrl, { keyPrefix: `mr:test-${Math.random()}:` });
      return { store: new RedisLeaseStore(own), close: async () => own.disconnect() };
    },
  });
}

describe.each(stores)('$name leases', ({ name: storeName, open }) => {
  it.skipIf(storeName === 'redis')('counts the instances alive: taken and renewed count, other leases do not, released or expired ones no longer; a node knows whether it is alone', async () => {
    const { store, close } = await open();
    try {
      expect(await store.liveInstances()).toBe(0);
      expect(await store.acquire('instance:a', 'a', 400)).toBe(true);
      expect(await store.acquire('instance:b', 'b', 400)).toBe(true);
      expect(await store.acquire('instance:a', 'a', 400)).toBe(true);
      expect(await store.acquire('job:x', 'a', 400)).toBe(true);
      expect(await store.liveInstances()).toBe(2);
      await store.release('instance:b', 'b');
      expect(await store.liveInstances()).toBe(1);
      await new Promise((r) => setTimeout(r, 450));
      expect(await store.liveInstances()).toBe(0);
      const first = new ClusterNode(store, 'first');
      const second = new ClusterNode(store, 'second');
      await first.start();
      expect(first.alone).toBe(true);
      await second.start();
      expect(second.alone).toBe(false);
      await first.stop();
      await second.stop();
      expect(await store.liveInstances()).toBe(0);
    } finally {
      await close();
    }
  });

  it('one holder at a time; renewable by its holder; free again when it expires or is released', async () => {
    const { store, close } = await open();
    const name = `test:${Date.now()}:${Math.random()}`;
    try {
      const takers = await Promise.all(['a', 'b', 'c', 'd'].map((holder) => store.acquire(name, holder, 300)));
      expect(takers.filter(Boolean)).toHaveLength(1);
      const holder = ['a', 'b', 'c', 'd'][takers.indexOf(true)];
      const other = holder === 'a' ? 'b' : 'a';
      expect(await store.acquire(name, holder, 300)).toBe(true);
      expect(await store.acquire(name, other, 300)).toBe(false);
      expect(await store.isHeld(name)).toBe(true);
      await new Promise((r) => setTimeout(r, 350));
      expect(await store.isHeld(name)).toBe(false);
      expect(await store.acquire(name, other, 300)).toBe(true);
      await store.release(name, holder); // not its lease any more: nothing happens
      expect(await store.isHeld(name)).toBe(true);
      await store.release(name, other);
      expect(await store.isHeld(name)).toBe(false);
    } finally {
      await close();
    }
  });

  it('a job runs on one instance of three, and passes to a survivor when that one stops', async () => {
    const { store, close } = await open();
    const runs: string[] = [];
    const job = `job-${Math.random()}`;
    const nodes = ['n1', 'n2', 'n3'].map((id) => new ClusterNode(store, id));
    try {
      for (const node of nodes) {
        await node.start();
        node.every(job, 50, async () => {
          runs.push(node.instanceId);
        });
      }
      await new Promise((r) => setTimeout(r, 400));
      const first = new Set(runs);
      expect(first.size).toBe(1);
      const leader = nodes.find((n) => first.has(n.instanceId))!;
      expect(await nodes[0].isAlive(leader.instanceId)).toBe(true);
      await leader.stop();
      expect(await nodes.find((n) => n !== leader)!.isAlive(leader.instanceId)).toBe(false);
      runs.length = 0;
      await new Promise((r) => setTimeout(r, 400));
      expect(runs.length).toBeGreaterThan(0);
      expect(runs).not.toContain(leader.instanceId);
      expect(new Set(runs).size).toBe(1);
    } finally {
      for (const node of nodes) await node.stop();
      await close();
    }
  });

  it('a renewal still under way when an instance stops does not keep its leases after stop()', async () => {
    const { store, close } = await open();
    // Every take answers 120 ms late, so stop() arrives while one is on its way.
    const slow: LeaseStore = {
      acquire: async (name, holder, ttl) => {
        await new Promise((r) => setTimeout(r, 120));
        return store.acquire(name, holder, ttl);
      },
      release: (name, holder) => store.release(name, holder),
      isHeld: (name) => store.isHeld(name),
      liveInstances: () => store.liveInstances(),
    };
    const job = `job-${Math.random()}`;
    const node = new ClusterNode(slow, `slow-${Math.random()}`);
    try {
      await node.start();
      node.every(job, 20, async () => undefined);
      await new Promise((r) => setTimeout(r, 200)); // the first take landed; the next is under way
      await node.stop();
      expect(await store.isHeld(`job:${job}`)).toBe(false);
      expect(await store.isHeld(`instance:${node.instanceId}`)).toBe(false);
      await new Promise((r) => setTimeout(r, 150));
      expect(await store.isHeld(`job:${job}`)).toBe(false);
    } finally {
      await node.stop();
      await close();
    }
  });
});
