#!/usr/bin/env bash
# Whole-process benchmark of a full build on a large generated tree.
#
#   bench/build.sh            # 100,000 files
#   FILES=1000000 bench/build.sh
#
# Prints, for a bare `find ROOT -printf '%T@ %p\n'` (the floor: one walk
# and one stat per file) and for `sitemapd build` on the same tree in the
# same run, wall time, CPU time and peak RSS, each the median of RUNS runs
# with a warm page cache, and the ratios sitemapd/find. Two sitemapd
# figures: a rebuild with nothing to change (everything compared), with the
# state_dir (page store) of the build before, and a fresh build: all
# sitemaps deleted and the state_dir emptied first, so every page is read
# and everything written. The state_dir is $WORK/state, never the default.
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
echo "generating $FILES files in $ROOT" >&2
"$WORK/gentree" -files "$FILES" "$ROOT"
cat > "$WORK/sitemapd.yaml" <<YAML
root: $ROOT
base_url: https://bench.example/
state_dir: $WORK/state
log: {level: warn, format: json}
YAML

# Warm the page cache and the dentry cache.
find "$ROOT" -printf '%T@ %p\n' > /dev/null
find "$ROOT" -printf '%T@ %p\n' > /dev/null

remove_outputs() { find "$ROOT" \( -name 'sitemap*.xml' -o -name 'sitemap*.xml.gz' \) -delete; }

measure() { # label, command...
  local label=$1; shift
  for _ in $(seq "$RUNS"); do
    if [ "$label" = "sitemapd-fresh" ]; then remove_outputs; rm -rf "$WORK/state"; fi
    "$WORK/runstat" "$label" "$@"
  done
}

{
  measure find bash -c "find '$ROOT' -printf '%T@ %p\n' > /dev/null"
  remove_outputs
  "$WORK/sitemapd" build -config "$WORK/sitemapd.yaml"
  measure sitemapd-noop "$WORK/sitemapd" build -config "$WORK/sitemapd.yaml"
  measure sitemapd-fresh "$WORK/sitemapd" build -config "$WORK/sitemapd.yaml"
} > "$WORK/results.jsonl"

python3 - "$WORK/results.jsonl" "$FILES" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
files = int(sys.argv[2])
by = {}
for r in rows:
    by.setdefault(r["label"], []).append(r)
med = {k: {m: statistics.median(x[m] for x in v) for m in ("wall_s", "cpu_s", "peak_rss_mb")} for k, v in by.items()}
f = med["find"]
print(f"{files} files, median of {len(by['find'])} runs, warm cache")
print(f"{'':16}{'wall s':>9}{'cpu s':>9}{'rss MiB':>9}{'wall/find':>11}{'cpu/find':>10}")
for k in ("find", "sitemapd-fresh", "sitemapd-noop"):
    m = med[k]
    print(f"{k:16}{m['wall_s']:9.3f}{m['cpu_s']:9.3f}{m['peak_rss_mb']:9.1f}{m['wall_s']/f['wall_s']:11.2f}{m['cpu_s']/f['cpu_s']:10.2f}")
PY
