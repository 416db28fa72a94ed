#!/usr/bin/env bash
# Builds the container image from a locally built static binary (make
# image, with podman; under CI installed from Debian's packages if missing)
# and checks it: a non-root user, no shell, CA certificates, the version
# stamped in the binary and as an OCI label, the image's HEALTHCHECK and
# the compose file's health check, and, where this machine can run
# containers, a build of a mounted site from inside it. Where it cannot,
# it says why and skips that part: build machines often forbid what a
# container runtime needs (namespaces, setrlimit).
set -euo pipefail
cd "$(dirname "$0")/.."
skip() { echo "container.sh: SKIP: $*"; exit 0; }
fail() { echo "container.sh: FAIL: $*" >&2; exit 1; }

# What needs no container runtime: the image's and the compose file's
# health checks, and that command run against a daemon on this machine.
compose=deploy/docker/compose.yaml
hc='test: ["CMD", "/usr/local/bin/sitemapd", "health", "-config", "/etc/sitemapd/sitemapd.yaml"]'
grep -qF "$hc" "$compose" || fail "the health check in $compose is not: $hc"
# The image's own HEALTHCHECK, in the Dockerfile and in
# Containerfile.local (make image): the same command, for a container run
# without the compose file. Its continuation lines are joined to compare.
cmd='["/usr/local/bin/sitemapd", "health", "-config", "/etc/sitemapd/sitemapd.yaml"]'
for f in deploy/docker/Dockerfile deploy/docker/Containerfile.local; do
  line=$(sed -n '/^HEALTHCHECK /{:a;/\\$/{N;s/\\\n *//;ba};p}' "$f")
  [ -n "$line" ] || fail "$f has no HEALTHCHECK (the README calls sitemapd health the image's)"
  case "$line" in
    *" CMD $cmd") ;;
    *) fail "$f: the HEALTHCHECK is not CMD $cmd: $line" ;;
  esac
  # In the final stage (after the last FROM), where a build stage's would not count.
  awk '/^FROM /{hc=0} /^HEALTHCHECK /{hc=1} END{exit !hc}' "$f" || fail "$f: the HEALTHCHECK is not in the final stage"
done
grep -q '^listen: *[^ "]' deploy/docker/config/sitemapd.yaml ||
  fail "deploy/docker/config/sitemapd.yaml sets no listen: the health check would find no /healthz"
for k in SITEMAPD_UID SITEMAPD_GID SITEMAPD_VERSION SITEMAPD_COMMIT; do
  grep -q "^$k=" deploy/docker/.env.example || fail "deploy/docker/.env.example does not set $k"
  grep -q "\${$k" "$compose" || fail "$compose does not use $k"
done
for p in '*' '!go.mod' '!go.sum' '!cmd/' '!internal/'; do
  grep -qxF "$p" .dockerignore || fail ".dockerignore lacks the line $p (the context is the Go sources only)"
done
make -s bin/sitemapd-static
bin=bin/sitemapd-static
want=$("$bin" version | awk 'NR == 1 { print $2 }')
"$bin" health -h >/dev/null 2>&1 || fail "sitemapd has no health command (the compose health check runs it)"
work=$(mktemp -d) && trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/site" && echo '<h1>hi</h1>' >"$work/site/index.html"
out=""
for try in 1 2 3 4 5; do   # a port of 127.0.0.1 that is free
  port=$((20000 + RANDOM % 40000))
  printf 'root: %s\nbase_url: http://127.0.0.1:8080/\nstate_dir: %s\nlisten: 127.0.0.1:%s\n' "$work/site" "$work/state" "$port" >"$work/c.yaml"
  ! "$bin" health -config "$work/c.yaml" >/dev/null 2>&1 || continue   # something else answers there
  "$bin" run -config "$work/c.yaml" 2>"$work/run.log" &
  pid=$!
  for _ in $(seq 1 50); do
    if out=$("$bin" health -config "$work/c.yaml" 2>&1); then break 2; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  grep -q 'address already in use' "$work/run.log" || { cat "$work/run.log" >&2; fail "sitemapd health is not ok beside a running daemon: $out"; }
done
kill -0 "$pid" 2>/dev/null || fail "no free port for the daemon's listen: $out"
kill "$pid" && wait "$pid" || true
echo "container.sh: the compose health check's command, sitemapd health: not ok without a daemon, ok beside one ($out)"
rm -rf "$work"

# Only CI installs podman; elsewhere the test says what to install.
if ! command -v podman >/dev/null; then
  if [ -n "${CI:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "container.sh: CI: installing podman from Debian's packages"
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
  v=$("$mnt/usr/local/bin/sitemapd" version | awk 'NR == 1 { print $2 }')
  [ "$v" = "$want" ] || fail "the image's sitemapd says version $v, want $want"
  $podman image unmount sitemapd:local >/dev/null
fi
label=$($podman image inspect sitemapd:local --format '{{index .Labels "org.opencontainers.image.version"}}')
[ "$label" = "$want" ] || fail "the image's org.opencontainers.image.version is '$label', want $want"
# podman keeps a HEALTHCHECK only in the docker format (make image asks for it).
health=$($podman image inspect sitemapd:local --format '{{json .HealthCheck}}')
case "$health" in
  *'"CMD","/usr/local/bin/sitemapd","health","-config","/etc/sitemapd/sitemapd.yaml"'*) ;;
  *) fail "the image's health check is $health, want CMD $cmd" ;;
esac
echo "container.sh: image sitemapd:local built: user $user, entrypoint $entry, version $label, health check sitemapd health, $((size / 1024 / 1024)) MiB"

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
v=$($podman run --rm sitemapd:local version | awk 'NR == 1 { print $2 }')
[ "$v" = "$want" ] || fail "sitemapd version in the container says $v, want $want"
echo "container.sh: PASS: the image built the sitemaps of a mounted site as user 65532"
