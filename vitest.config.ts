import { defineConfig } from 'vitest/config';

/** One vitest run for every package (scripts/test.sh); each package keeps its own config. */
export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts'],
    // React's scheduler can run a queued update (a toast's timer) just after happy-dom removed `window` at the
    // end of a web test file: an artefact of tearing the test environment down, not of the code under test.
    // Every other unhandled error still fails the run.
    onUnhandledError(error) {
      const stack = String((error as Error).stack ?? '');
      if ((error as Error).name === 'ReferenceError' && /window is not defined/.test((error as Error).message) && /react-dom|scheduler/.test(stack)) return false;
    },
  },
});
