// The load drivers that are not wrk, each run as a child process of run.mjs so the load never shares the
// orchestrator's event loop (nor the gateway's). Usage: node driver.mjs '<json>'; prints JSON lines.
//   {"mode":"paced", "urls":[...], "headers":{}, "body":"...", "rate":500, "seconds":10}
//       open-loop fixed-rate load (paced.mjs); one line: {p50,p90,p99,max,rps,non2xx,errors} in ms
//   {"mode":"ttfb", "url":"...", "headers":{}, "body":"...", "n":200, "warmup":20}
//       sequential streaming requests; time from sending to the first body byte; one line {p50,p99,...}
//   {"mode":"hold", "url":"...", "headers":{}, "body":"...", "streams":1000}
//       that many concurrent streams; a line {"event":"holding",...} once every one has its first chunk (or
//       after 30 s), then {"event":"done",...} when they have all finished
//   {"mode":"mixed", "kinds":[{name, method, url, headers, body?, abortAfterFirst?}], "order":[0,1,0,2], "rate":20, "seconds":300}
//       the soak's load: one request of the next kind (round-robin) at evenly spaced times, each read to its end
//       (or cut by the client after its first chunk); a line per minute {"event":"minute", counts per kind}
import { Agent, request } from 'undici';
import { paced } from './paced.mjs';

const job = JSON.parse(process.argv[2]);
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))];

if (job.mode === 'paced') {
  print(await paced(job));
} else if (job.mode === 'ttfb') {
  const agent = new Agent({ connections: 1 });
  const samples = [];
  let non2xx = 0;
  for (let i = 0; i < job.n + job.warmup; i++) {
    const started = process.hrtime.bigint();
    const res = await request(job.url, { method: 'POST', headers: job.headers, body: job.body, dispatcher: agent });
    let first;
    for await (const _ of res.body) if (first === undefined) first = Number(process.hrtime.bigint() - started) / 1e6;
    if (i < job.warmup) continue;
    if (res.statusCode !== 200) non2xx++;
    samples.push(first ?? NaN);
  }
  await agent.close();
  samples.sort((a, b) => a - b);
  print({ p50: percentile(samples, 0.5), p90: percentile(samples, 0.9), p99: percentile(samples, 0.99), max: samples.at(-1), n: samples.length, non2xx });
} else if (job.mode === 'hold') {
  const agent = new Agent({ connections: job.streams + 10, pipelining: 1 });
  let firstChunks = 0;
  let completed = 0;
  let non2xx = 0;
  let errors = 0;
  let announce;
  const allStarted = new Promise((resolve) => (announce = resolve));
  const runs = Array.from({ length: job.streams }, async () => {
    try {
      const res = await request(job.url, { method: 'POST', headers: job.headers, body: job.body, dispatcher: agent, bodyTimeout: 120_000, headersTimeout: 60_000 });
      if (res.statusCode !== 200) non2xx++;
      let first = true;
      for await (const _ of res.body) {
        if (first) {
          first = false;
          if (++firstChunks === job.streams) announce();
        }
      }
      completed++;
    } catch {
      errors++;
    }
  });
  await Promise.race([allStarted, new Promise((r) => setTimeout(r, 30_000))]);
  print({ event: 'holding', inFlight: firstChunks });
  await Promise.allSettled(runs);
  await agent.close();
  print({ event: 'done', firstChunks, completed, non2xx, errors });
} else if (job.mode === 'mixed') {
  const agent = new Agent({ connections: 256 });
  const counts = Object.fromEntries(job.kinds.map((k) => [k.name, { sent: 0, ok: 0, aborted: 0, non2xx: 0, errors: 0 }]));
  const one = async (kind) => {
    const count = counts[kind.name];
    count.sent++;
    const controller = new AbortController();
    try {
      const res = await request(kind.url, { method: kind.method, headers: kind.headers, body: kind.body, dispatcher: agent, signal: controller.signal });
      if (res.statusCode !== 200) count.non2xx++;
      for await (const _ of res.body) {
        if (kind.abortAfterFirst) {
          controller.abort();
          count.aborted++;
          return;
        }
      }
      if (res.statusCode === 200) count.ok++;
    } catch {
      if (!controller.signal.aborted) count.errors++;
    }
  };
  // The kinds in the order they are sent, round-robin, as indices (a schedule of whole kinds outgrew a command line).
  const order = job.order ?? job.kinds.map((_, i) => i);
  const running = new Set();
  const started = performance.now();
  const interval = 1000 / job.rate;
  let nextMinute = 60_000;
  for (let i = 0; ; i++) {
    const due = started + i * interval;
    if (due - started >= job.seconds * 1000) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (performance.now() - started >= nextMinute) {
      print({ event: 'minute', counts });
      nextMinute += 60_000;
    }
    const p = one(job.kinds[order[i % order.length]]);
    running.add(p);
    p.finally(() => running.delete(p));
  }
  await Promise.allSettled([...running]);
  await agent.close();
  print({ event: 'done', counts });
} else {
  throw new Error(`unknown mode ${job.mode}`);
}
