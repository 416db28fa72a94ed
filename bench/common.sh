# Sourced by the whole-process benchmarks: the work directory (removed on
# exit) and the binaries they run, built from this checkout.
#
#   FILES  files in the generated tree (default 100,000)
#   RUNS   runs per figure, of which the median is shown (default 5)
#   WORK   work directory (default a new one under /tmp)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
FILES=${FILES:-100000}
RUNS=${RUNS:-5}
WORK=${WORK:-$(mktemp -d /tmp/sitemapd-bench.XXXXXX)}
trap 'rm -rf "$WORK"' EXIT

go build -o "$WORK/sitemapd" ./cmd/sitemapd
go build -o "$WORK/gentree" ./bench/gentree
go build -o "$WORK/runstat" ./bench/runstat
ROOT="$WORK/root"
