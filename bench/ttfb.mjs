// First byte, each path's direct / bare / gateway targets measured in interleaved rounds on one gateway (SQLite,
// default settings): a closer look than run.mjs's ttfb phase, for changes to the stream's start.
// Usage: cd bench && node ttfb.mjs      ROUNDS (default 5)  N per round and target (default 200)  ONLY=openai,anthropic,translated
//   GATEWAY_MAIN=packages/<copy>/dist/main.js (another build)  GATEWAY_NODE_ARGS='["--import","/path/marks.mjs"]' (node options of the gateway)
import { join } from 'node:path';
import { openDatabase, seed } from './lib/database.mjs';
import { startGateway } from './lib/gateway.mjs';
import { driver } from './lib/load.mjs';
import { targetsOf } from './lib/paths.mjs';
import { shutdown, startBare, startMock, tempDir } from './lib/processes.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const N = Number(process.env.N ?? 200);
const PATHS = (process.env.ONLY ?? 'openai,anthropic').split(',');
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const work = tempDir('mr-ttfb-');
const openaiMock = await startMock('mock-upstream.mjs');
const anthropicMock = await startMock('mock-anthropic.mjs');
const gateway = await startGateway({ data: { SQLITE_PATH: join(work, 'gateway.db') }, cwd: work, logFile: join(work, 'gateway.log'), nodeArgs: JSON.parse(process.env.GATEWAY_NODE_ARGS ?? '[]') });
const db = await openDatabase('sqlite', join(work, 'gateway.db'));
const seeded = await seed(db, { openaiUrl: openaiMock, anthropicUrl: anthropicMock });
await db.close();
const targets = targetsOf({ openaiMock, anthropicMock, gateway: gateway.url, key: seeded.key, bareOpenai: (await startBare(openaiMock)).url, bareAnthropic: (await startBare(anthropicMock)).url });
const samples = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const path of PATHS) {
    for (const role of ['direct', 'bare', 'gateway']) {
      const t = targets[path][role];
      const r = await driver({ mode: 'ttfb', url: t.url, headers: t.headers, body: t.streamBody, n: N, warmup: 20 });
      if (r.non2xx) throw new Error(`${path} ${role}: ${r.non2xx} answers not 200`);
      (samples[`${path} ${role}`] ??= []).push(r.p50);
    }
    const s = (role) => samples[`${path} ${role}`].at(-1);
    console.log(`round ${round + 1} ${path}: direct ${s('direct').toFixed(3)}  bare +${(s('bare') - s('direct')).toFixed(3)}  gateway +${(s('gateway') - s('direct')).toFixed(3)} ms`);
  }
}
for (const path of PATHS) {
  const m = (role) => median(samples[`${path} ${role}`]);
  console.log(`median ${path}: direct ${m('direct').toFixed(3)}  bare +${(m('bare') - m('direct')).toFixed(3)}  gateway +${(m('gateway') - m('direct')).toFixed(3)} ms`);
}
await gateway.stop();
await shutdown(0);
