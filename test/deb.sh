#!/usr/bin/env bash
# The Debian package (make deb), as an administrator meets it.
#
# Always: builds it, lints its man page, and inspects the .deb with dpkg-deb
# (its files and their modes, the conffile, the maintainer scripts, the
# control fields, the units, the binary's version) and lintian.
#
# Under CI (CI set), or with SITEMAPD_TEST_DEB=1 as root on a machine that
# may be changed: installs it with apt and checks what is installed (dpkg -L,
# the conffile, the user, systemd-analyze verify and security on the
# installed units, sitemapd version, man -w, nothing enabled), runs the man
# page's ACL recipe on a scratch docroot as user sitemapd, then removes and
# purges the package and checks what each leaves: purge removes the state
# directory, the conffile and enablement links, and keeps the user.
#
# Outside CI it installs no system package: it skips with the reason.
# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"

need dpkg-deb "a Debian machine has it"
need go

# The man page, as man -l shows it: no warning from groff (or mandoc).
page=deploy/deb/sitemapd.8
if command -v groff >/dev/null; then
  out=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$out" ] || { echo "$out" >&2; fail "groff warns about $page"; }
  say "man page: groff -ww has no warning"
else
  say "groff is not installed (apt-get install groff-base): the man page is not linted"
fi
if command -v mandoc >/dev/null; then
  out=$(mandoc -T lint -W warning "$page" 2>&1) || { echo "$out" >&2; fail "mandoc -T lint warns about $page"; }
fi

# Build. Outside CI, a machine that cannot fetch nfpm skips.
nfpm=$(sed -n 's|.*\(github.com/goreleaser/nfpm/v2/cmd/nfpm@v[0-9.]*\).*|\1|p' deploy/deb/build.sh | head -1)
[ -n "$nfpm" ] || fail "deploy/deb/build.sh pins no nfpm version"
if ! out=$(go run "$nfpm" --version 2>&1); then
  echo "$out" | tail -3
  skip "nfpm ($nfpm) cannot be built here"
fi
rm -f dist/sitemapd_*.deb
out=$(make -s deb 2>&1) || { echo "$out" >&2; fail "make deb failed"; }
debs=(dist/sitemapd_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "make deb made ${debs[*]}, want one dist/sitemapd_VERSION_ARCH.deb"
deb=${debs[0]}
field() { dpkg-deb -f "$deb" "$1"; }
ver=$(field Version) arch=$(field Architecture)
[ "$deb" = "dist/sitemapd_${ver}_${arch}.deb" ] || fail "$deb is not named sitemapd_VERSION_ARCH.deb ($ver, $arch)"
[ "$(field Package)" = sitemapd ] || fail "Package is $(field Package)"
[ "$arch" = "$(dpkg --print-architecture 2>/dev/null || echo "$arch")" ] || fail "Architecture $arch is not this machine's"
say "built $deb"

# Its files: exactly these, with these modes and owners.
want="-rw-r--r-- root/root ./etc/sitemapd/sitemapd.yaml
-rwxr-xr-x root/root ./usr/bin/sitemapd
-rw-r--r-- root/root ./usr/lib/systemd/system/sitemapd.service
-rw-r--r-- root/root ./usr/lib/systemd/system/sitemapd@.service
-rw-r--r-- root/root ./usr/lib/sysusers.d/sitemapd.conf
-rw-r--r-- root/root ./usr/share/doc/sitemapd/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/sitemapd/copyright
-rw-r--r-- root/root ./usr/share/doc/sitemapd/go-modules.txt.gz
-rw-r--r-- root/root ./usr/share/lintian/overrides/sitemapd
-rw-r--r-- root/root ./usr/share/man/man8/sitemapd.8.gz
-rw-r--r-- root/root ./usr/share/sitemapd/nginx/sitemapd.conf"
want=$(LC_ALL=C sort <<<"$want")
got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $1, $2, $6 }' | LC_ALL=C sort)
[ "$got" = "$want" ] || { diff <(echo "$want") <(echo "$got") >&2 || true; fail "the package's files differ (- wanted, + found)"; }
dpkg-deb -c "$deb" | awk '$1 == "drwxr-xr-x" && $2 == "root/root" { print $6 }' | grep -qx './etc/sitemapd/sites.d/' ||
  fail "no /etc/sitemapd/sites.d/ (root's, 0755) for the sites of a multi-site configuration"
dirs=$(dpkg-deb -c "$deb" | awk '$1 ~ /^d/ && $1 != "drwxr-xr-x" { print }')
[ -z "$dirs" ] || fail "directories not 0755: $dirs"

make_work deb
dpkg-deb -e "$deb" "$work/DEBIAN" && dpkg-deb -x "$deb" "$work/root"
[ "$(cat "$work/DEBIAN/conffiles")" = /etc/sitemapd/sitemapd.yaml ] || fail "conffiles: $(cat "$work/DEBIAN/conffiles")"
cmp -s configs/sitemapd.yaml "$work/root/etc/sitemapd/sitemapd.yaml" || fail "the conffile is not configs/sitemapd.yaml"
for s in postinst prerm postrm; do
  [ -x "$work/DEBIAN/$s" ] || fail "no executable $s"
  sh -n "$work/DEBIAN/$s" || fail "$s is not valid sh"
  ! grep -Eq 'systemctl +(--[a-z]+ +)*(enable|start|restart|reenable|preset)|deb-systemd-(helper +enable|invoke +start)' "$work/DEBIAN/$s" ||
    fail "$s enables or starts a unit"
done
grep -q 'systemd-sysusers.*sitemapd.conf' "$work/DEBIAN/postinst" || fail "postinst does not create the user"
grep -q 'systemctl --system daemon-reload' "$work/DEBIAN/postinst" || fail "postinst does not reload systemd"
for u in sitemapd.service sitemapd@.service; do
  diff <(sed 's|/usr/local/bin/sitemapd|/usr/bin/sitemapd|' "deploy/systemd/$u") "$work/root/usr/lib/systemd/system/$u" >&2 ||
    fail "$u in the package is not deploy/systemd/$u run from /usr/bin"
done
cmp -s deploy/nginx/sitemapd.conf "$work/root/usr/share/sitemapd/nginx/sitemapd.conf" || fail "the nginx rules differ"
grep -q '^License: Apache-2.0' "$work/root/usr/share/doc/sitemapd/copyright" || fail "copyright names no Apache-2.0"
grep -q '^\.TH SITEMAPD 8 "[0-9-]*" "sitemapd '"$ver"'"' <(zcat "$work/root/usr/share/man/man8/sitemapd.8.gz") ||
  fail "the installed man page is not dated and versioned"
# The binary: static, and stamped with the version the package carries.
bin="$work/root/usr/bin/sitemapd"
binver=$("$bin" version | awk 'NR == 1 { print $2 }')
[ -n "$binver" ] && [ "$binver" != dev ] || fail "the binary's version is '$binver'"
# deploy/deb/build.sh's mapping: v1.2.3-4-gabc -> 1.2.3+4.gabc, abc-dirty -> 0.0~gitTIME.abc.dirty
v=${binver#v}
if grep -Eq '^[0-9]+(\.[0-9]+)+' <<<"$v"; then
  [ "$ver" = "$(sed -e 's/-/+/' -e 's/-/./g' <<<"$v")" ] || fail "binary version $binver, package version $ver"
else
  case $ver in 0.0~git[0-9]*."${v//-/.}") ;; *) fail "binary version $binver, package version $ver" ;; esac
fi
zcat "$work/root/usr/share/doc/sitemapd/go-modules.txt.gz" >"$work/go-modules.txt"
while read -r path _; do
  grep -q "^$path " "$work/go-modules.txt" || fail "go-modules.txt.gz lacks $path"
done < <(go version -m "$bin" | awk '$1 == "dep" { print $2 }')
say "inspected: the files and modes, the conffile, the scripts (they enable and start nothing), the units, version $binver"

# Debian's own checks (about 4 s): no error or warning. A tag that does not
# apply is overridden, with the reason, in deploy/deb/lintian-overrides.
if command -v lintian >/dev/null; then
  rc=0 && out=$(lintian --fail-on error,warning "$deb" 2>&1) || rc=$?
  out=$(grep -v 'running with root privileges is not recommended' <<<"$out" || true)
  [ "$rc" = 0 ] && [ -z "$out" ] || { echo "$out" >&2; fail "lintian $deb: exit $rc"; }
  say "lintian: no error or warning"
elif [ -n "${CI:-}" ]; then
  fail "lintian is not installed (apt-get install lintian)"
else
  say "lintian is not installed (apt-get install lintian): the package is not linted"
fi

if [ -z "${CI:-}" ] && [ "${SITEMAPD_TEST_DEB:-}" != 1 ]; then
  say "PASS (built and inspected; installing it is for CI, or SITEMAPD_TEST_DEB=1 as root)"
  exit 0
fi

# Install, check, remove, purge: on CI's machine, or one given by opt-in.
[ "$(id -u)" = 0 ] || fail "installing the package needs root"
command -v apt-get >/dev/null || fail "apt-get is not installed"
command -v systemd-analyze >/dev/null || fail "systemd-analyze is not installed (apt-get install systemd)"
export DEBIAN_FRONTEND=noninteractive
status() { dpkg-query -W -f='${db:Status-Abbrev}' sitemapd 2>/dev/null | tr -d ' ' || true; }
if [ -n "$(status)" ] && [ "$(status)" != un ]; then
  # Another test run's, or an administrator's: only CI's machine is ours.
  [ -n "${CI:-}" ] || fail "sitemapd is installed here ($(status)): purge it first"
  apt-get purge -y -qq sitemapd >/dev/null
fi
for p in /etc/sitemapd /var/lib/sitemapd; do
  [ ! -e "$p" ] || fail "$p exists without the package (make install?): the purge would remove it; remove it first"
done
user_before=$(getent passwd sitemapd || true)
cleanup() {
  if [ -n "$(status)" ] && [ "$(status)" != un ]; then apt-get purge -y -qq sitemapd >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
apt-get install -y -qq "./$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "apt-get install ./$deb"; }
[ "$(status)" = ii ] || fail "dpkg says $(status) after the install"
say "installed $deb"

files="/usr/bin/sitemapd /usr/lib/systemd/system/sitemapd.service /usr/lib/systemd/system/sitemapd@.service
/usr/lib/sysusers.d/sitemapd.conf /etc/sitemapd/sitemapd.yaml /usr/share/sitemapd/nginx/sitemapd.conf
/usr/share/man/man8/sitemapd.8.gz /usr/share/doc/sitemapd/copyright"
listed=$(dpkg -L sitemapd)
for f in $files; do
  grep -qx "$f" <<<"$listed" || fail "dpkg -L does not list $f"
  [ -f "$f" ] || fail "$f is not installed"
done
[ -d /etc/sitemapd/sites.d ] || fail "/etc/sitemapd/sites.d is not installed"
conf=$(dpkg-query -W -f='${Conffiles}' sitemapd)
sum=$(md5sum /etc/sitemapd/sitemapd.yaml | cut -d' ' -f1)
[ "$(echo $conf)" = "/etc/sitemapd/sitemapd.yaml $sum" ] || fail "Conffiles is '$conf'"

# The user and group: a system account that cannot log in.
IFS=: read -r _ _ uid gid _ home shell < <(getent passwd sitemapd) || fail "no user sitemapd"
getent group sitemapd >/dev/null || fail "no group sitemapd"
[ "$uid" -lt 1000 ] || fail "sitemapd is not a system user (uid $uid)"
if [ -z "$user_before" ]; then
  [ "$home" = /nonexistent ] && [ "$shell" = /usr/sbin/nologin ] || fail "user sitemapd: home $home, shell $shell"
fi

# The installed units, by path and (the template) by an instance's name.
man=(--man=no)
if command -v man >/dev/null; then
  man=()
  found=$(man -w sitemapd) || fail "man -w sitemapd finds no page"
  [ "$found" = /usr/share/man/man8/sitemapd.8.gz ] || fail "man -w sitemapd: $found"
  out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings sitemapd 2>&1 >/dev/null) || fail "man sitemapd failed: $out"
  [ -z "$out" ] || fail "man sitemapd warns: $out"
elif [ -n "${CI:-}" ]; then
  fail "man is not installed (apt-get install man-db)"
else
  say "man is not installed: the page is not looked up"
fi
for unit in /usr/lib/systemd/system/sitemapd.service sitemapd@example.com.service; do
  out=$(systemd-analyze verify "${man[@]}" "$unit" 2>&1) || { echo "$out" >&2; fail "verify failed for $unit"; }
  [ -z "$out" ] || { echo "$out" >&2; fail "verify warned for $unit"; }
  score=$(systemd-analyze security --offline=yes "$unit" 2>&1 | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
  [ -n "$score" ] || fail "no exposure score for $unit"
  awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "$unit exposure $score is above 2.0"
  say "installed $unit: verify clean, exposure $score"
done

v=$(sitemapd version | awk 'NR == 1 { print $2 }')
[ "$v" = "$binver" ] || fail "sitemapd version says $v, want $binver"

# Nothing enabled, nothing started.
for u in sitemapd.service sitemapd@example.com.service; do
  e=$(systemctl is-enabled "$u" 2>/dev/null || true)
  [ "$e" = disabled ] || fail "$u is '$e' after the install, want disabled"
done
links=$(find /etc/systemd/system -name 'sitemapd*' 2>/dev/null || true)
[ -z "$links" ] || fail "the install left $links"
if [ -d /run/systemd/system ]; then
  a=$(systemctl is-active sitemapd.service 2>/dev/null || true)
  [ "$a" = inactive ] || fail "sitemapd.service is $a after the install"
fi
# The configuration as shipped names no site yet: check refuses it, naming
# root and base_url, with exit status 2 (which the units do not restart).
rc=0 && out=$(sitemapd check -config /etc/sitemapd/sitemapd.yaml 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -q 'root' <<<"$out" && grep -q 'base_url' <<<"$out" ||
  fail "sitemapd check of the configuration as shipped: exit $rc, want 2 naming root and base_url: $out"
say "the configuration as shipped is refused: $(tr '\n' ' ' <<<"$out")"
say "installed files, conffile, user sitemapd ($uid), units, version, man page: as they should be; nothing enabled"

# The man page's ACL recipe, on a docroot owned by root: sitemapd writes
# sitemaps, in directories made later too, and cannot write a page.
if ! command -v setfacl >/dev/null; then
  [ -z "${CI:-}" ] || fail "setfacl is not installed (apt-get install acl)"
  say "setfacl is not installed (apt-get install acl): the ACL recipe is not tried"
else
  site="$work/www"
  mkdir -p "$site/blog" "$work/state"
  echo '<title>home</title>' >"$site/index.html" && echo '<title>post</title>' >"$site/blog/post.html"
  chmod 755 "$work" "$site" "$site/blog" && chmod 644 "$site/index.html" "$site/blog/post.html"
  chown sitemapd "$work/state"
  printf 'root: %s\nbase_url: http://127.0.0.1:8080/\nstate_dir: %s\nlog: {format: console}\n' "$site" "$work/state" >"$work/site.yaml"
  chmod 644 "$work/site.yaml"
  recipe=$(sed -n '/^setfacl -R/,/{} +$/p' < <(zcat /usr/share/man/man8/sitemapd.8.gz | sed -e 's/\\-/-/g' -e 's/\\e/\\/g'))
  [ -n "$recipe" ] || fail "no setfacl recipe in the man page"
  for l in 'setfacl -R -m u:sitemapd:rX /var/www/html' '-type d -exec setfacl -m u:sitemapd:rwx,d:u:sitemapd:rwx {} +'; do
    grep -qF -- "$l" < <(sed -e ':a' -e '/\\$/{N;s/\\\n[[:space:]]*//;ba}' <<<"$recipe") && grep -qF -- "$l" "$top/README.md" ||
      fail "the man page and README.md do not both give: $l"
  done
  (cd "$work" && bash -euc "${recipe//\/var\/www\/html/$site}") || fail "the man page's recipe failed: $recipe"
  runuser -u sitemapd -- sitemapd build -config "$work/site.yaml" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; fail "sitemapd build as user sitemapd, after the recipe"; }
  [ -f "$site/sitemap_index.xml" ] && [ -f "$site/blog/sitemap.xml" ] || fail "no sitemaps after the recipe"
  ! runuser -u sitemapd -- sh -c "echo x >> '$site/index.html'" 2>/dev/null || fail "sitemapd can write a page"
  mkdir "$site/docs" && echo '<title>doc</title>' >"$site/docs/intro.html"
  runuser -u sitemapd -- sitemapd build -config "$work/site.yaml" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; fail "sitemapd build, with a directory made after the recipe"; }
  [ -f "$site/docs/sitemap.xml" ] || fail "no sitemap in a directory made after the recipe"
  say "the man page's ACL recipe: sitemapd writes sitemaps (in a directory made later too), not pages"
fi

# What remove and purge leave. An administrator's enabling, and the state a
# service run leaves, first.
systemctl enable sitemapd.service sitemapd@example.com.service >/dev/null 2>&1 || fail "systemctl enable"
install -d -o sitemapd -m 0700 /var/lib/sitemapd /var/lib/sitemapd/example.com
touch /var/lib/sitemapd/pages /var/lib/sitemapd/example.com/pages
apt-get remove -y -qq sitemapd >/dev/null 2>&1 || fail "apt-get remove sitemapd"
[ "$(status)" = rc ] || fail "dpkg says $(status) after remove, want rc"
for f in /usr/bin/sitemapd /usr/lib/systemd/system/sitemapd.service /usr/lib/systemd/system/sitemapd@.service; do
  [ ! -e "$f" ] || fail "remove left $f"
done
[ -f /etc/sitemapd/sitemapd.yaml ] || fail "remove took the conffile"
apt-get purge -y -qq sitemapd >/dev/null 2>&1 || fail "apt-get purge sitemapd"
[ -z "$(status)" ] || [ "$(status)" = un ] || fail "dpkg says $(status) after purge"
for f in /etc/sitemapd /var/lib/sitemapd $files; do
  [ ! -e "$f" ] || fail "purge left $f"
done
links=$(find /etc/systemd/system -name 'sitemapd*' 2>/dev/null || true)
[ -z "$links" ] || fail "purge left $links"
getent passwd sitemapd >/dev/null || fail "purge removed the user sitemapd (it is meant to stay)"
say "remove keeps the conffile; purge removes it, /var/lib/sitemapd and the enablement links, and keeps the user"
say "PASS"
