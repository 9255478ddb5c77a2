import { LogType } from '@model-relay/contract';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { usernameKey } from '../username-key.js';

const str = (n: number) => sql`varchar(${sql.raw(String(n))})`;

/**
 * Issue 19:
 *  - channels.usage_anomalies: answers of the channel whose upstream usage report could not be billed as it was
 *    (用量异常: unusable, implausibly low, or above what the request allowed); the channel list shows it.
 *  - users.username_key: the username's case-folded form, unique, so that "Alice" and "alice" are one account on
 *    every database (SQLite and PostgreSQL compare case-sensitively, MySQL's collation does not). Accounts that
 *    already differ only in case are kept: the oldest takes the plain key, every other twin a key of its own
 *    (`<key>#<id>`, which no typed name can produce), and a system log lists them for the admin. They still log
 *    in with their exact names.
 */
export const usageChecksMigration = (dialect: Dialect) => ({
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('channels').addColumn('usage_anomalies', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('users').addColumn('username_key', str(80), (c) => c.notNull().defaultTo('')).execute();

    const users = (await sql<{ id: number; username: string }>`select id, username from users order by id`.execute(db)).rows;
    const owners = new Map<string, number>();
    const twins = new Map<string, string[]>();
    for (const user of users) {
      const plain = usernameKey(user.username);
      const owner = owners.get(plain);
      const key = owner === undefined ? plain : `${plain}#${user.id}`;
      if (owner === undefined) owners.set(plain, Number(user.id));
      else twins.set(plain, [...(twins.get(plain) ?? [users.find((u) => Number(u.id) === owner)!.username]), user.username]);
      await sql`update users set username_key = ${key} where id = ${user.id}`.execute(db);
    }
    await db.schema.createIndex('users_username_fold').on('users').column('username_key').unique().execute();
    if (twins.size > 0) {
      const list = [...twins.values()].map((names) => names.join(' / ')).join('；');
      const content = `以下账户的用户名仅大小写不同，已全部保留（各自仍可用原用户名登录），新注册不会再产生此类账户；请核实后合并或改名：${list}`;
      await sql`insert into logs (user_id, created_at, type, content, username) values (0, ${Math.floor(Date.now() / 1000)}, ${LogType.System}, ${content}, '')`.execute(db);
    }
  },
  async down(db: Kysely<unknown>): Promise<void> {
    const drop = db.schema.dropIndex('users_username_fold');
    await (dialect === 'mysql' ? drop.on('users') : drop).execute();
    await db.schema.alterTable('users').dropColumn('username_key').execute();
    await db.schema.alterTable('channels').dropColumn('usage_anomalies').execute();
  },
});
