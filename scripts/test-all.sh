#!/usr/bin/env bash
# The whole suite: typecheck, lint, every test (unit, integration, end to end, browser).
# Ends with a plain "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
status=0
pnpm --silent typecheck || status=1
pnpm --silent lint || status=1
bash scripts/ensure-chromium.sh || status=1
mkdir -p test-results
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || status=1
node -e '
  const r = require("./test-results/vitest.json");
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
  if (r.numTotalTests === 0) process.exit(1);
' || status=1
exit $status
