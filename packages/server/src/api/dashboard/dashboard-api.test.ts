import { bucketStart, DashboardMessages, monthStart, type DashboardReport } from '@model-relay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../../test-support/databases.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

/** The API on each real database: SQLite always, PostgreSQL and MariaDB when the test command provides them. */
const targets = [
  { name: 'sqlite', open: async () => ({ env: {}, drop: async () => {} }) },
  ...(process.env.TEST_PG_DSN ? [{ name: 'postgres', open: () => serverDatabase('postgres', process.env.TEST_PG_DSN!) }] : []),
  ...(process.env.TEST_MYSQL_DSN ? [{ name: 'mysql', open: () => serverDatabase('mysql', process.env.TEST_MYSQL_DSN!) }] : []),
];
async function serverDatabase(kind: 'postgres' | 'mysql', admin: string) {
  const database = await createServerDatabase(kind, admin);
  return { env: { SQL_DSN: database.dsn }, drop: database.drop };
}

const H = 3600;
const D = 86_400;
/** 2026-03-10 00:00 UTC: the seeded hours are around it. */
const T0 = Date.UTC(2026, 2, 10) / 1000;
const row = (fields: Partial<Record<string, number | string>> & { hour: number; user_id: number; model: string }) => ({
  token_id: 0, channel_id: 0, instance_id: 'i1', requests: 0, failures: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, quota: 0, latency_ms: 0,
  ...fields,
});

describe.each(targets)('/api/dashboard on $name', (target) => {
  let t: TestApp;
  let drop: () => Promise<void>;
  let root: string;
  let amy: string;
  let amyId: number;
  let bobId: number;
  let keyA: number;
  let keyB: number;
  let bobKey: number;
  let fast: number;
  let slow: number;

  beforeAll(async () => {
    const database = await target.open();
    drop = database.drop;
    t = await createTestApp(database.env);
    root = await t.login('root', '123456');
    for (const username of ['amy', 'bob']) await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username, password: 'password123' } });
    amy = await t.login('amy', 'password123');
    amyId = (await t.ctx.repositories.users.findByUsername('amy'))!.id;
    bobId = (await t.ctx.repositories.users.findByUsername('bob'))!.id;
    keyA = (await seedToken(t.ctx.storage, amyId, { name: 'amy-main' })).id;
    keyB = (await seedToken(t.ctx.storage, amyId, { name: '=HYPERLINK("x")' })).id;
    bobKey = (await seedToken(t.ctx.storage, bobId, { name: 'bob-key' })).id;
    fast = await seedChannel(t.ctx.storage, { name: '快速渠道', key: 'k1', baseUrl: 'http://127.0.0.1:1', models: 'gpt-4o' });
    slow = await seedChannel(t.ctx.storage, { name: 'slow, "quoted"', key: 'k2', baseUrl: 'http://127.0.0.1:1', models: 'gpt-4o' });
    await t.ctx.storage.db
      .insertInto('usage_rollups')
      .values([
        // amy, day 1 (March 10, UTC): the same hour on two instances is one bucket
        row({ hour: T0 + 1 * H, user_id: amyId, token_id: keyA, model: 'gpt-4o', channel_id: fast, requests: 3, prompt_tokens: 300, completion_tokens: 30, cached_tokens: 100, quota: 600, latency_ms: 3000 }),
        row({ hour: T0 + 1 * H, user_id: amyId, token_id: keyA, model: 'gpt-4o', channel_id: fast, instance_id: 'i2', requests: 2, failures: 1, prompt_tokens: 200, completion_tokens: 20, quota: 400, latency_ms: 1000 }),
        row({ hour: T0 + 5 * H, user_id: amyId, token_id: keyB, model: 'claude-sonnet-4-5', channel_id: slow, requests: 1, prompt_tokens: 50, completion_tokens: 500, reasoning_tokens: 200, quota: 5000, latency_ms: 9000 }),
        // amy, day 3
        row({ hour: T0 + 2 * D + 3 * H, user_id: amyId, token_id: keyA, model: 'gpt-4o-mini', channel_id: fast, requests: 10, prompt_tokens: 1000, completion_tokens: 100, quota: 70, latency_ms: 5000 }),
        // bob, day 1 and day 2
        row({ hour: T0 + 2 * H, user_id: bobId, token_id: bobKey, model: 'gpt-4o', channel_id: slow, requests: 4, prompt_tokens: 400, completion_tokens: 40, quota: 9000, latency_ms: 400 }),
        row({ hour: T0 + D + 23 * H, user_id: bobId, token_id: bobKey, model: 'gpt-4o', channel_id: 0, requests: 1, failures: 1, latency_ms: 100 }),
        // outside every range asked below
        row({ hour: T0 - 10 * D, user_id: amyId, token_id: keyA, model: 'gpt-4o', channel_id: fast, requests: 99, quota: 99_999 }),
      ])
      .execute();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await drop?.();
  });

  const get = async (cookie: string | undefined, url: string) => (await t.call({ method: 'GET', url, cookie })).body;
  const range = `start=${T0}&end=${T0 + 3 * D}`;
  const reportOf = async (cookie: string, url: string): Promise<DashboardReport> => {
    const body = await get(cookie, url);
    expect(body.success, body.message).toBe(true);
    return body.data;
  };

  it('a user sees only their own usage: totals, a day series with the empty days, models and keys', async () => {
    const report = await reportOf(amy, `/api/dashboard/self/report?${range}&granularity=day&tz=0`);
    expect(report).toMatchObject({ start: T0, end: T0 + 3 * D, granularity: 'day' });
    expect(report.totals).toEqual({ requests: 16, failures: 1, quota: 6070, prompt_tokens: 1550, completion_tokens: 650, cached_tokens: 100, reasoning_tokens: 200, latency_ms: 18_000 });
    expect(report.series.map((p) => [p.time, p.quota, p.requests])).toEqual([
      [T0, 6000, 6],
      [T0 + D, 0, 0],
      [T0 + 2 * D, 70, 10],
    ]);
    expect(report.models.map((m) => [m.model, m.quota, m.requests])).toEqual([
      ['claude-sonnet-4-5', 5000, 1],
      ['gpt-4o', 1000, 5],
      ['gpt-4o-mini', 70, 10],
    ]);
    expect(report.model_series).toEqual([
      { time: T0, model: 'claude-sonnet-4-5', quota: 5000, requests: 1 },
      { time: T0, model: 'gpt-4o', quota: 1000, requests: 5 },
      { time: T0 + 2 * D, model: 'gpt-4o-mini', quota: 70, requests: 10 },
    ]);
    expect(report.tokens.map((k) => [k.token_name, k.quota])).toEqual([
      ['=HYPERLINK("x")', 5000],
      ['amy-main', 1070],
    ]);
    // users and channels are the operator's view
    expect(report.users).toBeUndefined();
    expect(report.channels).toBeUndefined();
  });

  it("a user's filters narrow their own rows and never widen them to another user's", async () => {
    const byModel = await reportOf(amy, `/api/dashboard/self/report?${range}&model=gpt-4o`);
    expect(byModel.totals.quota).toBe(1000);
    const byKey = await reportOf(amy, `/api/dashboard/self/report?${range}&token_id=${keyA}`);
    expect(byKey.totals.quota).toBe(1070);
    // bob's key and user id are ignored or match nothing
    expect((await reportOf(amy, `/api/dashboard/self/report?${range}&token_id=${bobKey}`)).totals.quota).toBe(0);
    expect((await reportOf(amy, `/api/dashboard/self/report?${range}&user_id=${bobId}&username=bob&channel_id=${slow}`)).totals.quota).toBe(6070);
  });

  it('day buckets start at the viewer\'s midnight; hour buckets are the rollup hours', async () => {
    // UTC+8: amy's 01:00 and 05:00 UTC rows fall on the local March 10, which began at 16:00 UTC (T0 - 8 h)
    const east = await reportOf(amy, `/api/dashboard/self/report?start=${T0 - 8 * H}&end=${T0 + 3 * D - 8 * H}&granularity=day&tz=480`);
    expect(east.series.map((p) => [p.time, p.quota])).toEqual([
      [T0 - 8 * H, 6000],
      [T0 + D - 8 * H, 0],
      [T0 + 2 * D - 8 * H, 70],
    ]);
    // UTC-5: the 01:00 UTC row belongs to the day before (local 20:00), the 05:00 one to March 10
    const west = await reportOf(amy, `/api/dashboard/self/report?start=${T0 - D + 5 * H}&end=${T0 + D + 5 * H}&granularity=day&tz=-300`);
    expect(west.series.map((p) => [p.time, p.quota])).toEqual([
      [T0 - D + 5 * H, 1000],
      [T0 + 5 * H, 5000],
    ]);
    const hours = await reportOf(amy, `/api/dashboard/self/report?start=${T0}&end=${T0 + 6 * H}&granularity=hour`);
    expect(hours.series.map((p) => p.quota)).toEqual([0, 1000, 0, 0, 0, 5000]);
    // a range not on whole hours covers the hours it touches
    const ragged = await reportOf(amy, `/api/dashboard/self/report?start=${T0 + H + 1800}&end=${T0 + 5 * H + 1}&granularity=hour`);
    expect(ragged).toMatchObject({ start: T0 + H, end: T0 + 6 * H });
    expect(ragged.totals.quota).toBe(6000);
  });

  it('an admin sees everyone, top users and channels by spending with their names, and filters by user, key, model and channel', async () => {
    const report = await reportOf(root, `/api/dashboard/report?${range}&tz=0`);
    expect(report.totals.quota).toBe(15_070);
    expect(report.users!.map((u) => [u.username, u.quota, u.requests])).toEqual([
      ['bob', 9000, 5],
      ['amy', 6070, 16],
    ]);
    expect(report.channels!.map((c) => [c.channel_name, c.quota, c.requests, c.failures])).toEqual([
      ['slow, "quoted"', 14_000, 5, 0],
      ['快速渠道', 1070, 15, 1],
      ['（未选中渠道）', 0, 1, 1],
    ]);
    expect(report.tokens.map((k) => [k.token_name, k.user_id])).toEqual([
      ['bob-key', bobId],
      ['=HYPERLINK("x")', amyId],
      ['amy-main', amyId],
    ]);
    const top1 = await reportOf(root, `/api/dashboard/report?${range}&top=1`);
    expect(top1.users!.map((u) => u.username)).toEqual(['bob']);
    expect((await reportOf(root, `/api/dashboard/report?${range}&username=amy`)).totals.quota).toBe(6070);
    expect((await reportOf(root, `/api/dashboard/report?${range}&user_id=${bobId}`)).totals.quota).toBe(9000);
    expect((await reportOf(root, `/api/dashboard/report?${range}&channel_id=${slow}`)).totals.quota).toBe(14_000);
    expect((await reportOf(root, `/api/dashboard/report?${range}&channel_id=${slow}&model=gpt-4o`)).totals.quota).toBe(9000);
    expect((await reportOf(root, `/api/dashboard/report?${range}&token_id=${keyB}`)).totals.quota).toBe(5000);
    expect(await get(root, `/api/dashboard/report?${range}&username=nobody`)).toMatchObject({ success: false, message: '用户 nobody 不存在' });
  });

  it('the summary: balance and what was spent today and this month, in the viewer\'s calendar', async () => {
    const now = Math.floor(Date.now() / 1000);
    const hourNow = now - (now % H);
    const today = bucketStart(now, 'day', 480);
    const month = monthStart(now, 480);
    const user = (await t.ctx.repositories.users.findByUsername('amy'))!;
    await t.ctx.storage.db.updateTable('users').set({ quota: 123_456, used_quota: 789, request_count: 42 }).where('id', '=', user.id).execute();
    await t.ctx.storage.db
      .insertInto('usage_rollups')
      .values([
        row({ hour: hourNow, user_id: amyId, token_id: keyA, model: 'gpt-4o', requests: 2, prompt_tokens: 20, completion_tokens: 5, quota: 11 }),
        row({ hour: hourNow, user_id: bobId, token_id: bobKey, model: 'gpt-4o', requests: 1, quota: 1000 }),
        // earlier this month (or, on the month's first day, the hour before today began: then only "month" may hold it)
        row({ hour: Math.max(month, today - D), user_id: amyId, token_id: keyA, model: 'gpt-4o', instance_id: 'old', requests: 1, quota: 30 }),
        row({ hour: month - H, user_id: amyId, token_id: keyA, model: 'gpt-4o', instance_id: 'last-month', requests: 1, quota: 5000 }),
      ])
      .execute();
    const mine = await get(amy, '/api/dashboard/self/summary?tz=480');
    expect(mine.success).toBe(true);
    const earlierToday = Math.max(month, today - D) >= today;
    expect(mine.data).toMatchObject({ scope: 'self', balance: 123_456, used_quota: 789, request_count: 42 });
    expect(mine.data.today).toMatchObject({ requests: earlierToday ? 3 : 2, quota: earlierToday ? 41 : 11, prompt_tokens: 20, completion_tokens: 5 });
    expect(mine.data.month).toMatchObject({ requests: 3, quota: 41 });
    const all = await get(root, '/api/dashboard/summary?tz=480');
    expect(all.data.scope).toBe('all');
    expect(all.data.month.quota).toBe(1041);
    const users = await t.ctx.storage.db.selectFrom('users').select('quota').execute();
    expect(all.data.balance).toBe(users.reduce((sum, u) => sum + Number(u.quota), 0));
    await t.ctx.storage.db.deleteFrom('usage_rollups').where('hour', '>=', month - H).execute();
  });

  it('everything is read from the rollups: clearing the log table changes nothing', async () => {
    await t.ctx.repositories.logs.insert({ user_id: amyId, username: 'amy', type: 2, created_at: T0 + 3600, quota: 777_777, model_name: 'gpt-4o', token_name: 'amy-main', token_id: keyA });
    const before = await reportOf(root, `/api/dashboard/report?${range}`);
    await t.ctx.storage.db.deleteFrom('logs').execute();
    expect(await reportOf(root, `/api/dashboard/report?${range}`)).toEqual(before);
    expect(before.totals.quota).toBe(15_070);
  });

  it('refuses bad ranges, granularities, zones and ids with a clear message', async () => {
    const refusal = async (query: string) => (await get(amy, `/api/dashboard/self/report?${query}`)).message;
    expect(await refusal(`start=${T0}&end=${T0}`)).toBe(DashboardMessages.rangeInvalid);
    expect(await refusal(`start=${T0}&end=${T0 + 367 * D}`)).toBe(DashboardMessages.rangeTooLong);
    expect(await refusal(`start=${T0}&end=${T0 + 32 * D}&granularity=hour`)).toBe(DashboardMessages.hourRangeTooLong);
    expect(await refusal(`${range}&granularity=week`)).toBe(DashboardMessages.granularityInvalid);
    expect(await refusal(`${range}&tz=900`)).toBe(DashboardMessages.tzInvalid);
    expect(await refusal(`${range}&tz=abc`)).toBe(DashboardMessages.tzInvalid);
    expect(await refusal(`start=-5&end=${T0}`)).toBe(DashboardMessages.timeInvalid);
    expect(await refusal(`${range}&token_id=1.5`)).toBe(DashboardMessages.idInvalid);
    expect(await refusal(`${range}&top=0`)).toBe(DashboardMessages.topInvalid);
    expect(await refusal('')).toBe(DashboardMessages.timeInvalid);
    expect((await get(amy, '/api/dashboard/self/summary?tz=-999')).message).toBe(DashboardMessages.tzInvalid);
  });

  it('users may not read everyone\'s usage; visitors must sign in', async () => {
    for (const path of ['report', 'summary', 'export']) {
      expect(await get(amy, `/api/dashboard/${path}?${range}`)).toMatchObject({ success: false, message: '无权进行此操作，权限不足' });
      expect((await t.call({ method: 'GET', url: `/api/dashboard/self/${path}?${range}` })).status).toBe(401);
    }
  });

  it('the CSV export opens in Excel: UTF-8 BOM, Chinese header, names, CRLF, formulas neutralised', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/api/dashboard/export?${range}&granularity=day&tz=0`, headers: { cookie: root } });
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="usage-20260310-20260312.csv"');
    const text = response.rawPayload.toString('utf8');
    expect(text.startsWith('\uFEFF时间,用户 ID,用户名,令牌 ID,令牌名称,模型,渠道 ID,渠道名称,请求数,失败数,输入 tokens,输出 tokens,缓存读取 tokens,推理 tokens,消费额度,金额（美元）,平均耗时（毫秒）\r\n')).toBe(true);
    const lines = text.slice(1).trimEnd().split('\r\n');
    expect(lines.slice(1)).toEqual([
      `2026-03-10,${amyId},amy,${keyA},amy-main,gpt-4o,${fast},快速渠道,5,1,500,50,100,0,1000,0.002000,667`,
      `2026-03-10,${amyId},amy,${keyB},"'=HYPERLINK(""x"")",claude-sonnet-4-5,${slow},"slow, ""quoted""",1,0,50,500,0,200,5000,0.010000,9000`,
      `2026-03-10,${bobId},bob,${bobKey},bob-key,gpt-4o,${slow},"slow, ""quoted""",4,0,400,40,0,0,9000,0.018000,100`,
      `2026-03-11,${bobId},bob,${bobKey},bob-key,gpt-4o,0,,1,1,0,0,0,0,0,0.000000,50`,
      `2026-03-12,${amyId},amy,${keyA},amy-main,gpt-4o-mini,${fast},快速渠道,10,0,1000,100,0,0,70,0.000140,500`,
    ]);
    // a user's own export: no users, no channels; the channels of one key and model are summed
    const own = await t.app.inject({ method: 'GET', url: `/api/dashboard/self/export?start=${T0}&end=${T0 + 6 * H}&granularity=hour&tz=480`, headers: { cookie: amy } });
    expect(own.rawPayload.toString('utf8').slice(1).trimEnd().split('\r\n')).toEqual([
      '时间,令牌 ID,令牌名称,模型,请求数,失败数,输入 tokens,输出 tokens,缓存读取 tokens,推理 tokens,消费额度,金额（美元）,平均耗时（毫秒）',
      `2026-03-10 09:00,${keyA},amy-main,gpt-4o,5,1,500,50,100,0,1000,0.002000,667`,
      `2026-03-10 13:00,${keyB},"'=HYPERLINK(""x"")",claude-sonnet-4-5,1,0,50,500,0,200,5000,0.010000,9000`,
    ]);
    // a refused export is the usual JSON refusal
    expect(await get(root, `/api/dashboard/export?start=${T0}&end=${T0}`)).toMatchObject({ success: false, message: DashboardMessages.rangeInvalid });
  });
});
