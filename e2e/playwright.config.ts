import { defineConfig } from '@playwright/test';

/**
 * Browser tests against the real built server (packages/server/dist + packages/web/dist), driving Debian's
 * Chromium. Each test starts its own server on a fresh SQLite file (see support/fixtures.ts), so tests never
 * share state and can run in parallel.
 */
export default defineConfig({
  testDir: './tests',
  // A whole test may take long on a busy 2-core machine (two browsers and two servers start at once); each step
  // still waits only for what it checks.
  timeout: 120_000,
  // The ceiling of each wait, not a wait: a busy machine can take several seconds to render a heavy screen (the
  // dashboard's first render is about a second of the renderer's CPU even on an idle machine).
  expect: { timeout: 20_000 },
  fullyParallel: true,
  workers: process.env.CI ? 2 : 2,
  // One retry, so a machine hiccup does not block a landing; Playwright still reports such a test as flaky. Not tied to
  // the CI variable: the README's test command (which CI runs) may run without it, and a clean-clone run of it on
  // 2026-12-07 lost two tests to one slow moment (an e-mail countdown, a popconfirm's click) that passed 3 of 3 after.
  retries: 1,
  reporter: [['list'], ['json', { outputFile: '../.tmp/playwright.json' }]],
  use: {
    locale: 'zh-CN',
    // The browser asks for reduced motion, which the console honours by turning antd's motion off: a click then never
    // lands on a popup still zooming in (on a busy machine a popconfirm's button moved between the press and the
    // release, and its click was lost). Users who ask their system for less motion get the same.
    reducedMotion: 'reduce',
    // Recording a trace (DOM snapshots and screenshots at every step) doubled the suite's CPU and wall time, and
    // starved the browsers on the 2-core machine; a failing test's retry records one instead.
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  outputDir: '../.tmp/test-results',
});
