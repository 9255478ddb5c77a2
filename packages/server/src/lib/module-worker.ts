import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running one of this package's modules, `name` (without extension) resolved beside `callerUrl`
 * (the caller's `import.meta.url`). Built, that is the .js file; from the TypeScript sources, which the tests run
 * untransformed, the .ts file through hooks that strip its types (strip-types/).
 */
export function moduleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = callerUrl.endsWith('.ts');
  const file = new URL(`${name}${fromSource ? '.ts' : '.js'}`, callerUrl);
  if (!fromSource) return new Worker(file, options);
  const register = new URL('./strip-types/register.mjs', import.meta.url).href;
  return new Worker(file, { ...options, execArgv: [...(options.execArgv ?? []), '--import', register] });
}
