import { monitorEventLoopDelay } from 'node:perf_hooks';
import { countTokens } from 'gpt-tokenizer';
import { afterAll, describe, expect, it } from 'vitest';
import { approximateTokens, TokenCounter } from './count-tokens.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

const randomLetters = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

describe('TokenCounter', () => {
  it('counts ordinary text exactly like gpt-tokenizer', async () => {
    const texts = ['Hello, world!', 'The quick brown fox jumps over the lazy dog. '.repeat(500), '你好，世界。这是一个测试。', ''];
    expect(await counter.count(texts)).toEqual(texts.map((text) => countTokens(text)));
  });

  it('an 80,000-letter run and 1 MB of text are counted off the event loop: the loop never stalls', async () => {
    const histogram = monitorEventLoopDelay({ resolution: 5 });
    histogram.enable();
    const [letters, big] = await counter.count([randomLetters(80_000), randomLetters(1_000_000)]);
    histogram.disable();
    // Counting this on the event loop stalled it for several seconds; what is left is scheduling noise of a busy
    // 2-core machine running other suites (the worker itself takes a core). How long the count takes is the bench's
    // business, not this test's: a loaded machine took 10.5 s (load average 15).
    expect(histogram.max / 1e6).toBeLessThan(1_000);
    // Random letters are about one token per two characters; the segmented count stays close to that.
    expect(letters).toBeGreaterThan(80_000 * 0.4);
    expect(letters).toBeLessThan(80_000 * 0.7);
    expect(big).toBeGreaterThan(1_000_000 * 0.4);
    expect(big).toBeLessThan(1_000_000 * 0.7);
  });

  it('falls back to the approximate count when the worker cannot answer in time', async () => {
    const impatient = new TokenCounter(0);
    const text = randomLetters(50_000);
    expect(await impatient.count([text])).toEqual([approximateTokens(text)]);
    await impatient.close();
  });

  it('keeps working after its worker is gone', async () => {
    const own = new TokenCounter();
    expect(await own.count(['one two three'])).toEqual([countTokens('one two three')]);
    await own.close();
    expect(await own.count(['one two three'])).toEqual([countTokens('one two three')]);
    await own.close();
  });
});
