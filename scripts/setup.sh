#!/usr/bin/env bash
# Installs the Debian packages tracekit needs to build and test. Idempotent: prints nothing and
# changes nothing when everything is already there. Uses sudo when not run as root.
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang libclang-rt-dev
  libsqlite3-dev zlib1g-dev libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libcjson-dev
  libcriterion-dev clang-format libopenmpi-dev openmpi-bin libisal-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup: missing packages (${missing[*]}) and no root or sudo to install them" >&2
  exit 2
fi

echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
  # A fresh machine may have stale package lists: refresh them once and retry.
  if ! { "${as_root[@]}" apt-get update -q && \
         "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: apt-get failed to install ${missing[*]}" >&2
    rm -f "$log"
    exit 2
  fi
fi
rm -f "$log"
