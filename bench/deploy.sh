#!/usr/bin/env bash
# Issue 22's deploy patterns on a generated site of some 100,000 pages,
# against the real daemon: after each, the URLs an IndexNow receiver on
# 127.0.0.1 was sent are compared with the pages the deploy changed in
# substance, as bench/deploybench knows them from what it changed.
#
#   bench/deploy.sh                  # 143,000 files: 100,000 .html pages
#   FILES=14300 bench/deploy.sh      # a quick run, 10,000 pages
#
# The tree is gentree -pages dense (names with spaces, &, %, #, accents,
# CJK and emoji; 70% .html, 10% .pdf, 20% assets; up to five levels), its
# pages rendered by deploybench as a site generator renders them: a
# template (fingerprinted assets, a build stamp, navigation, breadcrumbs,
# a sidebar of the directory's pages, prev/next links, a footer) around
# each page's own content. It is served through current -> releases/N,
# with the default configuration (pages.lastmod: significant, watch settle
# 500ms and max_delay 5s, IndexNow delay 5s), output_dir beside it. The
# patterns, in this order, each from what the one before left live:
#
#   cp -r of the same bytes over the live tree (longer than max_delay: the
#     daemon publishes mid-copy)                          nothing to send
#   rsync -r of the same bytes (temporary files renamed)   nothing
#   rsync -r --delete of a new template, one page changed, one removed,
#     one added                                            those three
#   rsync -r --inplace of a new template, one page changed that page
#   swaps of current to a new release: the same bytes      nothing
#     one page changed                                     that page
#     one page removed                                     that page
#   the daemon stopped, a swap to a new template with one page changed,
#     the daemon started                                   that page
#
# Prints a table: per pattern the deploy's wall time and the daemon's
# publishes during it, the URLs expected and received, those extra, missing
# or sent twice, and the time from the deploy's end to the last publish or
# request to the receiver. Exits non-zero if any pattern sent other URLs.
# Besides FILES and WORK (common.sh) it reads SEED (default 1), ONLY (run
# only the patterns whose names contain it), LOG_LEVEL (the daemon's,
# default info; debug logs each page whose lastmod moved, and why) and OUT
# (a directory to copy the table, each pattern's URLs as JSON, and the
# daemon's log to). Needs rsync; no network but loopback.
FILES=${FILES:-143000}
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
SEED=${SEED:-1}
command -v rsync > /dev/null || { echo "deploy.sh: rsync not found (Debian: rsync)" >&2; exit 2; }
go build -o "$WORK/deploybench" ./bench/deploybench

echo "generating $FILES files (-pages dense -seed $SEED) in $ROOT" >&2
"$WORK/gentree" -files "$FILES" -seed "$SEED" -pages dense "$ROOT"
mkdir -p "$WORK/site"
rc=0
"$WORK/deploybench" -sitemapd "$WORK/sitemapd" -tree "$ROOT" -work "$WORK/site" \
  -only "${ONLY:-}" -log-level "${LOG_LEVEL:-info}" -json "$WORK/patterns.jsonl" > "$WORK/table.md" || rc=$?
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain -- cmd internal go.mod go.sum 2>/dev/null)" ] && commit="$commit+uncommitted changes"
{ echo "sitemapd $commit, $(go env GOVERSION), $(nproc) × $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(df -T "$WORK" | awk 'NR==2 {print $2}')"; cat "$WORK/table.md"; } | tee "$WORK/summary.txt"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$WORK/summary.txt" "$WORK/patterns.jsonl" "$WORK/site/sitemapd.log" "$OUT/" 2>/dev/null || true
fi
exit $rc
