#!/usr/bin/env bash
# Installs headless Chromium (Debian package `chromium`) for the HTML report test
# (tests/report/test_report_html.c). Idempotent and silent when it is already there; exits
# non-zero with a message when it cannot be installed (no root or sudo, no apt, no network), so
# the test skips. `make test` runs it before the suite; the test also runs it when chromium is
# missing.
set -euo pipefail
for b in chromium chromium-browser; do
  command -v "$b" >/dev/null 2>&1 && exit 0
done
command -v apt-get >/dev/null 2>&1 || { echo "install_chromium: no apt-get on this machine" >&2; exit 2; }
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "install_chromium: chromium is missing and there is no root or sudo to install it" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "${as_root[@]}" apt-get install -y -q --no-install-recommends chromium >"$log" 2>&1; then
  # A fresh machine may have stale package lists: refresh them once and retry.
  if ! { "${as_root[@]}" apt-get update -q &&
         "${as_root[@]}" apt-get install -y -q --no-install-recommends chromium; } >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "install_chromium: apt-get could not install chromium" >&2
    exit 2
  fi
fi
command -v chromium >/dev/null 2>&1 || { echo "install_chromium: chromium not found after install" >&2; exit 2; }
