#!/usr/bin/env bash
# Runs the WebGPU test files on the three implementations (docs/backends.md): Dawn on SwiftShader, Dawn on
# lavapipe and wgpu on lavapipe, each with the adapter's limits and again with REMA_WEBGPU_LIMITS=default (the
# spec's limits), and prints one line per run (passed / failed / skipped tests, wall and CPU seconds). Needs
# scripts/webgpu/install-drivers.sh first. Exits non-zero when a run fails. `--only NAME` runs one of them,
# `--skip NAME` all but that one (CI skips dawn-swiftshader, which `npm test` runs).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=.cache/webgpu/results
mkdir -p "$out"
only= skip=
case "${1:-}" in
  --only) only=${2:?--only needs a run name} ;;
  --skip) skip=${2:?--skip needs a run name} ;;
  '') ;;
  *) echo "usage: $0 [--only NAME | --skip NAME]" >&2 && exit 2 ;;
esac
status=0
summary=()

SWIFTSHADER=/usr/lib/chromium/vk_swiftshader_icd.json

# CPU seconds (user + system) of the finished child processes into CPU: on a shared machine the wall time says
# little. `times` must run in this shell (a subshell would count only its own children).
cpu_now() {
  times >"$out/.times"
  CPU=$(awk 'END { n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] } print int(n) }' "$out/.times")
}

run() { # name, limits, npm script, Vulkan driver for Dawn (test:webgpu:lavapipe and test:wgpu name lavapipe's)
  local name=$1 limits=$2 script=$3 icd=${4:-${VK_ICD_FILENAMES:-}} start cpu0
  if [ -n "$only" ] && [ "$only" != "$name" ] || [ "$skip" = "$name" ]; then return; fi
  start=$(date +%s)
  cpu_now
  cpu0=$CPU
  rm -f "$out/$name.json"
  echo "== $name"
  VK_ICD_FILENAMES=$icd REMA_WEBGPU_LIMITS=$limits npm run --silent "$script" -- --reporter=default --reporter=json \
    --outputFile.json="$out/$name.json" || status=1
  cpu_now
  summary+=("$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(`${process.argv[2].padEnd(28)} ${r.numPassedTests} passed, ${r.numFailedTests} failed, ` +
      `${r.numPendingTests + r.numTodoTests} skipped of ${r.numTotalTests} tests in ${r.testResults.length} ` +
      `files, ${process.argv[3]} s (${process.argv[4]} CPU s)`);
  ' "$out/$name.json" "$name" "$(($(date +%s) - start))" "$((CPU - cpu0))" 2>/dev/null || echo "$name: no result")")
}

run dawn-swiftshader adapter test:webgpu $SWIFTSHADER
run dawn-swiftshader-default default test:webgpu $SWIFTSHADER
run dawn-lavapipe adapter test:webgpu:lavapipe
run dawn-lavapipe-default default test:webgpu:lavapipe
run wgpu-lavapipe adapter test:wgpu
run wgpu-lavapipe-default default test:wgpu

printf '%s\n' "${summary[@]}"
exit $status
