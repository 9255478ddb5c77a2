// The floor: the bare pass-through (bare-passthrough.mjs) plus the least that any gateway with issue 17's features on
// must do per request, each done the cheapest way we know, with none of the gateway's own code. It measures how
// far above the transport a gateway can get at best, so that the gateway's distance from the bare row can be split
// into what the features cost in themselves and what our code costs on top of them (floor.mjs, bench/README.md).
// Per request (whole answers, the throughput phase's kind; streams are piped as the bare pass-through does):
//   - the client's body read and parsed as JSON (a gateway must know the model, the stream flag and the output cap);
//   - the key looked up in a Map (the gateway caches its keys too) and refused without one (401);
//   - a reservation taken from the user's balance in memory (refused when short: 403), the upstream's key set;
//   - the upstream's answer collected, parsed for its usage, priced, and the reservation settled in memory;
//   - a log row queued; every 20 ms the queue is written in one SQLite transaction (better-sqlite3, WAL,
//     synchronous=NORMAL as the gateway's file): the rows inserted, the user's, key's and channel's used quota updated;
//   - an access log line per request, written to stdout once per batch.
// Usage: PORT=n UPSTREAM=http://127.0.0.1:m KEY=sk-… DB=/path/floor.db [FASTIFY=1] node floor-passthrough.mjs
//   FASTIFY=1: behind Fastify (the gateway's framework) instead of node:http's own server, to tell the framework's share
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const requireFromRoot = createRequire(join(fileURLToPath(new URL('..', import.meta.url)), 'package.json'));
const Database = requireFromRoot('better-sqlite3');

const pool = new Pool(process.env.UPSTREAM, { connections: 4096, pipelining: 1, keepAliveTimeout: 30_000 });
const db = new Database(process.env.DB ?? ':memory:');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`create table if not exists users (id integer primary key, quota integer, used_quota integer, request_count integer);
create table if not exists tokens (id integer primary key, user_id integer, remain_quota integer, used_quota integer);
create table if not exists channels (id integer primary key, used_quota integer);
create table if not exists logs (id integer primary key, created_at integer, user_id integer, token_id integer, channel_id integer,
  model_name text, prompt_tokens integer, completion_tokens integer, quota integer, use_time_ms integer, is_stream integer);
insert or ignore into users values (1, 1e15, 0, 0); insert or ignore into tokens values (1, 1, 1e15, 0);
insert or ignore into channels values (1, 0);`);
const insertLog = db.prepare('insert into logs (created_at, user_id, token_id, channel_id, model_name, prompt_tokens, completion_tokens, quota, use_time_ms, is_stream) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
const chargeUser = db.prepare('update users set quota = quota - ?, used_quota = used_quota + ?, request_count = request_count + ? where id = ?');
const chargeToken = db.prepare('update tokens set remain_quota = remain_quota - ?, used_quota = used_quota + ? where id = ?');
const chargeChannel = db.prepare('update channels set used_quota = used_quota + ? where id = ?');

const keys = new Map([[`Bearer ${process.env.KEY ?? 'sk-floor'}`, { tokenId: 1, user: { id: 1, balance: 1e15 } }]]);
const UPSTREAM_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer sk-upstream' };
const PRICE = { input: 0.075, output: 0.3 }; // quota per token (gpt-4o-mini at one-api's 500,000 quota per US$)

let rows = [];
let accessLines = '';
const commit = db.transaction((batch) => {
  let total = 0;
  for (const r of batch) {
    insertLog.run(r);
    total += r[7];
  }
  chargeUser.run(total, total, batch.length, 1);
  chargeToken.run(total, total, 1);
  chargeChannel.run(total, 1);
});
setInterval(() => {
  if (rows.length === 0) return;
  const batch = rows;
  rows = [];
  commit(batch);
  process.stdout.write(accessLines);
  accessLines = '';
}, 20);

function refuse(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
}

/** One request of either server: `raw` is the client's body, read by the server in front. */
async function serve(req, res, raw) {
  const started = performance.now();
  const auth = keys.get(req.headers.authorization);
  if (auth === undefined) return refuse(res, 401, 'invalid key');
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return refuse(res, 400, 'invalid JSON');
  }
  const model = body.model;
  const reserved = Math.ceil((raw.length / 2) * PRICE.input + (body.max_tokens ?? 4096) * PRICE.output);
  if (auth.user.balance < reserved) return refuse(res, 403, 'quota exhausted');
  auth.user.balance -= reserved;
  let cost = reserved;
  try {
    const upstream = await pool.request({ method: 'POST', path: req.url, headers: UPSTREAM_HEADERS, body: raw });
    res.writeHead(upstream.statusCode, { 'content-type': upstream.headers['content-type'] ?? 'application/json' });
    if (body.stream) {
      upstream.body.on('data', (chunk) => res.write(chunk));
      await new Promise((resolve) => upstream.body.on('end', resolve).on('error', resolve));
      res.end();
    } else {
      const answer = [];
      upstream.body.on('data', (chunk) => answer.push(chunk));
      await new Promise((resolve) => upstream.body.on('end', resolve).on('error', resolve));
      const whole = Buffer.concat(answer);
      const usage = JSON.parse(whole).usage;
      cost = Math.ceil(usage.prompt_tokens * PRICE.input + usage.completion_tokens * PRICE.output);
      res.end(whole);
    }
  } catch (error) {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: String(error?.message ?? error) } }));
  }
  auth.user.balance += reserved - cost;
  const ms = Math.round(performance.now() - started);
  rows.push([Math.floor(Date.now() / 1000), auth.user.id, auth.tokenId, 1, model, 12, 10, cost, ms, body.stream ? 1 : 0]);
  accessLines += `${new Date().toISOString()} POST ${req.url} ${res.statusCode} ${ms}ms token=${auth.tokenId} model=${model} quota=${cost}\n`;
}

if (process.env.FASTIFY === '1') {
  // The same work behind Fastify (the gateway's framework), with its defaults and the body read as a buffer.
  const app = requireFromRoot('fastify')({ logger: false, bodyLimit: 32 * 1024 * 1024 });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => done(null, body));
  app.post('/*', (request, reply) => {
    reply.hijack();
    serve(request.raw, reply.raw, request.body ?? Buffer.alloc(0));
  });
  app.server.keepAliveTimeout = 72_000;
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
} else {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => serve(req, res, Buffer.concat(chunks)));
  });
  server.keepAliveTimeout = 72_000;
  server.listen(Number(process.env.PORT), '127.0.0.1');
}
