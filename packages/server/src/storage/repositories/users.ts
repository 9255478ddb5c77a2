import { sql, type Kysely } from 'kysely';
import { PAGE_SIZE, idFromKeyword } from '@model-relay/contract';
import type { RelayCache } from '../relay-cache.js';
import { usernameKey } from '../username-key.js';
import type { Database, NewUser, UserRow, UserUpdate } from '../schema.js';

export type UserOrder = 'quota' | 'used_quota' | 'request_count' | '';

/** Data access for users. Pure SQL: no permission logic here (that lives in the services). */
export class UsersRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly cache?: RelayCache,
  ) {}

  count(): Promise<number> {
    return this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.n));
  }

  /** Balances, spending and requests of every user summed (the admin dashboard's site-wide cards). */
  async sumAccounts(): Promise<{ quota: number; used_quota: number; request_count: number }> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => [eb.fn.sum<number | string>('quota').as('quota'), eb.fn.sum<number | string>('used_quota').as('used_quota'), eb.fn.sum<number | string>('request_count').as('request_count')])
      .executeTakeFirst();
    return { quota: Number(row?.quota ?? 0) || 0, used_quota: Number(row?.used_quota ?? 0) || 0, request_count: Number(row?.request_count ?? 0) || 0 };
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The account holding this name, whatever the letter case (users.username_key is unique). */
  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('username_key', '=', usernameKey(username)).executeTakeFirst();
  }

  /**
   * The account a login names: the exact name first (so each of the case twins an old database may hold can
   * still log in with its own name), else the name whatever its case.
   */
  async findForLogin(username: string): Promise<UserRow | undefined> {
    const exact = await this.db.selectFrom('users').selectAll().where('username', '=', username).execute();
    return exact.find((user) => user.username === username) ?? (await this.findByUsername(username));
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  findByAccessToken(token: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('access_token', '=', token).executeTakeFirst();
  }

  findByAffCode(code: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('aff_code', '=', code).executeTakeFirst();
  }

  async insert(user: NewUser, db: Kysely<Database> = this.db): Promise<number> {
    const result = await db.insertInto('users').values({ ...user, username_key: usernameKey(user.username) }).executeTakeFirstOrThrow();
    if (result.insertId !== undefined) return Number(result.insertId);
    const row = await db.selectFrom('users').select('id').where('username', '=', user.username).executeTakeFirstOrThrow();
    return row.id;
  }

  async update(id: number, changes: UserUpdate, db: Kysely<Database> = this.db): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await db.updateTable('users').set(changes.username === undefined ? changes : { ...changes, username_key: usernameKey(changes.username) }).where('id', '=', id).execute();
    this.cache?.invalidateUser(id);
  }

  /** A new password hash, ending every session of the user in the same statement (a reset meant to lock a thief out). */
  async setPassword(id: number, hash: string, db: Kysely<Database> = this.db): Promise<void> {
    await db
      .updateTable('users')
      .set({ password: hash, session_version: sql<number>`session_version + 1` })
      .where('id', '=', id)
      .execute();
    this.cache?.invalidateUser(id);
  }

  /**
   * Replaces an old-form password hash (bcrypt from an imported database) with a new one of the same password,
   * only while the stored hash is still `previous` (a password changed meanwhile is never overwritten). Sessions
   * stay: the password did not change.
   */
  async upgradePasswordHash(id: number, previous: string, hash: string): Promise<void> {
    await this.db.updateTable('users').set({ password: hash }).where('id', '=', id).where('password', '=', previous).execute();
    this.cache?.invalidateUser(id);
  }

  /** Ends every session of the user: their cookies carry the old session_version (one atomic increment). */
  async endSessions(id: number, db: Kysely<Database> = this.db): Promise<void> {
    await db
      .updateTable('users')
      .set({ session_version: sql<number>`session_version + 1` })
      .where('id', '=', id)
      .execute();
    this.cache?.invalidateUser(id);
  }

  /** Adds (or with a negative delta removes) quota in one atomic statement. */
  async addQuota(id: number, delta: number, db: Kysely<Database> = this.db): Promise<void> {
    await db
      .updateTable('users')
      .set({ quota: sql<number>`quota + ${delta}` })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('tokens').where('user_id', '=', id).execute();
      await trx.deleteFrom('users').where('id', '=', id).execute();
    });
    this.cache?.invalidateUser(id);
    this.cache?.invalidateTokens();
  }

  list(page: number, order: UserOrder): Promise<UserRow[]> {
    let query = this.db.selectFrom('users').selectAll();
    query = order ? query.orderBy(order, 'desc').orderBy('id', 'desc') : query.orderBy('id', 'desc');
    return query.limit(PAGE_SIZE).offset(Math.max(0, page) * PAGE_SIZE).execute();
  }

  /** Exact id, or prefix match on username, email and display name (docs/console.md §2: search by ID, username, display name, email). */
  search(keyword: string): Promise<UserRow[]> {
    const prefix = `${escapeLike(keyword)}%`;
    const like = (column: 'username' | 'email' | 'display_name') => sql<boolean>`${sql.ref(column)} like ${prefix} escape '!'`;
    const id = idFromKeyword(keyword) ?? -1;
    return this.db
      .selectFrom('users')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('id', '=', id),
          like('username'),
          like('email'),
          like('display_name'),
        ]),
      )
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
  }
}

/**
 * Escapes LIKE wildcards so a search for "a_b" is literal. Uses "!" with an explicit ESCAPE clause because
 * the three dialects disagree on backslash (SQLite has no default escape, PostgreSQL's standard strings).
 */
export function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
