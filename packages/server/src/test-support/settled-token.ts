import type { Storage } from '../storage/database.js';

/**
 * A key's state once its requests are settled: at least `logs` consume rows and no reservation left open. Waits
 * for exactly that (up to 20 s: a loaded machine settles late, an idle one at once), then returns the rows, the
 * reservations still open and the key's row for the caller to check.
 */
export async function settledToken(storage: Storage, tokenId: number, logs: number) {
  const state = async () => ({
    logs: await storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).execute(),
    open: await storage.db.selectFrom('quota_reservations').selectAll().where('status', '=', 'open').execute(),
    token: await storage.db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow(),
  });
  let now = await state();
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && (now.logs.length < logs || now.open.length > 0)) {
    await new Promise((r) => setTimeout(r, 20));
    now = await state();
  }
  return now;
}
