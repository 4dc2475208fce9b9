#!/usr/bin/env bash
# Puts a `loadout` command on PATH that runs this checkout's built command line, so agent
# configurations can call it by name (`claude mcp add loadout -- loadout mcp`).
#
#   bash scripts/install-bin.sh [DIR]     DIR defaults to $XDG_BIN_HOME, else ~/.local/bin
#
# The command is a small wrapper, not a copy: it runs packages/cli/dist/main.js of this
# checkout (build it first with `pnpm build`), with the node that ran this script when that node
# is still there, else whichever `node` is on PATH. Run it again after moving the checkout.
#
# A NODE_EXTRA_CA_CERTS in the caller's environment reaches the command line as
# LOADOUT_NODE_EXTRA_CA_CERTS, which it puts back at once for every program it starts
# (packages/cli/src/handedOverEnvironment.ts): Node 20 loads that certificate bundle at every start,
# ~40-60 ms, and Loadout's own process makes no TLS connection.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd -P)"
dir="${1:-${XDG_BIN_HOME:-$HOME/.local/bin}}"
main="$root/packages/cli/dist/main.js"
node_bin="$(command -v node || true)"
if [ ! -f "$main" ]; then
  echo "install-bin: $main is missing; run 'bash scripts/setup.sh start' first" >&2
  exit 1
fi
case "$root$node_bin" in
  *"'"*) echo "install-bin: paths holding a single quote are not supported: $root" >&2; exit 1 ;;
esac
mkdir -p "$dir"
target="$dir/loadout"
tmp="$(mktemp "$dir/.loadout.XXXXXX")"
cat > "$tmp" <<WRAPPER
#!/bin/sh
# Made by $root/scripts/install-bin.sh: runs that checkout's Loadout command line.
node='$node_bin'
[ -x "\$node" ] || node=node
# Taken back by the command line before it starts anything (handedOverEnvironment.ts).
if [ -n "\${NODE_EXTRA_CA_CERTS:-}" ]; then
  LOADOUT_NODE_EXTRA_CA_CERTS=\$NODE_EXTRA_CA_CERTS
  export LOADOUT_NODE_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
fi
exec "\$node" '$main' "\$@"
WRAPPER
chmod 755 "$tmp"
mv -f "$tmp" "$target"
echo "installed $target"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "install-bin: $dir is not on your PATH; add it, e.g. export PATH=\"$dir:\$PATH\"" >&2 ;;
esac
