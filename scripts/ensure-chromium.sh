#!/usr/bin/env bash
# The capability screen is tested in Debian's Chromium (playwright-core never downloads a browser).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: installing Debian's chromium" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
else
  echo "ensure-chromium: /usr/bin/chromium is missing; install Debian's chromium package (needs root)" >&2
  exit 1
fi
