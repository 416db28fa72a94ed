#!/usr/bin/env bash
# Whole-process benchmark of the daemon on a large generated tree.
#
#   bench/watch.sh                 # 100,000 files, 60 s idle
#   FILES=1000000 bench/watch.sh
#
# Prints latency of one change (p50/p99 minus settle), CPU per change as a
# fraction of a full build measured in the same run, a burst's convergence
# time against the full build's wall time, idle CPU and resident memory.
# The state_dir is $WORK/state, emptied before the full build and again
# before the daemon starts: both are first builds, which read every page.
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
IDLE=${IDLE:-60s}
CHANGES=${CHANGES:-100}
go build -o "$WORK/watchbench" ./bench/watchbench
echo "generating $FILES files" >&2
"$WORK/gentree" -files "$FILES" "$ROOT"
find "$ROOT" > /dev/null   # warm the caches
"$WORK/watchbench" -sitemapd "$WORK/sitemapd" -root "$ROOT" -state "$WORK/state" -changes "$CHANGES" -idle "$IDLE"
