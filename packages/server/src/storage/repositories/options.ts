import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class OptionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async all(): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('options').selectAll().execute();
    return new Map(rows.map((row) => [row.key, row.value ?? '']));
  }

  async get(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst();
    return row ? (row.value ?? '') : undefined;
  }

  /**
   * The stored value of `key`, storing `value` first when there is none. Several instances starting at once
   * all end up with the one value that was stored first (the primary key lets one insert win).
   */
  async getOrCreate(key: string, value: string): Promise<string> {
    const stored = await this.get(key);
    if (stored !== undefined) return stored;
    try {
      await this.db.insertInto('options').values({ key, value }).execute();
    } catch {
      // another instance stored it first
    }
    return (await this.get(key)) ?? value;
  }

  /** Insert-or-update in each dialect's own upsert form. */
  async set(key: string, value: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const existing = await trx.selectFrom('options').select('key').where('key', '=', key).executeTakeFirst();
      if (existing) await trx.updateTable('options').set({ value }).where('key', '=', key).execute();
      else await trx.insertInto('options').values({ key, value }).execute();
    });
  }
}
