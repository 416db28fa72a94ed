#!/usr/bin/env bash
# A release as `go install github.com/sitemapd/sitemapd/cmd/sitemapd@latest`
# meets it: the module at HEAD, zipped as the Go module proxy serves it,
# installed from a local file:// proxy by the go command, and asked its
# version.
#
# What it catches: a file name the module zip format refuses (the tests
# keep hostile names in testdata: the go command rejects a zip with a name
# it cannot check out on every system), a nested module left in, a go.mod
# that does not build outside this checkout, and a binary that does not say
# the version it was installed at. The version is the tag at HEAD (git tag
# -a vX.Y.Z, see docs/releasing.md), or v0.0.0-check.1 where HEAD has none.
#
# It needs go and git, and the go command's usual module proxy for the
# dependencies (as any build does).
set -euo pipefail
cd "$(dirname "$0")/.."
skip() {
  if [ -n "${CI:-}" ]; then echo "release.sh: FAIL: $*" >&2; exit 1; fi
  echo "release.sh: SKIP: $*"; exit 0
}
fail() { echo "release.sh: FAIL: $*" >&2; exit 1; }
say() { echo "release.sh: $*"; }

command -v go >/dev/null || skip "go is not installed"
command -v git >/dev/null || skip "git is not installed"
git rev-parse --verify -q HEAD >/dev/null || skip "not a git checkout: nothing to zip"

mod=$(go list -m)
version=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null || echo v0.0.0-check.1)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# The proxy layout: $GOPROXY/<module>/@v/{list,<v>.info,<v>.mod,<v>.zip}.
# The zip holds the committed tree (what a tag publishes), under
# <module>@<version>/, without the nested module in bench/peers.
at="$work/proxy/$mod/@v"
mkdir -p "$at"
nested=$(git ls-files '*/go.mod' | xargs -r -n1 dirname)
excludes=()
for d in $nested; do excludes+=(":(exclude)$d"); done
git archive --format=zip --prefix="$mod@$version/" -o "$at/$version.zip" HEAD -- . "${excludes[@]}"
git show HEAD:go.mod > "$at/$version.mod"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git log -1 --format=%cI HEAD)" > "$at/$version.info"
echo "$version" > "$at/list"
say "module $mod zipped at HEAD as $version ($(du -k "$at/$version.zip" | cut -f1) KiB)"

# Installed as a user would, from outside any module. The module is not in
# the checksum database (GONOSUMDB): its zip is checked by the go command's
# own rules (names, size, nested modules) all the same.
# Dependencies come from this machine's module cache first (it has the
# proxy's layout), so only what it lacks is downloaded; our own module
# goes to a fresh cache, so an earlier run's zip of the same version is
# never reused.
upstream="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)"
mkdir -p "$work/bin" "$work/home"
if ! (cd "$work/home" && env GOPROXY="file://$work/proxy,$upstream" GONOSUMDB="$mod" GOFLAGS=-modcacherw \
  GOBIN="$work/bin" GOMODCACHE="$work/modcache" GOCACHE="$(go env GOCACHE)" \
  go install "$mod/cmd/sitemapd@latest") >"$work/install.log" 2>&1; then
  cat "$work/install.log" >&2
  fail "go install $mod/cmd/sitemapd@latest failed"
fi
got=$("$work/bin/sitemapd" version | head -1)
[ "$got" = "sitemapd $version" ] || fail "sitemapd version says \"$got\", want \"sitemapd $version\""
say "go install $mod/cmd/sitemapd@latest: \"$got\""
