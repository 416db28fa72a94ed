#!/usr/bin/env bash
# Regenerates verdicts.tsv: what Google's own robots.txt matcher
# (github.com/google/robotstxt, the C++ library Googlebot uses) answers
# for every robots.txt of robots/, every agent of agents.txt and every
# path of paths.txt. TestGoogleVerdicts holds sitemapd's Rules to these
# answers; it reads only this file, so CI needs neither the library nor
# a network.
#
#   internal/robots/testdata/google/regen.sh /path/to/robotstxt [COMMIT]
#
# /path/to/robotstxt is a checkout of github.com/google/robotstxt (only
# robots.h and robots.cc are used); COMMIT names it in the output's
# header when it is not a git work tree. Needs g++ and Abseil's headers
# and libraries (Debian: apt-get install g++ pkg-config libabsl-dev).
# driver.cc, beside this script, is ours; no code of Google's is kept
# in this tree.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=${1:?usage: $0 /path/to/google/robotstxt [COMMIT]}
src=$(cd "$src" && pwd)
commit=${2:-$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)}
for f in robots.h robots.cc; do
  [ -f "$src/$f" ] || { echo "$0: no $f in $src" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046 # pkg-config prints several words
g++ -std=c++17 -O2 -I"$src" -o "$work/driver" "$here/driver.cc" "$src/robots.cc" \
  $(pkg-config --cflags --libs absl_strings absl_fixed_array)

# Lines that are neither blank nor comments; in paths.txt, the first field.
entries() { grep -v -e '^#' -e '^$' "$1" | cut -f1; }

export LC_ALL=C
out="$work/verdicts.tsv"
{
  echo "# Google's verdicts: github.com/google/robotstxt $commit,"
  echo "# RobotsMatcher::OneAgentAllowedByRobots(robots.txt, agent, \"https://static.test\" + path)."
  echo "# Written by regen.sh; do not edit. Columns: robots.txt (robots/), agent, path, verdict."
  for robots in "$here"/robots/*.txt; do
    name=$(basename "$robots")
    entries "$here/agents.txt" | while IFS= read -r agent; do
      entries "$here/paths.txt" | while IFS= read -r path; do
        printf '%s\t%s\n' "$agent" "https://static.test$path"
      done
    done > "$work/queries"
    "$work/driver" "$robots" < "$work/queries" > "$work/answers"
    [ "$(wc -l < "$work/queries")" = "$(wc -l < "$work/answers")" ] ||
      { echo "$0: $name: the driver answered $(wc -l < "$work/answers") of $(wc -l < "$work/queries")" >&2; exit 1; }
    paste "$work/queries" "$work/answers" |
      awk -F '\t' -v OFS='\t' -v name="$name" '{ sub(/^https:\/\/static\.test/, "", $2); print name, $1, $2, $3 }'
  done
} > "$out"
mv "$out" "$here/verdicts.tsv"
echo "$here/verdicts.tsv: $(grep -vc '^#' "$here/verdicts.tsv") verdicts, $(grep -c 'disallow$' "$here/verdicts.tsv") disallow" >&2
