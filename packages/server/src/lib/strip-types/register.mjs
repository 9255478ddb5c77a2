// Loaded with `--import` into a worker thread started from the TypeScript sources (the tests run them
// untransformed): registers hooks that strip the types of this package's .ts modules (lib/module-worker.ts).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
