#!/usr/bin/env bash
# The whole test command: installs what the tests need, builds once, then type-checks, lints and runs every suite
# (unit, API, the three real databases, browser). Ends with one "N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

step() { printf '\n=== %s ===\n' "$*"; }

step "system packages (Chromium, Chinese fonts; ip and unshare for the real-client suite's network namespace)"
if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi 'wqy' || ! command -v ip >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei iproute2 util-linux >/dev/null
fi

step "database and cache services"
bash scripts/ensure-services.sh

step "npm ci"
npm ci --no-fund --no-audit

step "build"
npm run build

step "typecheck and lint"
npm run typecheck
npm run lint

mkdir -p .tmp
export TEST_PG_DSN="${TEST_PG_DSN:-postgres://postgres@127.0.0.1:5432/test}"
export TEST_MYSQL_DSN="${TEST_MYSQL_DSN:-mysql://root@127.0.0.1:3306/test}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"

step "unit, API and database tests (SQLite, PostgreSQL, MariaDB)"
unit_rc=0
npx vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest.json || unit_rc=$?

step "browser tests (Playwright + Debian Chromium)"
e2e_rc=0
if [ -f e2e/playwright.config.ts ]; then
  (cd e2e && npx playwright test) || e2e_rc=$?
fi

node scripts/summarize-tests.mjs
if [ "$unit_rc" -ne 0 ] || [ "$e2e_rc" -ne 0 ]; then exit 1; fi
