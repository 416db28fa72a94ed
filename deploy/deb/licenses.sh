#!/usr/bin/env bash
# Prints the copyright notices and license texts of what a static Go binary
# contains: the Go runtime and standard library, and each module it was
# built with (go version -m), as each ships them (LICENSE, COPYING, NOTICE).
# For /usr/share/doc/sitemapd/go-modules.txt.gz in the Debian package.
set -euo pipefail
bin=$1
GO=${GO:-go}
section() { printf '\n%s\n%s\n\n' "$1" "$(printf '%s' "$1" | tr '[:print:]' '=')"; }
texts() {
  local dir=$1 found=""
  for f in "$dir"/*; do
    case $(basename "$f" | tr '[:upper:]' '[:lower:]') in
    license | license.* | licence | licence.* | copying | copying.* | notice | notice.*)
      [ -f "$f" ] || continue
      found=1; printf -- '--- %s\n\n' "$(basename "$f")"; cat "$f"; echo ;;
    esac
  done
  [ -n "$found" ] || { echo "licenses.sh: no license file in $dir" >&2; return 1; }
}

echo "sitemapd is a static Go binary. Besides sitemapd (Apache-2.0, see"
echo "/usr/share/doc/sitemapd/copyright) it contains the following."
goversion=$($GO version "$bin" | awk '{print $2}')
section "Go $goversion: the runtime and standard library"
texts "$($GO env GOROOT)"
# A replaced module (a "=>" line after its "dep") is read where it came from.
$GO version -m "$bin" |
  awk '$1 == "dep" { if (m) print m; m = $2 " " $3 } $1 == "=>" { m = $2 " " $3 } END { if (m) print m }' |
  while read -r path ver; do
    section "$path $ver"
    dir=$($GO mod download -json "$path@$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
    [ -n "$dir" ] || { echo "licenses.sh: cannot download $path@$ver" >&2; exit 1; }
    texts "$dir"
  done
