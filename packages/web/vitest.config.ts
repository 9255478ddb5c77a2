import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'web',
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}', 'build/**/*.test.ts'],
    setupFiles: ['./vitest.setup.ts'],
    // Screens driven through antd in happy-dom take a few seconds each when the 2-core machine is busy with other
    // suites; a test that fails does so by its assertions, not by the 5 s default running out.
    testTimeout: 20_000,
  },
});
