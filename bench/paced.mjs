// An open-loop load driver for "latency at a fixed request rate": requests leave at evenly spaced times
// (every 1/rate s, caught up on each 1 ms timer tick) whether or not earlier ones have answered, and each
// latency is measured with a nanosecond clock from the moment the request is handed to the client pool.
// autocannon's overallRate is not used for this: it releases each second's quota in a burst at the start
// of the second, which measures queueing behind the burst rather than the latency a steady load sees.
// With several `urls` (a cluster's instances) request i goes to urls[i % n], each origin with its own pool.
import { Pool } from 'undici';

export async function paced({ url, urls = [url], headers, body, rate, seconds, warmupSeconds = 2 }) {
  const targets = urls.map((u) => {
    const target = new URL(u);
    return { pool: new Pool(target.origin, { connections: 512, pipelining: 1, keepAliveTimeout: 30_000 }), path: `${target.pathname}${target.search}` };
  });
  const samples = [];
  let errors = 0;
  let non2xx = 0;
  const inflight = new Set();
  let lastDone = 0n;
  const fire = (record, index) => {
    const { pool, path } = targets[index % targets.length];
    const started = process.hrtime.bigint();
    const run = pool
      .request({ method: 'POST', path, headers, body })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode >= 300) non2xx += record ? 1 : 0;
        if (!record) return;
        lastDone = process.hrtime.bigint();
        samples.push(Number(lastDone - started) / 1e6);
      })
      .catch(() => { if (record) errors++; })
      .finally(() => inflight.delete(run));
    inflight.add(run);
  };
  const intervalNs = 1e9 / rate;
  const begin = process.hrtime.bigint();
  const totalNs = BigInt(Math.round((warmupSeconds + seconds) * 1e9));
  const warmupNs = warmupSeconds * 1e9;
  let sent = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const elapsed = process.hrtime.bigint() - begin;
      const due = Math.floor(Number(elapsed) / intervalNs);
      while (sent < due) {
        fire(sent * intervalNs >= warmupNs, sent);
        sent++;
      }
      if (elapsed >= totalNs) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.allSettled([...inflight]);
  await Promise.all(targets.map(({ pool }) => pool.close()));
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(samples.length * q))] ?? NaN;
  // Achieved rate: answers over the time from the end of the warm-up to the last answer (below `rate` when the
  // target cannot keep up and the queue drains after the last request was sent).
  const window = Number(lastDone - begin - BigInt(Math.round(warmupNs))) / 1e9;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: samples[samples.length - 1], rps: window > 0 ? samples.length / Math.max(seconds, window) : 0, sent: samples.length, non2xx, errors };
}
