#!/usr/bin/env bash
# Issue 13's figures on a page-dense tree, each against a baseline measured
# in the same run.
#
#   bench/dense.sh                         # 100,000 files, one-line pages
#   HTML=real bench/dense.sh               # the same tree, 7 KB real-looking HTML pages
#   FILES=1000000 RUNS=3 bench/dense.sh
#
# Generates `gentree -pages dense -html $HTML` (N files in N/100 directories
# up to five deep; 70% HTML, 10% PDF, 20% assets; 40% odd names; the
# largest directory 3% of the files), then RUNS rounds, interleaved (one of
# each per round, in this order):
#   find      find ROOT -printf '%p %T@ %s\n' (the floor: walk and stat)
#   noop-on   sitemapd build, default configuration (head rules on), with
#             the outputs and state_dir of the build before: nothing changes
#   noop-off  the same with every head rule off (noindex, canonical,
#             hreflang, redirects, head_dates)
#   fresh     sitemapd build, default configuration, into an empty
#             output_dir with an empty state_dir: every page read
#   fresh-off the same with every head rule off (pages still read, to hash)
#   snabb     bench/peers/snabb: github.com/snabb/sitemap walking and
#             writing the same tree (no page read, no state)
#   npm       bench/peers/npm: npm `sitemap` 9 doing the same (skipped,
#             saying why, without npm or node)
# then the daemon (bench/watchbench: CHANGES single-page changes anywhere in
# the tree, a full build from an empty state as the baseline, the daemon's
# first build from an empty state too, IDLE at rest). Prints the medians of
# wall time, CPU time and peak RSS, and issue 13's table with its targets.
#
# Besides FILES, RUNS and WORK (common.sh) it reads HTML (tiny or real,
# default tiny), CHANGES (default 100), IDLE (default 10s), SEED (default 1),
# NPM_SITEMAP (default sitemap@9.0.1), and OUT: if set, a directory where
# the raw figures (results.jsonl: one line a run; daemon.json: the daemon's
# figures and each change's page and latency), env.json and the summary are
# copied before WORK is removed. The network is used only to install
# the peers from the Go module proxy and the npm registry, by name and
# version.
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
HTML=${HTML:-tiny}
CHANGES=${CHANGES:-100}
IDLE=${IDLE:-10s}
SEED=${SEED:-1}
NPM_SITEMAP=${NPM_SITEMAP:-sitemap@9.0.1}
BASE=https://bench.example/

go build -o "$WORK/watchbench" ./bench/watchbench
(cd bench/peers/snabb && go build -o "$WORK/snabb" .)
npm_reason=""
if ! command -v npm > /dev/null || ! command -v node > /dev/null; then
  npm_reason="npm or node not found"
elif ! npm install --prefix "$WORK/npm" --no-audit --no-fund --loglevel=error "$NPM_SITEMAP" > "$WORK/npm-install.log" 2>&1; then
  npm_reason="npm install $NPM_SITEMAP failed: $(tail -1 "$WORK/npm-install.log")"
fi
if [ -n "$npm_reason" ]; then echo "npm peer skipped: $npm_reason" >&2; fi

echo "generating $FILES files (-pages dense -html $HTML -seed $SEED) in $ROOT" >&2
start=$(date +%s)
"$WORK/gentree" -files "$FILES" -seed "$SEED" -pages dense -html "$HTML" "$ROOT" 2> "$WORK/gentree.txt"
cat "$WORK/gentree.txt" >&2
echo "generated in $(( $(date +%s) - start )) s" >&2

off='{noindex: false, canonical: false, hreflang: false, redirects: false, head_dates: false}'
for cfg in noop-on noop-off fresh fresh-off; do
  pages='{}'
  case $cfg in *-off) pages=$off ;; esac
  cat > "$WORK/$cfg.yaml" <<YAML
root: $ROOT
output_dir: $WORK/out-$cfg
state_dir: $WORK/state-$cfg
base_url: $BASE
pages: $pages
log: {level: error, format: json}
YAML
done

# Warm the page and dentry caches: every file read once, the tree walked.
find "$ROOT" -type f -print0 | xargs -0 cat > /dev/null
find "$ROOT" -printf '%p %T@ %s\n' > /dev/null
# The no-op configurations' first build writes their outputs and state.
for cfg in noop-on noop-off; do
  mkdir -p "$WORK/out-$cfg"
  "$WORK/sitemapd" build -config "$WORK/$cfg.yaml"
done

empty() { rm -rf "$1" && mkdir -p "$1"; }
{
  for i in $(seq "$RUNS"); do
    echo "round $i of $RUNS" >&2
    "$WORK/runstat" find bash -c "find '$ROOT' -printf '%p %T@ %s\n' > /dev/null"
    "$WORK/runstat" noop-on "$WORK/sitemapd" build -config "$WORK/noop-on.yaml"
    "$WORK/runstat" noop-off "$WORK/sitemapd" build -config "$WORK/noop-off.yaml"
    for cfg in fresh fresh-off; do
      empty "$WORK/out-$cfg"; rm -rf "$WORK/state-$cfg"
      "$WORK/runstat" "$cfg" "$WORK/sitemapd" build -config "$WORK/$cfg.yaml"
    done
    empty "$WORK/out-snabb"
    "$WORK/runstat" snabb "$WORK/snabb" -root "$ROOT" -base "$BASE" -out "$WORK/out-snabb"
    if [ -z "$npm_reason" ]; then
      empty "$WORK/out-npm"
      "$WORK/runstat" npm env NODE_PATH="$WORK/npm/node_modules" node bench/peers/npm/sitemap.cjs "$ROOT" "$BASE" "$WORK/out-npm"
    fi
  done
} > "$WORK/results.jsonl"

echo "daemon: $CHANGES changes" >&2
"$WORK/watchbench" -sitemapd "$WORK/sitemapd" -root "$ROOT" -state "$WORK/state-daemon" \
  -output "$WORK/out-daemon" -changes "$CHANGES" -idle "$IDLE" -burst 0 -json "$WORK/daemon.json" >&2

# URLs each wrote (the peers list every page; sitemapd leaves out what the
# heads exclude).
urls() {
  if [ -d "$1" ]; then
    find "$1" -name '*.xml' ! -name '*index*' -exec cat {} + | grep -o '<url>' | wc -l
  else
    echo 0
  fi
}
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain -- cmd internal go.mod go.sum 2>/dev/null)" ] && commit="$commit+uncommitted changes"
js() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }
cat > "$WORK/env.json" <<JSON
{"files": $FILES, "html": "$HTML", "seed": $SEED, "runs": $RUNS, "npm_reason": $(js "$npm_reason"),
 "urls": {"fresh": $(urls "$WORK/out-fresh"), "fresh-off": $(urls "$WORK/out-fresh-off"), "snabb": $(urls "$WORK/out-snabb"), "npm": $(urls "$WORK/out-npm")},
 "gentree": $(js "$(cat "$WORK/gentree.txt")"),
 "commit": "$commit",
 "go": "$(go env GOVERSION)", "node": "$(node --version 2>/dev/null || echo none)", "npm_sitemap": "$(cd "$WORK/npm" 2>/dev/null && node -p 'require("sitemap/package.json").version' 2>/dev/null || echo none)",
 "cpu": "$(nproc) × $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)", "mem_gib": $(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo),
 "kernel": "$(uname -r)", "fs": "$(df -T "$WORK" | awk 'NR==2 {print $2}')"}
JSON

python3 - "$WORK/results.jsonl" "$WORK/daemon.json" "$WORK/env.json" > "$WORK/summary.txt" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
d = json.load(open(sys.argv[2]))
env = json.load(open(sys.argv[3]))
by = {}
for r in rows:
    by.setdefault(r["label"], []).append(r)
med = {k: {m: statistics.median(x[m] for x in v) for m in ("wall_s", "cpu_s", "peak_rss_mb")} for k, v in by.items()}
rng = {k: (min(x["wall_s"] for x in v), max(x["wall_s"] for x in v)) for k, v in by.items()}

print(f"{env['files']:,} files, -pages dense -html {env['html']} -seed {env['seed']}; sitemapd {env['commit']}, {env['go']}, node {env['node']}, npm sitemap {env['npm_sitemap']}")
print(f"{env['gentree'].removeprefix('gentree: ')}")
print(f"{env['cpu']}, {env['mem_gib']} GiB, Linux {env['kernel']}, {env['fs']}; median of {len(by['find'])} interleaved rounds, warm cache")
print(f"URLs written: sitemapd fresh {env['urls']['fresh']:,} (head rules off {env['urls']['fresh-off']:,}), snabb {env['urls']['snabb']:,}, npm {env['urls']['npm']:,}")
print()
print(f"| run | wall s (min–max) | CPU s | peak RSS MiB |")
print(f"|---|---:|---:|---:|")
for k in ("find", "noop-on", "noop-off", "fresh", "fresh-off", "snabb", "npm"):
    if k in med:
        m = med[k]
        print(f"| {k} | {m['wall_s']:.3f} ({rng[k][0]:.2f}–{rng[k][1]:.2f}) | {m['cpu_s']:.3f} | {m['peak_rss_mb']:.1f} |")
print()

def vs(a, b):  # how a compares with b in wall time
    r = med[a]["wall_s"] / med[b]["wall_s"]
    return f"{r:.2f}× slower" if r >= 1 else f"{1/r:.2f}× faster"

f, on, offm, fr = med["find"], med["noop-on"], med["noop-off"], med["fresh"]
mib = lambda x: f"{x:.0f}"
print("| figure | now (same run) | target |")
print("|---|---|---|")
print(f"| no-op `sitemapd build`, head rules on, wall / `find -printf` | {on['wall_s']/f['wall_s']:.2f}× ({on['wall_s']:.2f} s vs {f['wall_s']:.2f} s), CPU {on['cpu_s']/f['cpu_s']:.2f}× ({on['cpu_s']:.2f} s vs {f['cpu_s']:.2f} s) | ≤ 1.3× wall |")
print(f"| same, head rules off | {offm['wall_s']/f['wall_s']:.2f}× ({offm['wall_s']:.2f} s), CPU {offm['cpu_s']/f['cpu_s']:.2f}× | ≤ 1.2× |")
print(f"| fresh build into an empty output_dir vs github.com/snabb/sitemap | {vs('fresh', 'snabb')} ({fr['wall_s']:.2f} s vs {med['snabb']['wall_s']:.2f} s); CPU {fr['cpu_s']:.2f} s vs {med['snabb']['cpu_s']:.2f} s | ≥ 1.5× faster |")
if "npm" in med:
    print(f"| fresh build vs npm `sitemap` {env['npm_sitemap']} | {vs('fresh', 'npm')} ({fr['wall_s']:.2f} s vs {med['npm']['wall_s']:.2f} s) | ≥ 10× faster |")
else:
    print(f"| fresh build vs npm `sitemap` 9 | skipped: {env['npm_reason']} | ≥ 10× faster |")
print(f"| `sitemapd build` peak RSS | fresh {mib(fr['peak_rss_mb'])} MiB, no-op {mib(on['peak_rss_mb'])} MiB (snabb {mib(med['snabb']['peak_rss_mb'])}, find {mib(f['peak_rss_mb'])}) | ≤ 64 MiB |")
print(f"| daemon: one change → its sitemap on disk, minus settle, p50 / p99 ({d['changes']} changes) | {d['p50_ms']:.0f} / {d['p99_ms']:.0f} ms (max {d['max_ms']:.0f}) | p99 ≤ 50 ms |")
print(f"| daemon: CPU per change / a full build's CPU | 1/{d['full_cpu_per_change']:.0f} ({d['cpu_per_change_ms']:.1f} ms vs {d['full_cpu_s']:.2f} s) | ≤ 1/1000 |")
print(f"| daemon resident memory, peak / at rest | {d['rss_peak_mib']:.0f} / {d['rss_rest_mib']:.0f} MiB ({d['rest_bytes_per_file']:.0f} B a file at rest; {d['rss_first_build_mib']:.0f} MiB after the first build) | ≤ 100 MiB peak (≤ 100 B a file) |")
print()
print(f"For reference: fresh build with head rules off {med['fresh-off']['wall_s']:.2f} s wall, {med['fresh-off']['cpu_s']:.2f} s CPU "
      f"(fresh with rules on / off: {fr['wall_s']/med['fresh-off']['wall_s']:.2f}× wall, {fr['cpu_s']/med['fresh-off']['cpu_s']:.2f}× CPU); "
      f"daemon baseline full build {d['full_wall_s']:.2f} s wall; idle CPU {d['idle_cpu_s']:.2f} s over {d['idle_s']:.0f} s.")
PY
cat "$WORK/summary.txt"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$WORK/results.jsonl" "$WORK/daemon.json" "$WORK/env.json" "$WORK/summary.txt" "$OUT/"
fi
