import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** About 0.38 tokens per character: ApproximateTokenEnabled, and the fallback when the tokenizer is unavailable. */
export const TOKENS_PER_CHARACTER = 0.38;
export const approximateTokens = (text: string): number => Math.ceil(text.length * TOKENS_PER_CHARACTER);

/**
 * Counts tokens with gpt-tokenizer when an upstream reported no usage. The counting never runs on the main event
 * loop: gpt-tokenizer's byte-pair merge is quadratic in the length of one pre-token (an unbroken run of letters,
 * CJK characters or punctuation), so an 80,000-letter prompt took seconds and 1 MB took minutes. Here:
 *  - it runs on a worker thread (which also keeps the tokenizer's ~20 MB of tables off the main heap);
 *  - text is cut into pieces of at most SEGMENT characters, preferably just before whitespace (where the
 *    tokenizer would split anyway), so every merge is bounded and the total is linear in the text;
 *  - at most EXACT_LIMIT characters per text are counted exactly and the rest is extrapolated at the same
 *    tokens-per-character rate, so no request can keep the worker busy for long;
 *  - a worker that fails, dies or takes longer than `timeoutMs` yields the approximate count instead: counting
 *    can delay a settlement but never prevent it.
 */
export class TokenCounter {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { texts: string[]; resolve: (counts: number[]) => void; timer: NodeJS.Timeout }>();

  constructor(private readonly timeoutMs = 30_000) {}

  /** One count per text, in order. Never throws. */
  count(texts: string[]): Promise<number[]> {
    if (texts.every((text) => text.length === 0)) return Promise.resolve(texts.map(() => 0));
    return new Promise((resolve) => {
      const id = this.nextId++;
      const timer = setTimeout(() => this.settle(id), this.timeoutMs);
      timer.unref();
      this.pending.set(id, { texts, resolve, timer });
      try {
        this.start().postMessage({ id, texts });
      } catch {
        this.settle(id);
      }
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    for (const id of [...this.pending.keys()]) this.settle(id);
    await worker?.terminate();
  }

  /** Resolves a job with the worker's counts, or with the approximate counts when there are none. */
  private settle(id: number, counts?: number[]): void {
    const job = this.pending.get(id);
    if (!job) return;
    this.pending.delete(id);
    clearTimeout(job.timer);
    job.resolve(counts && counts.length === job.texts.length ? counts : job.texts.map(approximateTokens));
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // The CommonJS entry, loaded with require(): the source below is also run untransformed from tests.
    const tokenizer = createRequire(import.meta.url).resolve('gpt-tokenizer');
    const worker = new Worker(`(${countInWorker.toString()})(${JSON.stringify(tokenizer)}, ${SEGMENT}, ${EXACT_LIMIT});`, { eval: true });
    worker.unref();
    worker.on('message', (message: { id: number; counts?: number[] }) => this.settle(message.id, message.counts));
    const lost = () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const id of [...this.pending.keys()]) this.settle(id);
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.worker = worker;
    return worker;
  }
}

const SEGMENT = 1024;
const EXACT_LIMIT = 200_000;

/**
 * The worker's whole program. It is sent to the worker as source text, so it must stand alone: no imports and
 * no references to anything outside its own body.
 */
function countInWorker(tokenizerPath: string, segment: number, exactLimit: number): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const loaded = new Promise<(text: string) => number>((resolve) => resolve((require(tokenizerPath) as { countTokens: (text: string) => number }).countTokens));
  /* eslint-enable @typescript-eslint/no-require-imports */
  const isSpace = (code: number) => code === 32 || code === 10 || code === 13 || code === 9;
  const countText = (countTokens: (text: string) => number, text: string): number => {
    const exact = text.length > exactLimit ? text.slice(0, exactLimit) : text;
    let total = 0;
    for (let start = 0; start < exact.length; ) {
      let end = Math.min(exact.length, start + segment);
      if (end < exact.length) {
        let cut = end;
        while (cut > start + segment / 2 && !isSpace(exact.charCodeAt(cut))) cut--;
        if (cut > start + segment / 2) end = cut;
        // Never split a surrogate pair.
        const code = exact.charCodeAt(end - 1);
        if (code >= 0xd800 && code <= 0xdbff) end--;
      }
      total += countTokens(exact.slice(start, end));
      start = end;
    }
    return exact.length === text.length ? total : Math.ceil((total * text.length) / exact.length);
  };
  parentPort!.on('message', (job: { id: number; texts: string[] }) => {
    loaded.then(
      (countTokens) => {
        let counts: number[] | undefined;
        try {
          counts = job.texts.map((text) => countText(countTokens, text));
        } catch {
          counts = undefined; // the main thread falls back to the approximate count
        }
        parentPort!.postMessage({ id: job.id, counts });
      },
      () => parentPort!.postMessage({ id: job.id }),
    );
  });
}
