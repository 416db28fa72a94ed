#!/usr/bin/env bash
# Builds dist/sitemapd_VERSION_ARCH.deb (make deb, which builds
# bin/sitemapd-static first): stages what the package needs into dist/deb/
# and runs nfpm, at a pinned version, with `go run`.
#
# nfpm v2.45.2 is the newest release whose dependencies all come from the
# Go module proxy: v2.46.0 and later need go.digitalxero.dev modules,
# which the proxy does not serve.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
NFPM=${NFPM:-$GO run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
bin=bin/sitemapd-static
[ -x "$bin" ] || { echo "deb: $bin is missing (make deb builds it)" >&2; exit 1; }

# Reproducible: every file's time is the last commit's.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

# A Debian version starts with a digit and orders as the releases do:
# v1.2.3 -> 1.2.3, v1.2.3-4-gabc1234 -> 1.2.3+4.gabc1234, and an untagged
# abc1234 -> 0.0~git20260102030405.abc1234 (the commit's time, so that
# later commits sort later; below any release).
v=${VERSION#v}
if printf %s "$v" | grep -Eq '^[0-9]+(\.[0-9]+)+'; then
  v=$(printf %s "$v" | sed -e 's/-/+/' -e 's/-/./g')
else
  v="0.0~git$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S).$(printf %s "$v" | sed 's/-/./g')"
fi
export DEB_VERSION=$v
export DEB_ARCH=${DEB_ARCH:-$($GO env GOARCH)}
if [ -z "${DEB_MAINTAINER:-}" ]; then
  name=$(git config user.name 2>/dev/null || true) email=$(git config user.email 2>/dev/null || true)
  DEB_MAINTAINER="${name:-sitemapd packager} <${email:-root@localhost}>"
fi
export DEB_MAINTAINER

# dist/ ignores itself: no build output is ever committed.
mkdir -p dist && echo '*' > dist/.gitignore
stage=dist/deb
rm -rf "$stage" && mkdir -p "$stage"
for u in sitemapd.service sitemapd@.service; do
  sed 's|/usr/local/bin/sitemapd|/usr/bin/sitemapd|' "deploy/systemd/$u" > "$stage/$u"
done
# The configuration as shipped (configs/ is its source; not edited here).
cp configs/sitemapd.yaml "$stage/sitemapd.yaml"
date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
sed "s|^\.TH SITEMAPD 8 \"\" \"sitemapd\"|.TH SITEMAPD 8 \"$date\" \"sitemapd $DEB_VERSION\"|" deploy/deb/sitemapd.8 |
  gzip -9n > "$stage/sitemapd.8.gz"
deploy/deb/licenses.sh "$bin" | gzip -9n > "$stage/go-modules.txt.gz"
# A native package's changelog, in Debian's format (lintian requires it):
# one entry for this version, naming the commit whose history holds the
# changes (the project keeps no other changelog).
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
{
  printf 'sitemapd (%s) unstable; urgency=medium\n\n' "$DEB_VERSION"
  printf '  * sitemapd %s, built from commit %s; its changes:\n' "$VERSION" "$commit"
  printf '    https://github.com/sitemapd/sitemapd/commits/%s\n\n' "$commit"
  printf ' -- %s  %s\n' "$DEB_MAINTAINER" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$stage/changelog.gz"

rm -f dist/sitemapd_*.deb
$NFPM package --config deploy/deb/nfpm.yaml --packager deb --target dist/ >/dev/null
ls dist/sitemapd_*.deb
