#!/usr/bin/env bash
# Checks the systemd units as a careful sysadmin would: installed with
# `make install` into a scratch root (and pointed at the binary and man
# page installed there), they must pass `systemd-analyze verify` without a
# word, and `systemd-analyze security --offline=yes` must rate their
# exposure at most 2.0. test/deb.sh checks the units the package installs.
set -euo pipefail
cd "$(dirname "$0")/.."
skip() {
  if [ -n "${CI:-}" ]; then echo "systemd.sh: FAIL: $*" >&2; exit 1; fi
  echo "systemd.sh: SKIP: $*"; exit 0
}
command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (apt-get install systemd)"

dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s build && make -s install DESTDIR="$dest" >/dev/null
bin="$dest/usr/local/bin/sitemapd"
[ -x "$bin" ] || { echo "systemd.sh: make install did not install $bin" >&2; exit 1; }
mkdir "$dest/check"
max=2.0
# The units' Documentation= names man:sitemapd(8): verify looks it up with
# man, here in the page make install put in the scratch root.
man=(--man=no)
if command -v man >/dev/null; then
  export MANPATH="$dest/usr/local/share/man"
  man=()
else
  echo "systemd.sh: man is not installed (apt-get install man-db): the units' man page is not looked up"
fi
for unit in sitemapd.service sitemapd@.service; do
  name=$unit
  [[ $unit == *@.service ]] && name=sitemapd@example.com.service   # an instance of the template
  check="$dest/check/$name"
  sed "s|/usr/local/bin/sitemapd|$bin|" "$dest/etc/systemd/system/$unit" > "$check"
  out=$(systemd-analyze verify "${man[@]}" "$check" 2>&1) || { echo "$out"; echo "systemd.sh: verify failed for $unit" >&2; exit 1; }
  if [ -n "$out" ]; then echo "$out"; echo "systemd.sh: verify warned for $unit" >&2; exit 1; fi
  score=$(systemd-analyze security --offline=yes "$check" 2>&1 | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
  [ -n "$score" ] || { echo "systemd.sh: no exposure score for $unit" >&2; exit 1; }
  if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; then
    echo "systemd.sh: $unit exposure $score is above $max" >&2; exit 1
  fi
  echo "systemd.sh: $unit: verify clean, exposure $score (at most $max)"
done
