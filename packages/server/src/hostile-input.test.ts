import { performance } from 'node:perf_hooks';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCannedUpstream, type CannedUpstream } from './test-support/canned-upstream.js';
import { testDsns } from './test-support/databases.js';
import { startStatusProbe, watchEventLoop } from './test-support/hostile/event-loop.js';
import { isApi, requestsFor, type HostileRequest, type Profile, type Role } from './test-support/hostile/requests.js';
import { listRoutes, type AppRoute } from './test-support/hostile/routes.js';
import { changeCounter, fingerprint, restore, seedWorld, sessionCookie, settled, snapshot, tablesOf, type Snapshot, type World } from './test-support/hostile/world.js';
import { createTestApp, type TestApp } from './test-support/test-app.js';

/**
 * The hostile-input suite (issue 10, must-have 5). Every /api and /v1 route, listed from the app itself, gets
 * malformed JSON, wrong types, missing and unknown fields, huge bodies, megabyte strings, invisible and
 * control characters, SQL-like strings, absurd numbers, bad ids and page numbers (test-support/hostile/),
 * as an anonymous visitor, an ordinary user and the super admin. Every answer must be below 500 and free of
 * internals (stack traces, error classes, file paths, SQL and socket errors); on /api a JSON envelope with a
 * Chinese message; a refusal must not echo a megabyte back; a refused request must leave every table as it
 * was (row counts and contents); and no request may hold the event loop, and with it GET /api/status, for
 * more than 100 ms (a suspect is measured again on its own before it counts).
 */

type Kind = '5xx' | 'leak' | 'envelope' | 'echo' | 'partial write' | 'stall';

interface Failure {
  route: string;
  role: Role;
  input: string;
  kind: Kind;
  detail: string;
}

interface ExpectedFailure {
  /** `METHOD /path` as the app registers it, or a pattern for several routes. */
  route: string | RegExp;
  /** The suite's input label (see test-support/hostile/requests.ts), or a pattern. */
  input: string | RegExp;
  kind: Kind;
  /** What the failure says, when the kind and input alone would cover too much. */
  detail?: RegExp;
  /** The databases it happens on (all when absent). */
  databases?: string[];
  /** What goes wrong, in words for whoever fixes it. */
  problem: string;
  /** Not sent at all: it would hang the suite. Remove `skip` once fixed, and the entry is checked like the others. */
  skip?: boolean;
}


/**
 * Failures that need changes in the relay (packages/server/src/relay and billing, the lead's part of issue 10):
 * listed here, not fixed by the /api work. The table is strict: an entry (unless skipped) that no longer fails
 * on a database it names fails the suite, so it is removed as soon as the relay is fixed.
 */
const EXPECTED_FAILURES: ExpectedFailure[] = [
  // Empty: the relay defects this table listed (event-loop stalls counting megabyte prompts, 503 for an unknown
  // model, request counts bumped by refusals, megabyte model names echoed, 500s on NUL and on 1e308 / 2^63
  // token limits) are fixed. A failure that needs time to fix is listed here, with what goes wrong.
];

const STALL_MS = 100;
const ECHO_LIMIT = 16 * 1024;
const ROLES: Role[] = ['anonymous', 'user', 'admin'];

/** Internals that must never reach a client. */
const LEAKS: Array<[string, RegExp]> = [
  ['error class', /\b(TypeError|RangeError|ReferenceError|SyntaxError|Error):/],
  ['stack frame', /\bat [\w$.<>]+ \(|\bat (file:|node:)/],
  ['file path', /node_modules|\/packages\/server\/|\.[tj]s:\d+/],
  ['socket error', /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND/],
  ['SQL error', /SQLITE_|syntax error at or near|error in your SQL syntax|duplicate key value|violates .* constraint|UNIQUE constraint failed|\bER_[A-Z_]{3,}|out of range for type|invalid input syntax|Data too long|Incorrect \w+ value/],
  ['framework internals', /FST_ERR|Kysely|Too big: expected|Too small: expected|Invalid input: expected|Cannot read propert|is not a function|undefined is not/],
];
const CJK = /[\u3400-\u9fff]/;

const test = (pattern: string | RegExp, value: string) => (typeof pattern === 'string' ? pattern === value : pattern.test(value));
const appliesTo = (expected: ExpectedFailure, database: string) => !expected.databases || expected.databases.includes(database);
const matches = (expected: ExpectedFailure, failure: Failure, database: string) =>
  appliesTo(expected, database) &&
  expected.kind === failure.kind &&
  test(expected.route, failure.route) &&
  test(expected.input, failure.input) &&
  (!expected.detail || expected.detail.test(failure.detail));
const skipped = (route: string, input: string) => EXPECTED_FAILURES.some((e) => e.skip && test(e.route, route) && test(e.input, input));

const refusedAnswer = (status: number, text: string) => status >= 400 || /"success":false|"error":\{/.test(text.slice(0, 400));

/** What is wrong with one answer. */
function judge(route: AppRoute, status: number, text: string): Array<[Kind, string]> {
  const problems: Array<[Kind, string]> = [];
  const head = text.slice(0, 200);
  if (status >= 500) problems.push(['5xx', `${status} ${head}`]);
  for (const [name, pattern] of LEAKS) if (pattern.test(text)) problems.push(['leak', `${name}: ${head}`]);
  if (refusedAnswer(status, text) && text.length > ECHO_LIMIT) problems.push(['echo', `a refusal of ${text.length} bytes: ${text.slice(0, 80)}`]);
  if (isApi(route.url)) {
    let body: { success?: unknown; message?: unknown } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    if (!body || typeof body.success !== 'boolean') problems.push(['envelope', `not an /api envelope: ${head}`]);
    else if (body.success === false && !(typeof body.message === 'string' && CJK.test(body.message))) problems.push(['envelope', `message not in Chinese: ${head}`]);
  }
  return problems;
}

for (const database of testDsns()) {
  // SQLite gets everything; the server databases get what reaches the database (their strictness about
  // ranges, NUL and lengths is what differs), so the whole run stays around a minute.
  const profile: Profile = database.name === 'sqlite' ? 'full' : 'database';

  describe(`hostile input on ${database.name}`, () => {
    let t: TestApp;
    let upstream: CannedUpstream;
    let world: World;
    let tables: string[];
    let baseline: Snapshot;
    let baselineState: ReturnType<typeof fingerprint>;
    let drop: () => Promise<void>;
    let address: string;
    const cookies: Record<Role, string> = { anonymous: '', user: '', admin: '' };

    /** Back to the seeded rows, with fresh sessions (an accepted request may have logged out or renamed). */
    async function reset() {
      await restore(t, baseline);
      cookies.user = await sessionCookie(t, world.userId);
      cookies.admin = await sessionCookie(t, world.rootId);
    }
    const withSession = (route: AppRoute, role: Role, options: InjectOptions): InjectOptions => ({
      ...options,
      headers: { ...(options.headers as Record<string, string>), ...(isApi(route.url) && role !== 'anonymous' ? { cookie: cookies[role] } : {}) },
    });

    beforeAll(async () => {
      const created = await database.create();
      drop = created.drop;
      upstream = await startCannedUpstream();
      t = await createTestApp(created.env);
      world = await seedWorld(t, upstream.url);
      tables = await tablesOf(t.ctx.storage.db);
      baseline = await snapshot(t.ctx.storage.db, tables);
      baselineState = fingerprint(baseline);
      address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await t.close();
      await upstream.close();
      await drop();
    });

    it('every /api and /v1 route, as anonymous, user and admin: no 5xx, no internals, no partial write, no stall', { timeout: 600_000 }, async () => {
      const routes = listRoutes(t.app).filter((r) => r.url === '*' || isApi(r.url) || r.url.startsWith('/v1') || r.url.startsWith('/dashboard'));
      // The list comes from the app: check it really is the app's (a parse that found nothing would pass).
      for (const known of ['POST /api/user/login', 'PUT /api/user/', 'GET /api/channel/:id', 'POST /v1/chat/completions', 'GET /v1/models/:model']) {
        expect(routes.map((r) => `${r.method} ${r.url}`)).toContain(known);
      }

      const failures: Failure[] = [];
      type Sent = { label: string; route: AppRoute; role: Role; request: HostileRequest };
      const suspects = new Map<string, Sent>();
      // The request in flight and the one before it: a late tick is blamed on both until measured alone.
      let inFlight: Sent[] = [];
      const stopWatching = watchEventLoop(STALL_MS, () => inFlight);
      let sent = 0;
      const started = performance.now();
      let seed = 0;

      for (const route of routes) {
        const routeName = `${route.method} ${route.url}`;
        for (const role of ROLES) {
          inFlight = [];
          const requests = requestsFor(route, role, world, profile, seed++).filter((request) => !skipped(routeName, request.input));
          await reset();
          let state = baselineState;
          let changes = await changeCounter(t);
          // Building the bodies above took the driver's own time: let the watcher's late tick pass unattributed.
          await new Promise((resolve) => setTimeout(resolve, 15));
          for (const request of requests) {
            const current = { label: `${routeName}|${role}|${request.input}`, route, role, request };
            inFlight = inFlight.length ? [inFlight[inFlight.length - 1], current] : [current];
            const upstreamBefore = upstream.count();
            const response = await t.app.inject(withSession(route, role, request.options));
            // With SQLite the whole exchange can run on promise jobs alone: yield to the event loop, so the
            // watcher's timer fires while this request is still the one in flight.
            await new Promise((resolve) => setImmediate(resolve));
            sent++;
            const text = response.body;
            if (!isApi(route.url)) await settled(t);
            for (const [kind, detail] of judge(route, response.statusCode, text)) failures.push({ route: routeName, role, input: request.input, kind, detail });
            const changesNow = await changeCounter(t);
            const after = changes !== undefined && changesNow === changes ? state : fingerprint(await snapshot(t.ctx.storage.db, tables));
            const changed = after.digest !== state.digest;
            if (changed && refusedAnswer(response.statusCode, text) && upstream.count() === upstreamBefore) {
              const counts = Object.keys(after.counts).filter((table) => after.counts[table] !== state.counts[table]);
              const contents = Object.keys(after.tables).filter((table) => after.tables[table] !== state.tables[table]);
              const what = counts.length ? `row counts of ${counts.join(', ')}` : `rows of ${contents.join(', ')}`;
              failures.push({ route: routeName, role, input: request.input, kind: 'partial write', detail: `refused (${response.statusCode} ${text.slice(0, 100)}) yet changed ${what}` });
            }
            if (changed) {
              // Start the next request from the seeded rows: put back what changed, with fresh sessions.
              await restore(t, baseline, Object.keys(after.tables).filter((table) => after.tables[table] !== baselineState.tables[table]));
              cookies.user = await sessionCookie(t, world.userId);
              cookies.admin = await sessionCookie(t, world.rootId);
              state = baselineState;
            } else if (!refusedAnswer(response.statusCode, text)) {
              cookies.user = await sessionCookie(t, world.userId);
              cookies.admin = await sessionCookie(t, world.rootId);
            }
            changes = await changeCounter(t);
          }
        }
      }
      inFlight = [];
      for (const stall of stopWatching()) for (const entry of stall.during) suspects.set(entry.label, entry);
      const seconds = (performance.now() - started) / 1000;

      // A late timer may have been anything (a collection, the machine): a suspect counts only if GET /api/status,
      // asked over HTTP from another thread, answers late each of three times while the suspect runs alone.
      const probe = startStatusProbe(address);
      let slowestStatus = 0;
      for (const { route, role, request } of suspects.values()) {
        let best = Infinity;
        for (let i = 0; i < 3 && best > STALL_MS; i++) {
          await reset();
          await new Promise((resolve) => setTimeout(resolve, 20));
          await probe.take();
          await t.app.inject(withSession(route, role, request.options));
          await new Promise((resolve) => setTimeout(resolve, 20));
          best = Math.min(best, await probe.take());
        }
        slowestStatus = Math.max(slowestStatus, best);
        if (best > STALL_MS) {
          failures.push({ route: `${route.method} ${route.url}`, role, input: request.input, kind: 'stall', detail: `GET /api/status waited ${best} ms while it ran` });
        }
      }
      await probe.stop();
      console.info(
        `hostile input on ${database.name}: ${sent} requests to ${routes.length} routes in ${seconds.toFixed(1)} s; ` +
          `${suspects.size} requests suspected of holding the event loop, measured again: slowest GET /api/status ${slowestStatus} ms`,
      );

      const unexpected = failures.filter((failure) => !EXPECTED_FAILURES.some((expected) => matches(expected, failure, database.name)));
      const fixed = EXPECTED_FAILURES.filter((e) => !e.skip && appliesTo(e, database.name) && !failures.some((failure) => matches(e, failure, database.name)));
      const describeFailure = (f: Failure) => `${f.kind}: ${f.route} as ${f.role} with ${f.input} -> ${f.detail}`;
      expect(unexpected.map(describeFailure), 'failures not in EXPECTED_FAILURES').toEqual([]);
      expect(fixed.map((e) => `${e.kind}: ${String(e.route)} with ${String(e.input)} (${e.problem})`), 'expected failures that no longer fail: remove them').toEqual([]);
    });
  });
}
