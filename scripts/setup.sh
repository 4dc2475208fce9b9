#!/usr/bin/env bash
# Sets up a fresh clone with only Node 20+ and npm: the pinned pnpm, the workspace's
# dependencies (better-sqlite3 compiles against the local Node headers), and a build.
#
#   bash scripts/setup.sh start   what running Loadout needs (`npm start`): every package but the
#                                 end-to-end tests, so no agent client (Claude Code, Codex: ~660 MB)
#   bash scripts/setup.sh         everything, the test-only clients too (`npm test`, developers)
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
export npm_config_nodedir="${npm_config_nodedir:-$(dirname "$(dirname "$(command -v node)")")}"
mode="${1:-all}"
case "$mode" in
  start | all) ;;
  *) echo "setup: unknown mode \"$mode\"; use start or leave it out" >&2; exit 2 ;;
esac
step() { echo "setup: $*" >&2; }
PNPM_VERSION=$(node -p "require('./package.json').packageManager.split('@')[1]")
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  step "installing pnpm $PNPM_VERSION"
  if ! npm install -g "pnpm@$PNPM_VERSION" >/dev/null 2>&1; then
    # No permission for a global install: keep pnpm inside the repository instead.
    npm install --no-save --prefix .tools "pnpm@$PNPM_VERSION" >/dev/null
    export PATH="$PWD/.tools/node_modules/.bin:$PATH"
  fi
fi
if [ "$mode" = start ]; then
  # The end-to-end package alone holds the agent clients the tests drive; start leaves it out.
  step "installing what running Loadout needs (the test-only agent clients come with npm test)"
  pnpm install --frozen-lockfile --reporter=silent --filter '!@loadout/e2e'
else
  step "installing every dependency, the test-only agent clients included"
  pnpm install --frozen-lockfile --reporter=silent
fi
step "building (cached builds are reused)"
pnpm --silent build >&2
step "ready"
