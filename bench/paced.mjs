// An open-loop load driver for "latency at a fixed request rate": requests leave at evenly spaced times
// (every 1/rate s, caught up on each 1 ms timer tick) whether or not earlier ones have answered, and each
// latency is measured with a nanosecond clock from the moment the request is handed to the client pool.
// autocannon's overallRate is not used for this: it releases each second's quota in a burst at the start
// of the second, which measures queueing behind the burst rather than the latency a steady load sees.
import { Pool } from 'undici';

export async function paced({ url, headers, body, rate, seconds, warmupSeconds = 2 }) {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 512, pipelining: 1, keepAliveTimeout: 30_000 });
  const path = `${target.pathname}${target.search}`;
  const samples = [];
  let errors = 0;
  let non2xx = 0;
  const inflight = new Set();
  const fire = (record) => {
    const started = process.hrtime.bigint();
    const run = pool
      .request({ method: 'POST', path, headers, body })
      .then(async (res) => {
        await res.body.dump();
        if (res.statusCode >= 300) non2xx += record ? 1 : 0;
        if (record) samples.push(Number(process.hrtime.bigint() - started) / 1e6);
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
        fire(sent * intervalNs >= warmupNs);
        sent++;
      }
      if (elapsed >= totalNs) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.allSettled([...inflight]);
  await pool.close();
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(samples.length * q))] ?? NaN;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: samples[samples.length - 1], rps: samples.length / seconds, non2xx, errors };
}
