#!/usr/bin/env bash
# Sets up a fresh clone with only Node 20+ and npm: the pinned pnpm, the workspace's
# dependencies (better-sqlite3 compiles against the local Node headers), and a build.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
export npm_config_nodedir="${npm_config_nodedir:-$(dirname "$(dirname "$(command -v node)")")}"
PNPM_VERSION=$(node -p "require('./package.json').packageManager.split('@')[1]")
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm $PNPM_VERSION" >&2
  if ! npm install -g "pnpm@$PNPM_VERSION" >/dev/null 2>&1; then
    # No permission for a global install: keep pnpm inside the repository instead.
    npm install --no-save --prefix .tools "pnpm@$PNPM_VERSION" >/dev/null
    export PATH="$PWD/.tools/node_modules/.bin:$PATH"
  fi
fi
pnpm install --frozen-lockfile --reporter=silent
pnpm --silent build >&2
