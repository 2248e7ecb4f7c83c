#!/usr/bin/env bash
# Runs npm scripts one after another, stopping at the first that fails (as `a && b && c` would), and prints each
# one's wall seconds, so a CI log shows where `npm test`'s time goes. Usage: stages.sh SCRIPT...
set -uo pipefail
times=()
for script in "$@"; do
  start=$SECONDS
  npm run "$script"
  rc=$?
  times+=("$(printf '%-12s %5d s' "$script" $((SECONDS - start)))")
  if [ $rc -ne 0 ]; then
    printf 'stage %s\n' "${times[@]}"
    echo "stage $script failed (exit $rc)"
    exit $rc
  fi
done
printf 'stage %s\n' "${times[@]}"
