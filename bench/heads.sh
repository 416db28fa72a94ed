#!/usr/bin/env bash
# Whole-process cost of head reading (pages.noindex, canonical, hreflang)
# in a full build, on a generated tree of real-looking pages.
#
#   bench/heads.sh            # 100,000 files (some 40,000 HTML pages of 7 KB)
#   FILES=1000000 bench/heads.sh
#
# Runs `sitemapd build` on the same tree with the head rules off (the
# baseline) and on, alternating, RUNS times each with a warm page cache,
# each writing to its own output directory so that every measured run is a
# rebuild with nothing to change. Each mode has its own state_dir under
# $WORK. "on" reads every head: its state_dir is removed before each run,
# so there is no page store; "on-stored" has the page store of its previous
# run, as a build after a deploy that changed nothing does; "off" keeps its
# store too, so it reads no page (with pages.lastmod: content, a build
# without a store would read every page to hash it). Prints the medians of
# wall time, CPU time and peak RSS, and the ratios to off. Target: on ≤ 2×
# off.
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
echo "generating $FILES files in $ROOT" >&2
"$WORK/gentree" -files "$FILES" -pages real "$ROOT"
for mode in off on on-stored; do
  rules=true
  [ "$mode" = off ] && rules=false
  mkdir -p "$WORK/out-$mode"
  cat > "$WORK/$mode.yaml" <<YAML
root: $ROOT
output_dir: $WORK/out-$mode
base_url: https://bench.example/
state_dir: $WORK/state-$mode
pages: {noindex: $rules, canonical: $rules, hreflang: $rules}
log: {level: error, format: json}
YAML
  # The first build writes everything; the page cache warms.
  "$WORK/sitemapd" build -config "$WORK/$mode.yaml"
done
find "$ROOT" -name '*.htm*' -print0 | xargs -0 cat > /dev/null

{
  for _ in $(seq "$RUNS"); do
    for mode in off on on-stored; do
      if [ "$mode" = on ]; then rm -rf "$WORK/state-on"; fi
      "$WORK/runstat" "heads-$mode" "$WORK/sitemapd" build -config "$WORK/$mode.yaml"
    done
  done
} > "$WORK/results.jsonl"

pages() { find "$WORK/out-$1" -name 'sitemap*.xml' -exec grep -c '<url>' {} + | awk -F: '{n+=$NF} END {print n}'; }
python3 - "$WORK/results.jsonl" "$FILES" "$(pages off)" "$(pages on)" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
files, off_urls, on_urls = sys.argv[2], sys.argv[3], sys.argv[4]
by = {}
for r in rows:
    by.setdefault(r["label"], []).append(r)
med = {k: {m: statistics.median(x[m] for x in v) for m in ("wall_s", "cpu_s", "peak_rss_mb")} for k, v in by.items()}
off = med["heads-off"]
print(f"{files} files; URLs listed: {off_urls} with head rules off, {on_urls} on; median of {len(by['heads-off'])} runs, warm cache")
print(f"{'':16}{'wall s':>9}{'cpu s':>9}{'rss MiB':>9}{'wall/off':>10}{'cpu/off':>9}")
for k in ("heads-off", "heads-on", "heads-on-stored"):
    m = med[k]
    print(f"{k:16}{m['wall_s']:9.3f}{m['cpu_s']:9.3f}{m['peak_rss_mb']:9.1f}{m['wall_s']/off['wall_s']:10.2f}{m['cpu_s']/off['cpu_s']:9.2f}")
PY
