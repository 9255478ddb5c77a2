import { defineConfig } from 'vitest/config';

/** One vitest run for every package (scripts/test.sh); each package keeps its own config. */
export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts'],
  },
});
