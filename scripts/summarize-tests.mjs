// Prints one closing line "tests: N passed, N failed" over the vitest and Playwright JSON reports.
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync('.tmp/vitest.json')) {
  const report = JSON.parse(readFileSync('.tmp/vitest.json', 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
if (existsSync('.tmp/playwright.json')) {
  const report = JSON.parse(readFileSync('.tmp/playwright.json', 'utf8'));
  passed += (report.stats?.expected ?? 0) + (report.stats?.flaky ?? 0);
  failed += report.stats?.unexpected ?? 0;
  skipped += report.stats?.skipped ?? 0;
}
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
