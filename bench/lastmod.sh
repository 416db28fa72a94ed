#!/usr/bin/env bash
# What pages.lastmod: content costs against mtime (the baseline).
#
#   bench/lastmod.sh              # RUNS=10 interleaved runs, FILES=100000 for the strace check
#   RUNS=5 bench/lastmod.sh
#
# 1. Runs the in-process benchmarks BenchmarkNoOpBuild (a full build that
#    changes nothing, on some 28,000 real-looking pages with the default
#    head rules and a state_dir; engine=reused and engine=new) and
#    BenchmarkDaemonMemory (heap a daemon's engine retains per page, head
#    rules on and off), RUNS times each, one test process per run, so that
#    content and mtime alternate in the same run; compares them with
#    benchstat, mtime as the baseline.
# 2. Checks that a no-op `sitemapd build` opens no page: generates FILES
#    files with gentree -pages real, builds twice in each mode, and counts
#    the opens of page files (.html, .htm, .pdf) under strace in each build.
# Targets: a no-op build in content mode ≤ 1.10× mtime; content adds ≤ 8
# bytes a page to the daemon's memory with the default head rules.
RUNS=${RUNS:-10}
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
BENCHSTAT=${BENCHSTAT:-$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")}

go test -c -o "$WORK/build.test" ./internal/build
mkdir -p "$WORK/tmp"
for i in $(seq "$RUNS"); do
  echo "run $i of $RUNS" >&2
  (cd internal/build && TMPDIR="$WORK/tmp" "$WORK/build.test" -test.run '^$' \
    -test.bench '^(BenchmarkNoOpBuild|BenchmarkDaemonMemory)$' -test.benchmem -test.v=false)
done | tee "$WORK/bench.txt" | grep -E '^Benchmark' >&2

echo "== no-op full build (time: mtime is the baseline)"
grep -E '^(goos|goarch|pkg|cpu):|^BenchmarkNoOpBuild' "$WORK/bench.txt" > "$WORK/noop.txt"
"$BENCHSTAT" -col '/lastmod@(mtime content)' "$WORK/noop.txt"
echo "== daemon memory after its first build"
grep -E '^(goos|goarch|pkg|cpu):|^BenchmarkDaemonMemory' "$WORK/bench.txt" > "$WORK/mem.txt"
"$BENCHSTAT" -col '/lastmod@(mtime content)' -filter '.unit:B/page' "$WORK/mem.txt"

if ! command -v strace > /dev/null; then
  echo "strace not found: page opens not counted" >&2
  exit 0
fi
echo "== page files opened by sitemapd build ($FILES files, gentree -pages real)"
"$WORK/gentree" -files "$FILES" -pages real "$ROOT"
pages=$(find "$ROOT" -type f \( -name '*.htm*' -o -name '*.pdf' \) | wc -l)
for mode in content mtime; do
  mkdir -p "$WORK/out-$mode" "$WORK/state-$mode"
  cat > "$WORK/$mode.yaml" <<YAML
root: $ROOT
output_dir: $WORK/out-$mode
state_dir: $WORK/state-$mode
base_url: https://bench.example/
pages: {lastmod: $mode}
log: {level: error, format: json}
YAML
  for build in first no-op; do
    strace -f -qq -e trace=openat,open -o "$WORK/strace-$mode-$build" \
      "$WORK/sitemapd" build -config "$WORK/$mode.yaml"
    opened=$(grep -cE '"[^"]*\.(html?|pdf)"' "$WORK/strace-$mode-$build" || true)
    echo "lastmod=$mode $build build: $opened page files opened ($pages pages)"
  done
done
