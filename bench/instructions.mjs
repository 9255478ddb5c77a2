// Instructions per request: the gateway runs under valgrind's callgrind, which counts the instructions it
// executes instead of timing them, so two builds can be compared on a busy machine, where CPU time per request
// (cpu.mjs) moves by 10-20 % between runs of the same build. The gateway starts on SQLite with default settings,
// answers a warm-up with callgrind's counting off (it runs about 5x slower then, 100x while counting), then
// counts over a fixed number of requests sent by a fixed number of connections, each waiting for its answer
// before sending the next. Prints instructions per request (all of the process's threads: JIT, GC and the
// SQLite writes included) and the total of each round.
// Usage: cd bench && node instructions.mjs
//   PATH_NAME=openai|translated|anthropic  which path (default openai)
//   STREAM=1                               streamed requests instead of whole answers
//   REQUESTS=n                             requests counted (default 1000) · WARMUP=n before counting (default 5000)
//   CONNECTIONS=n                          requests in flight at once (default 1: a batch of the ledger then holds one request, so its size cannot vary between runs)
//   BUILDS=a,b                             builds to compare, each a folder holding dist/main.js relative to the
//                                          repository root (default packages/server); ROUNDS=n rounds of each,
//                                          interleaved, medians printed at the end. `bare` is the bare pass-through
//                                          (bare-passthrough.mjs): BUILDS=bare,packages/server gives the share of the
//                                          transport's own limit in instructions, which the machine's load cannot move
//   KEEP_TEMP=1                            keep the callgrind files (callgrind_annotate reads them); their names are printed
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { Agent, request } from 'undici';
import { openDatabase, root, seed } from './lib/database.mjs';
import { startGateway } from './lib/gateway.mjs';
import { PATHS, targetsOf } from './lib/paths.mjs';
import { freePort, shutdown, start, startMock, tempDir, waitFor } from './lib/processes.mjs';
import { median } from './lib/stats.mjs';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const pathName = process.env.PATH_NAME ?? 'openai';
if (!PATHS[pathName]) throw new Error(`PATH_NAME must be one of ${Object.keys(PATHS).join(', ')}`);
const stream = process.env.STREAM === '1';
const requests = Number(process.env.REQUESTS ?? 1000);
const warmup = Number(process.env.WARMUP ?? 5000);
const connections = Number(process.env.CONNECTIONS ?? 1);
const builds = (process.env.BUILDS ?? 'packages/server').split(',');
const rounds = Number(process.env.ROUNDS ?? 1);
const work = tempDir('mr-instr-');


/** `count` requests over `connections` keep-alive connections, each sent when the previous answer has ended. */
async function send(target, count) {
  const dispatcher = new Agent({ connections, pipelining: 1 });
  const body = stream ? target.streamBody : target.body;
  let left = count;
  let failed = 0;
  const lane = async () => {
    while (left > 0) {
      left--;
      const res = await request(target.url, { method: 'POST', headers: target.headers, body, dispatcher });
      await res.body.text();
      if (res.statusCode !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: connections }, lane));
  await dispatcher.close();
  if (failed) throw new Error(`${failed} of ${count} requests were not answered 200`);
}

/** Tells callgrind in the gateway's process to do something (it polls for commands while the process runs). */
const callgrind = (pid, command) => execFileSync('callgrind_control', [command, String(pid)], { stdio: 'ignore' });

const callgrindFiles = (dir) => readdirSync(dir).filter((f) => f.startsWith('callgrind.out.'));

/** The instructions counted since counting was turned on, from the file a dump writes. */
function dumpedInstructions(dir, before) {
  const fresh = callgrindFiles(dir).filter((f) => !before.includes(f));
  let total = 0;
  for (const file of fresh) {
    const text = readFileSync(join(dir, file), 'utf8');
    const m = /^(?:summary|totals):\s*(\d+)/m.exec(text);
    if (m) total += Number(m[1]);
  }
  return { total, files: fresh };
}

/** valgrind's callgrind, counting nothing until told to (JIT code is written at run time: it looks for it outside the stack too). */
const callgrindLauncher = (dir) => ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`];

/** The bare pass-through (bare-passthrough.mjs) under callgrind, in front of the path's mock. */
async function launchBare(dir, mocks) {
  const port = await freePort();
  const upstream = pathName === 'openai' ? mocks.openai : mocks.anthropic;
  const [command, ...args] = [...callgrindLauncher(dir), process.execPath, join(benchDir, 'bare-passthrough.mjs')];
  const started = start(command, args, {
    env: { PATH: process.env.PATH, PORT: String(port), UPSTREAM: upstream },
    cwd: dir,
    logFile: join(dir, 'bare.log'),
  });
  await waitFor(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }, { ok: (s) => s === 200, timeoutMs: 600_000 });
  const url = `http://127.0.0.1:${port}`;
  const target = targetsOf({ openaiMock: mocks.openai, anthropicMock: mocks.anthropic, gateway: 'http://unused', key: 'unused', bareOpenai: url, bareAnthropic: url })[pathName].bare;
  return { pid: started.pid, target, stop: async () => { started.child.kill('SIGTERM'); await started.exited; } };
}

/** A build of the gateway under callgrind, on a fresh SQLite database with the bench's channels and key. */
async function launchGateway(build, dir, mocks) {
  const sqlite = join(dir, 'gateway.db');
  const gateway = await startGateway({
    data: { SQLITE_PATH: sqlite },
    cwd: dir,
    logFile: join(dir, 'gateway.log'),
    main: join(root, build, 'dist/main.js'),
    launcher: callgrindLauncher(dir),
    startTimeoutMs: 600_000,
  });
  try {
    const db = await openDatabase('sqlite', sqlite);
    const seeded = await seed(db, { openaiUrl: mocks.openai, anthropicUrl: mocks.anthropic });
    await db.close();
    const target = targetsOf({ openaiMock: mocks.openai, anthropicMock: mocks.anthropic, gateway: gateway.url, key: seeded.key })[pathName].gateway;
    return { pid: gateway.pid, target, stop: () => gateway.stop() };
  } catch (error) {
    await gateway.stop();
    throw error;
  }
}

async function measure(build, round, mocks) {
  const dir = join(work, `${round}-${build.replace(/\W+/g, '_')}`);
  mkdirSync(dir, { recursive: true });
  const launched = build === 'bare' ? await launchBare(dir, mocks) : await launchGateway(build, dir, mocks);
  try {
    await send(launched.target, warmup);
    const before = callgrindFiles(dir);
    callgrind(launched.pid, '--instr=on');
    await send(launched.target, requests);
    callgrind(launched.pid, '--dump=measured');
    callgrind(launched.pid, '--instr=off');
    const { total, files } = dumpedInstructions(dir, before);
    if (!total) throw new Error(`no instructions counted (files: ${files.join(', ') || 'none'})`);
    if (process.env.KEEP_TEMP === '1') console.log(`  callgrind file: ${files.map((f) => join(dir, f)).join(', ')}`);
    return total;
  } finally {
    await launched.stop();
  }
}

try {
  const mocks = { openai: await startMock('mock-upstream.mjs'), anthropic: await startMock('mock-anthropic.mjs') };
  console.log(`${PATHS[pathName].title}${stream ? ', streamed' : ''}: ${requests} requests counted after ${warmup}, ${connections} connections`);
  const results = new Map(builds.map((b) => [b, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const build of round % 2 ? builds : [...builds].reverse()) {
      const total = await measure(build, round, mocks);
      results.get(build).push(total / requests);
      console.log(`round ${round} ${build}: ${(total / requests).toFixed(0)} instructions per request (${total} in all)`);
    }
  }
  if (rounds > 1 || builds.length > 1) {
    console.log('medians:');
    for (const [build, values] of results) console.log(`  ${build}: ${median(values).toFixed(0)} instructions per request`);
  }
  await shutdown(0);
} catch (error) {
  console.error(error);
  await shutdown(1);
}
