#!/usr/bin/env bash
# The whole suite: typecheck, lint, the unit tests (every package's own; no build needed), a few
# packages' unit tests and a smoke test on Node 22 and 24 (scripts/test-node-versions.sh) and the
# end-to-end tests (packages/e2e: the built command line, the HTTP server, Chromium; turbo builds
# first). Ends with one plain "N passed, N failed" line covering both runs.
set -uo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
status=0
pnpm --silent typecheck || status=1
pnpm --silent lint || status=1
rm -rf test-results
mkdir -p test-results
# The PostgreSQL leg of the store contract tests and the several-servers tests need a server: a
# throw-away cluster, stopped when the run ends. Without one those tests say loudly they skipped.
if [ -z "${LOADOUT_TEST_DATABASE_URL:-}" ]; then
  if started=$(bash scripts/ensure-postgres.sh start); then
    eval "$started"
    trap 'bash scripts/ensure-postgres.sh stop "$LOADOUT_TEST_PG_DIR"' EXIT
  else
    echo "test-all: no PostgreSQL could be started; its tests will say they skipped" >&2
  fi
fi
# A developer's own LOADOUT_DATABASE_URL must not send every test's tables to their server.
unset LOADOUT_DATABASE_URL
pnpm --silent test:unit --reporter=default --reporter=json --outputFile.json=test-results/unit.json || status=1
# Node 22 and 24 (from the npm registry, cached outside the repository): a few packages' unit
# tests and a smoke test of the command line and server, each in a copy built for that Node.
if [ "${LOADOUT_SKIP_NODE_VERSIONS:-}" != 1 ]; then
  bash scripts/test-node-versions.sh || status=1
fi
bash scripts/ensure-chromium.sh || status=1
pnpm --silent test:e2e -- --reporter=default --reporter=json --outputFile.json="$PWD/test-results/e2e.json" || status=1
node -e '
  const fs = require("node:fs");
  let passed = 0, failed = 0, skipped = 0, total = 0;
  const extra = fs.readdirSync("test-results").filter((f) => /^node\d+-unit\.json$/.test(f)).map((f) => f.replace(/\.json$/, ""));
  for (const name of ["unit", "e2e", ...extra]) {
    const file = `test-results/${name}.json`;
    if (!fs.existsSync(file)) {
      console.error(`test-all: ${file} is missing: the ${name} tests did not run`);
      failed += 1;
      continue;
    }
    const r = JSON.parse(fs.readFileSync(file, "utf8"));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    total += r.numTotalTests;
  }
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
  if (total === 0 || failed > 0) process.exit(1);
' || status=1
exit $status
