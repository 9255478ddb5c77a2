// For development: the memory phase of run.mjs alone, per path, and optionally what a held stream is made of.
// Usage: cd bench && node memory.mjs            RSS growth per held stream on every path (PATHS=openai,... a subset;
//                 PATHS=codec an OpenAI client on an Ollama channel in Ollama's own API, read back by its codec)
//   STREAMS=n     held streams (default 1,000)
//   PROMPT_KB=n   held requests carry an n KB prompt (default: the bench's one-line question)
//   BARE=1        the bare pass-through (bare-passthrough.mjs) instead of the gateway (openai and anthropic paths)
//   WAVES=n       n waves of STREAMS held one on top of the other: RSS after each, and each wave's marginal cost
//   PRIME=1       a first wave of STREAMS held and cut before the measure (the heap at rest at its working size)
//   REPEAT=n      n measures per path, each on a fresh process; prints each and the medians (RSS moves by several KB per
//                 stream between two runs of the same build)
//   GATEWAY_NODE_ARGS="..."  node flags for the measured process (e.g. --single-threaded-gc)
//   GATEWAY_ENV='{"NAME":"value"}'  variables added to the measured process's environment (e.g. MALLOC_ARENA_MAX)
//   GC=0          RSS read as it is; by default after a full garbage collection, as run.mjs does (through the
//                 inspector: the target runs with --inspect on a port of its own)
//   SPACES=1      also the growth of each V8 heap space (physical and in use) and of external memory, per stream
//   SNAPSHOT=1    also a heap snapshot at rest and one with the streams held (the gateway runs with
//                 --heapsnapshot-signal); prints the objects that grew, by constructor, per stream (TOP=n rows)
//   SNAPSHOT_DIR=d  keeps the two snapshots in d (node ids are stable between them: what is new, and who holds it)
// The numbers are the same measurement as RESULTS.md's memory rows (a fresh gateway per path, 50 warm-up streams).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, seed, seedChannel } from './lib/database.mjs';
import { startGateway } from './lib/gateway.mjs';
import { collectGarbage, driver, heapSpaces, holdStreams } from './lib/load.mjs';
import { PATHS, targetsOf } from './lib/paths.mjs';
import { median } from './lib/stats.mjs';
import { freePort, shutdown, sleep, startBare, startMock, tempDir, waitFor } from './lib/processes.mjs';

const STREAMS = Number(process.env.STREAMS ?? 1000);
const SNAPSHOT = process.env.SNAPSHOT === '1';
const TOP = Number(process.env.TOP ?? 25);
const WAVES = Number(process.env.WAVES ?? 1);
const GC = process.env.GC !== '0';
const SPACES = process.env.SPACES === '1';
const EXTRA_ENV = JSON.parse(process.env.GATEWAY_ENV ?? '{}');
const chosen = (process.env.PATHS ?? Object.keys(PATHS).join(',')).split(',');
// PATHS=codec (only when named): an OpenAI client on an Ollama channel speaking Ollama's own API (the OpenAI mock's
// /api/chat), a vendor whose answers a codec reads back and whose upstream body is not the client's dialect.
const CODEC = { models: ['llama-bench', 'llama-hold'], chat: (model) => JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello there, how are you?' }], stream: true }) };
const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);


/** Asks the gateway for a heap snapshot (SIGUSR2) and waits for the file to be complete. */
async function snapshot(pid, dir) {
  const before = new Set(readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot')));
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    await sleep(200);
    const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!file) continue;
    try {
      const text = readFileSync(join(dir, file), 'utf8');
      const summary = summarise(JSON.parse(text));
      if (process.env.SNAPSHOT_DIR) writeFileSync(join(process.env.SNAPSHOT_DIR, file), text);
      return summary;
    } catch {
      // still being written
    }
  }
}

/** Self size and count per (node type, name): a coarse but load-independent picture of what the heap holds. */
function summarise(snap) {
  const { node_fields: fields, node_types: [types] } = snap.snapshot.meta;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const groups = new Map();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]];
    let name = snap.strings[snap.nodes[i + nameAt]];
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '(string)';
    else if (type === 'code' || type === 'hidden' || type === 'array' || type === 'number') name = `(${type}) ${name.slice(0, 40)}`;
    else name = `${type === 'object' ? '' : `(${type}) `}${name.slice(0, 60)}`;
    if (process.env.DETAIL === '1' && (type === 'object' || type === 'closure' || (type === 'hidden' && name === 'system / Context') || type === 'array' || type === 'string')) name += ` {${describe(snap, i / width, type)}}`;
    const size = snap.nodes[i + sizeAt];
    total += size;
    const g = groups.get(name) ?? { count: 0, size: 0 };
    g.count++;
    g.size += size;
    groups.set(name, g);
  }
  return { total, groups };
}

let edgeStart;
let edgesOf;
/** DETAIL=1: an object's property names (or a context's variables, a closure's context's variables, a string's referrer). */
function describe(snap, index, type) {
  const { node_fields: fields, edge_fields: efields, edge_types: [etypes] } = snap.snapshot.meta;
  if (edgesOf !== snap) {
    edgesOf = snap;
    edgeStart = new Uint32Array(snap.nodes.length / fields.length + 1);
    const countAt = fields.indexOf('edge_count');
    for (let n = 0, e = 0; n < snap.nodes.length / fields.length; n++) {
      edgeStart[n] = e;
      e += snap.nodes[n * fields.length + countAt] * efields.length;
    }
    edgeStart[snap.nodes.length / fields.length] = snap.edges.length;
  }
  if (type === 'string') return '';
  const names = [];
  for (let e = edgeStart[index]; e < edgeStart[index + 1] && names.length < 12; e += efields.length) {
    const et = etypes[snap.edges[e]];
    const en = snap.edges[e + 1];
    if (et === 'property' || et === 'context') names.push(snap.strings[en]);
    else if (type === 'array' && et === 'element' && names.length < 1) names.push(`[${(edgeStart[index + 1] - edgeStart[index]) / efields.length}]`);
  }
  return names.join(',');
}

function diff(rest, held, streams) {
  const rows = [];
  for (const [name, g] of held.groups) {
    const r = rest.groups.get(name) ?? { count: 0, size: 0 };
    const size = g.size - r.size;
    if (size > 0) rows.push({ name, perStream: size / streams, countPerStream: (g.count - r.count) / streams });
  }
  rows.sort((a, b) => b.perStream - a.perStream);
  return { heapPerStreamKb: (held.total - rest.total) / streams / 1024, rows: rows.slice(0, TOP) };
}

/** PROMPT_KB=n: the held requests ask with a prompt of n KB (a real conversation's size) instead of one line. */
function withPrompt(body) {
  if (!process.env.PROMPT_KB) return body;
  const parsed = JSON.parse(body);
  parsed.messages[0].content = 'Hello there, how are you? '.repeat(Math.ceil((Number(process.env.PROMPT_KB) * 1024) / 26));
  return JSON.stringify(parsed);
}

/** Holds STREAMS streams of the target's hold body (with PROMPT_KB's prompt). */
const hold = (t) => holdStreams({ url: t.url, headers: t.headers, body: withPrompt(t.holdBody) }, STREAMS);

async function measure(path, mocks) {
  const dir = tempDir(`mr-memory-${path}-`);
  const bare = process.env.BARE === '1';
  const upstream = path === 'anthropic' || path === 'translated' ? mocks.anthropicMock : mocks.openaiMock;
  const inspectPort = GC ? await freePort() : undefined;
  const nodeArgs = [...(process.env.GATEWAY_NODE_ARGS ? process.env.GATEWAY_NODE_ARGS.split(' ') : []), ...(SNAPSHOT ? ['--heapsnapshot-signal=SIGUSR2'] : []), ...(GC ? [`--inspect=127.0.0.1:${inspectPort}`] : [])];
  // BARE=1: the bare pass-through (bare-passthrough.mjs) in front of the path's mock instead of the gateway.
  const gateway = bare ? await startBare(upstream, { nodeArgs, env: EXTRA_ENV, cwd: dir }) : await startGateway({ data: { SQLITE_PATH: join(dir, 'gateway.db'), ...EXTRA_ENV }, cwd: dir, logFile: join(dir, 'gateway.log'), nodeArgs });
  // RSS and, after a collection, the JS heap in use (KB)
  const rss = async () => {
    const heapKb = GC ? await collectGarbage(inspectPort) : undefined;
    const kb = rssKb(gateway.pid);
    return { kb, heapKb, spaces: GC && SPACES ? await heapSpaces(inspectPort) : undefined };
  };
  try {
    let key = 'none';
    if (!bare) {
      const db = await openDatabase('sqlite', join(dir, 'gateway.db'));
      key = (await seed(db, { openaiUrl: mocks.openaiMock, anthropicUrl: mocks.anthropicMock })).key;
      if (path === 'codec') await seedChannel(db, { type: 30, key: '', name: 'bench-ollama', url: mocks.openaiMock, models: CODEC.models });
      await db.close();
    }
    const targets = targetsOf({ ...mocks, gateway: gateway.url, key });
    const t = path === 'codec' ? { ...targets.openai.gateway, streamBody: CODEC.chat(CODEC.models[0]), holdBody: CODEC.chat(CODEC.models[1]) } : targets[path].gateway;
    await waitFor(t.url, { method: 'POST', headers: t.headers, body: t.streamBody }, { ok: (s) => s === 200, timeoutMs: 30_000 });
    await driver({ mode: 'ttfb', url: t.url, headers: t.headers, body: t.streamBody, n: Number(process.env.WARM ?? 50), warmup: 0 });
    await sleep(1500);
    if (process.env.PRIME === '1') {
      // A first wave held and let go before the measure: the heap at rest at its working size.
      const prime = await hold(t);
      prime.child.kill('SIGKILL');
      await sleep(3000);
    }
    const rest = SNAPSHOT ? await snapshot(gateway.pid, dir) : undefined;
    const before = await rss();
    const beforeKb = before.kb;
    const holders = [];
    const waves = [];
    let inFlight = 0;
    for (let w = 0; w < WAVES; w++) {
      const holder = await hold(t);
      holders.push(holder);
      inFlight += holder.inFlight;
      waves.push(await rss());
    }
    const duringKb = waves[0].kb;
    const first = holders[0].inFlight;
    const result = { path: bare ? `${path} (bare)` : path, beforeKb, duringKb, inFlight: first, perStreamKb: +((duringKb - beforeKb) / Math.max(1, first)).toFixed(1) };
    if (GC) result.heapPerStreamKb = +((waves[0].heapKb - before.heapKb) / Math.max(1, first)).toFixed(1);
    if (WAVES > 1) {
      result.waves = waves.map(({ kb, heapKb }, i) => {
        const margin = (now, then) => +((now - then) / Math.max(1, holders[i].inFlight)).toFixed(1);
        const wave = { inFlight: holders.slice(0, i + 1).reduce((n, h) => n + h.inFlight, 0), rssKb: kb };
        if (i > 0) wave.marginalKb = margin(kb, waves[i - 1].kb);
        if (i > 0 && GC) wave.heapMarginalKb = margin(heapKb, waves[i - 1].heapKb);
        return wave;
      });
    }
    console.log(JSON.stringify(result));
    if (SPACES) {
      // Per V8 space: physical KB per stream and in use KB per stream (held minus at rest)
      const per = (n) => (n / Math.max(1, first)).toFixed(2);
      const restSpaces = new Map(before.spaces.spaces.map(([name, phys, used]) => [name, [phys, used]]));
      for (const [name, phys, used] of waves[0].spaces.spaces) {
        const [p0, u0] = restSpaces.get(name) ?? [0, 0];
        console.log(`  ${name.padEnd(24)} physical ${String(p0).padStart(7)} -> ${String(phys).padStart(7)} KB (${per(phys - p0)} per stream), in use ${per(used - u0)} KB per stream`);
      }
      const m0 = before.spaces.memory;
      const m1 = waves[0].spaces.memory;
      for (const k of ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers']) console.log(`  ${k.padEnd(24)} ${per((m1[k] - m0[k]) / 1024)} KB per stream`);
    }
    if (SNAPSHOT) {
      const held = await snapshot(gateway.pid, dir);
      const d = diff(rest, held, inFlight);
      console.log(`${path}: heap (snapshot self sizes) ${d.heapPerStreamKb.toFixed(2)} KB per stream; grew by:`);
      for (const row of d.rows) console.log(`  ${row.perStream.toFixed(0).padStart(6)} B  ${row.countPerStream.toFixed(2).padStart(6)}x  ${row.name}`);
    }
    for (const holder of holders) holder.child.kill('SIGKILL');
    return result;
  } finally {
    await gateway.stop();
  }
}

// The held streams stay open for the whole measure (a snapshot takes longer).
const MOCK_ENV = { HOLD_MS: String(SNAPSHOT ? 120_000 : 60_000) };
const mocks = { openaiMock: await startMock('mock-upstream.mjs', { env: MOCK_ENV }), anthropicMock: await startMock('mock-anthropic.mjs', { env: MOCK_ENV }) };
const REPEAT = Math.max(1, Number(process.env.REPEAT ?? 1));
for (const path of chosen) {
  const results = [];
  for (let i = 0; i < REPEAT; i++) results.push(await measure(path, mocks));
  if (REPEAT > 1) {
    const of = (key) => results.map((r) => r[key]).sort((a, b) => a - b);
    const line = (key) => `median ${median(of(key))} (${of(key).join(', ')})`;
    console.log(`${path}${process.env.BARE === '1' ? ' (bare)' : ''}, ${REPEAT} fresh processes: RSS per stream KB ${line('perStreamKb')}${GC ? ` · JS heap ${line('heapPerStreamKb')}` : ''}`);
  }
}
await shutdown(0);
