#!/usr/bin/env bash
# Builds the container image from a locally built static binary
# (make image, with podman from Debian's packages) and checks it: a
# non-root user, no shell, CA certificates, and, where this machine can run
# containers, a build of a mounted site from inside it. Where it cannot, it
# says why and skips that part: build machines often forbid what a
# container runtime needs (namespaces, setrlimit).
set -euo pipefail
cd "$(dirname "$0")/.."
skip() { echo "container.sh: SKIP: $*"; exit 0; }

if ! command -v podman >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "container.sh: installing podman from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends podman >/dev/null 2>&1 ||
      skip "podman cannot be installed here"
  else
    skip "podman is not installed (apt-get install podman)"
  fi
fi
[ -f /etc/ssl/certs/ca-certificates.crt ] || skip "no CA bundle on this machine (apt-get install ca-certificates)"
podman="podman --storage-driver vfs"
out=$(make -s image CONTAINER="$podman" 2>&1) || { echo "$out" | tail -5; skip "podman cannot build images here"; }

fmt='{{.Config.User}}|{{json .Config.Entrypoint}}|{{.Size}}'
IFS='|' read -r user entry size < <($podman image inspect sitemapd:local --format "$fmt")
[ "$user" = "65532:65532" ] || { echo "container.sh: image user is '$user', want 65532:65532" >&2; exit 1; }
[ "$entry" = '["/usr/local/bin/sitemapd"]' ] || { echo "container.sh: entrypoint $entry" >&2; exit 1; }
mnt=$($podman image mount sitemapd:local 2>/dev/null || true)
if [ -n "$mnt" ]; then
  [ ! -e "$mnt/bin/sh" ] || { echo "container.sh: the image has a shell" >&2; exit 1; }
  [ -s "$mnt/etc/ssl/certs/ca-certificates.crt" ] || { echo "container.sh: no CA bundle in the image" >&2; exit 1; }
  $podman image unmount sitemapd:local >/dev/null
fi
echo "container.sh: image sitemapd:local built: user $user, entrypoint $entry, $((size / 1024 / 1024)) MiB"

work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
mkdir -p "$work/site/blog" "$work/config"
echo '<h1>hi</h1>' > "$work/site/index.html" && echo '<h1>post</h1>' > "$work/site/blog/post.html"
printf 'root: /srv/www\nbase_url: http://localhost:8080/\n' > "$work/config/sitemapd.yaml"
chmod -R a+rwX "$work/site"
if ! err=$($podman run --rm -v "$work/site:/srv/www" -v "$work/config:/etc/sitemapd:ro" sitemapd:local build -config /etc/sitemapd/sitemapd.yaml 2>&1); then
  skip "this machine cannot run containers: $(echo "$err" | tail -1)"
fi
grep -q 'http://localhost:8080/blog/sitemap.xml' "$work/site/sitemap_index.xml" ||
  { echo "container.sh: the containerised build wrote no index" >&2; exit 1; }
echo "container.sh: PASS: the image built the sitemaps of a mounted site as user 65532"
