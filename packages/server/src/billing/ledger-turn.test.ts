import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../storage/database.js';
import { seedToken, seedUser } from '../test-support/seed.js';
import { QuotaLedger } from './ledger.js';

/**
 * A stream's optimistic reservation is queued just before its upstream call, and the two run side by side
 * (`alongsideCall`): the upstream request must be on the wire before the batch commits, not after it. undici writes
 * a request on a reused keep-alive connection only in the event loop's check phase (it first checks that the socket
 * is still open); a batch committed in that same phase went first and held every stream's upstream request back for
 * its length.
 */
describe('a reservation made alongside its upstream call', () => {
  let storage: Storage;
  let server: Server;
  let pool: Pool;
  const events: string[] = [];
  // undici's own report of a request written to its socket.
  const sent = () => events.push('upstream request written');
  beforeAll(async () => {
    subscribe('undici:client:sendHeaders', sent);
    storage = await openStorage({ sqlitePath: ':memory:' });
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1, pipelining: 1 });
  });
  afterAll(async () => {
    unsubscribe('undici:client:sendHeaders', sent);
    await pool?.close();
    server?.close();
    await storage?.close();
  });

  it('an upstream request on a kept-alive connection goes out before the reservation queued with it commits', async () => {
    const userId = await seedUser(storage, 'turn', 10_000, 'TURN1');
    const token = await seedToken(storage, userId, { remain_quota: 10_000 });
    const ledger = new QuotaLedger(storage);
    // The connection is kept alive by a first call, as the relay's pools keep theirs.
    await (await pool.request({ method: 'POST', path: '/', body: 'warm' })).body.text();
    for (let i = 0; i < 5; i++) {
      events.length = 0;
      const reserved = ledger.reserve({ requestId: `turn-${i}`, userId, tokenId: token.id, unlimited: false, amount: 10, alongsideCall: true }).then(() => events.push('reservation committed'));
      const answered = pool.request({ method: 'POST', path: '/', body: `call ${i}` }).then((r) => r.body.text());
      await Promise.all([reserved, answered]);
      expect(events).toEqual(['upstream request written', 'reservation committed']);
    }
  });
});
