#!/usr/bin/env bash
# Checks the systemd units as a careful sysadmin would: installed with
# `make install` into a scratch root (and pointed at the binary and man
# page installed there), they must pass `systemd-analyze verify` without a
# word, and `systemd-analyze security --offline=yes` must rate their
# exposure at most 2.0. test/deb.sh checks the units the package installs.
# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
need systemd-analyze "apt-get install systemd"

make_work systemd
make -s build && make -s install DESTDIR="$work" >/dev/null
bin="$work/usr/local/bin/sitemapd"
[ -x "$bin" ] || fail "make install did not install $bin"
mkdir "$work/check"
max=2.0
# The units' Documentation= names man:sitemapd(8): verify looks it up with
# man, here in the page make install put in the scratch root.
man=(--man=no)
if command -v man >/dev/null; then
  export MANPATH="$work/usr/local/share/man"
  man=()
else
  say "man is not installed (apt-get install man-db): the units' man page is not looked up"
fi
for unit in sitemapd.service sitemapd@.service; do
  name=$unit
  [[ $unit == *@.service ]] && name=sitemapd@example.com.service   # an instance of the template
  check="$work/check/$name"
  sed "s|/usr/local/bin/sitemapd|$bin|" "$work/etc/systemd/system/$unit" > "$check"
  out=$(systemd-analyze verify "${man[@]}" "$check" 2>&1) || { echo "$out"; fail "verify failed for $unit"; }
  if [ -n "$out" ]; then echo "$out"; fail "verify warned for $unit"; fi
  score=$(systemd-analyze security --offline=yes "$check" 2>&1 | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
  [ -n "$score" ] || fail "no exposure score for $unit"
  if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; then
    fail "$unit exposure $score is above $max"
  fi
  say "$unit: verify clean, exposure $score (at most $max)"
done
