import type { Kysely } from 'kysely';
import type { Database, UserRow } from '../schema.js';

/** The columns that link a user to an outside account. */
export type BindingColumn = 'github_id' | 'lark_id' | 'wechat_id';

/** Look-ups of users by their linked outside accounts (writes go through UsersRepository). */
export class UserBindingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  findBy(column: BindingColumn, accountId: string): Promise<UserRow | undefined> {
    if (!accountId) return Promise.resolve(undefined);
    return this.db.selectFrom('users').selectAll().where(column, '=', accountId).orderBy('id').executeTakeFirst();
  }

  /** The highest user id so far (0 for none): new external users are named `<provider>_<id + 1>`. */
  async maxUserId(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirst();
    return Number(row?.max ?? 0);
  }
}
