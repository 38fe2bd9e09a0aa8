#!/bin/sh
# run.sh TARGET CORPUS WORKDIR [SECONDS]: every input of CORPUS, then fresh
# inputs for SECONDS (default $LBTORUS_FUZZ_SECONDS or 10), new ones kept in
# WORKDIR; a crash leaves its input in WORKDIR as crash-* and fails.
set -e
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
exe=$1 corpus=$2 work=$3
secs=${4:-${LBTORUS_FUZZ_SECONDS:-10}}
mkdir -p "$work"
exec "$exe" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work" "$corpus"
