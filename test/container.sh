#!/usr/bin/env bash
# Builds the container image from a locally built static binary (make
# image, with podman; under CI installed from Debian's packages if missing)
# and checks it: a non-root user, no shell, CA certificates, the version
# stamped in the binary and as an OCI label, the image's HEALTHCHECK and
# the compose file's health check, and, where this machine can run
# containers, a build of a mounted site from inside it. Where it cannot,
# it says why and skips that part: build machines often forbid what a
# container runtime needs (namespaces, setrlimit).
# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"

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
make_work container
hdir="$work/health"
mkdir -p "$hdir/site" && echo '<h1>hi</h1>' >"$hdir/site/index.html"
out=""
for _ in 1 2 3 4 5; do   # a port of 127.0.0.1 that is free
  port=$((20000 + RANDOM % 40000))
  printf 'root: %s\nbase_url: http://127.0.0.1:8080/\nstate_dir: %s\nlisten: 127.0.0.1:%s\n' "$hdir/site" "$hdir/state" "$port" >"$hdir/c.yaml"
  ! "$bin" health -config "$hdir/c.yaml" >/dev/null 2>&1 || continue   # something else answers there
  "$bin" run -config "$hdir/c.yaml" 2>"$hdir/run.log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 50); do
    if out=$("$bin" health -config "$hdir/c.yaml" 2>&1); then break 2; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  grep -q 'address already in use' "$hdir/run.log" || { cat "$hdir/run.log" >&2; fail "sitemapd health is not ok beside a running daemon: $out"; }
done
kill -0 "$pid" 2>/dev/null || fail "no free port for the daemon's listen: $out"
kill "$pid" && wait "$pid" || true
say "the compose health check's command, sitemapd health: not ok without a daemon, ok beside one ($out)"

# Only CI installs podman; elsewhere the test says what to install. A
# machine that cannot install or run it skips, under CI too (skip_here).
if ! command -v podman >/dev/null; then
  [ -n "${CI:-}" ] || skip_here "podman is not installed (apt-get install podman)"
  ci_install podman 2>/dev/null || skip_here "podman cannot be installed here"
fi
[ -f /etc/ssl/certs/ca-certificates.crt ] || skip_here "no CA bundle on this machine (apt-get install ca-certificates)"
podman="podman --storage-driver vfs"
out=$(make -s image CONTAINER="$podman" 2>&1) || { echo "$out" | tail -5; skip_here "podman cannot build images here"; }

fmt='{{.Config.User}}|{{json .Config.Entrypoint}}|{{.Size}}'
IFS='|' read -r user entry size < <($podman image inspect sitemapd:local --format "$fmt")
[ "$user" = "65532:65532" ] || fail "image user is '$user', want 65532:65532"
[ "$entry" = '["/usr/local/bin/sitemapd"]' ] || fail "entrypoint $entry"
mnt=$($podman image mount sitemapd:local 2>/dev/null || true)
if [ -n "$mnt" ]; then
  [ ! -e "$mnt/bin/sh" ] || fail "the image has a shell"
  [ -s "$mnt/etc/ssl/certs/ca-certificates.crt" ] || fail "no CA bundle in the image"
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
say "image sitemapd:local built: user $user, entrypoint $entry, version $label, health check sitemapd health, $((size / 1024 / 1024)) MiB"

img="$work/image"
mkdir -p "$img/site/blog" "$img/config"
echo '<h1>hi</h1>' > "$img/site/index.html" && echo '<h1>post</h1>' > "$img/site/blog/post.html"
printf 'root: /srv/www\nbase_url: http://localhost:8080/\n' > "$img/config/sitemapd.yaml"
chmod -R a+rwX "$img/site"
if ! err=$($podman run --rm -v "$img/site:/srv/www" -v "$img/config:/etc/sitemapd:ro" sitemapd:local build -config /etc/sitemapd/sitemapd.yaml 2>&1); then
  skip_here "this machine cannot run containers: $(echo "$err" | tail -1)"
fi
grep -q 'http://localhost:8080/blog/sitemap.xml' "$img/site/sitemap_index.xml" ||
  fail "the containerised build wrote no index"
v=$($podman run --rm sitemapd:local version | awk 'NR == 1 { print $2 }')
[ "$v" = "$want" ] || fail "sitemapd version in the container says $v, want $want"
say "PASS: the image built the sitemaps of a mounted site as user 65532"
