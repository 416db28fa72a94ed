#!/usr/bin/env bash
# Whole-process benchmark of the daemon on a large generated tree.
#
#   bench/watch.sh                 # 100,000 files, 60 s idle
#   FILES=1000000 bench/watch.sh
#
# Prints latency of one change (p50/p99 minus settle), CPU per change as a
# fraction of a full build measured in the same run, a burst's convergence
# time against the full build's wall time, idle CPU and resident memory.
set -euo pipefail
cd "$(dirname "$0")/.."
FILES=${FILES:-100000}
IDLE=${IDLE:-60s}
CHANGES=${CHANGES:-100}
WORK=${WORK:-$(mktemp -d /tmp/sitemapd-watchbench.XXXXXX)}
trap 'rm -rf "$WORK"' EXIT

go build -o "$WORK/sitemapd" ./cmd/sitemapd
go build -o "$WORK/gentree" ./bench/gentree
go build -o "$WORK/watchbench" ./bench/watchbench
echo "generating $FILES files" >&2
"$WORK/gentree" -files "$FILES" "$WORK/root"
find "$WORK/root" > /dev/null   # warm the caches
"$WORK/watchbench" -sitemapd "$WORK/sitemapd" -root "$WORK/root" -changes "$CHANGES" -idle "$IDLE"
