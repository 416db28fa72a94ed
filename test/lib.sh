# shellcheck shell=bash
# What the deployment checks of test/ share. Each sources it first, and
# still runs alone:
#
#   . "$(dirname "$0")/lib.sh"
#
# It moves to the top of the checkout (top), and names the script (me)
# for every line it says. Outside CI a check that lacks a tool skips with
# the reason; under CI (CI set) that is a failure: CI installs what the
# checks need (.ci/run), so a skip there would be a pass that tested
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC2034 # for the scripts that source this
top=$PWD
me=$(basename "$0")

say() { echo "$me: $*"; }

# fail MESSAGE: the check failed. A script that has more to show (its
# /healthz, say) defines on_fail; the daemon's last log lines follow.
fail() {
  echo "$me: FAIL: $*" >&2
  if declare -F on_fail >/dev/null; then on_fail >&2 || true; fi
  log_tail >&2
  exit 1
}

# skip REASON: this machine lacks what the check needs (a failure under CI).
skip() {
  if [ -n "${CI:-}" ]; then fail "$*"; fi
  say "SKIP: $*"
  exit 0
}

# skip_here REASON: this machine forbids what the check needs (build
# machines, CI's too, often forbid what a container runtime needs): a
# skip, under CI too.
skip_here() {
  say "SKIP: $*"
  exit 0
}

# need TOOL [HINT]: skips unless TOOL is on PATH; HINT says how to get it.
need() {
  command -v "$1" >/dev/null || skip "$1 is not installed${2:+ ($2)}"
}

# ci_install PACKAGE: installs a Debian package, only under CI and as root
# with apt-get (elsewhere it returns 1 and installs nothing: the check
# says what to install).
ci_install() {
  [ -n "${CI:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
  say "CI: installing $1 from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "$1" >/dev/null
}

# need_nginx [install]: sets NGINX to the nginx binary, or skips; with
# install, CI installs nginx-light when it is missing.
# shellcheck disable=SC2120 # its argument is optional
need_nginx() {
  if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    if [ "${1:-}" != install ] || ! ci_install nginx-light; then
      skip "nginx is not installed (apt-get install nginx-light)"
    fi
  fi
  NGINX=$(command -v nginx || echo /usr/sbin/nginx)
}

# make_work NAME: a scratch directory, work, removed on exit with the
# processes started in it (their ids in pids). It is readable by all:
# nginx's workers read a docroot in it.
make_work() {
  work=$(mktemp -d "/tmp/sitemapd-$1.XXXXXX")
  chmod 755 "$work"
  pids=()
  trap cleanup EXIT
}

# cleanup stops what the check started and removes its scratch directory;
# a script whose exit has more to undo defines its own, which the trap
# then calls.
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}

# build_sitemapd: the binary of this checkout, as $work/sitemapd.
build_sitemapd() {
  go build -o "$work/sitemapd" ./cmd/sitemapd
}

# start_nginx SERVERS: nginx in the foreground on a free port of
# 127.0.0.1 (tried at random), everything it writes in $work, with the
# server blocks the function SERVERS prints for a port (its argument).
# Sets port and base (the URL of that port's root).
start_nginx() {
  local servers=$1 p npid
  port=""
  for _ in $(seq 1 20); do
    p=$((20000 + RANDOM % 40000))
    {
      cat <<CONF
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events {}
http {
    include /etc/nginx/mime.types;
    access_log $work/access.log;
    client_body_temp_path $work/tmp-body;
    proxy_temp_path $work/tmp-proxy;
    fastcgi_temp_path $work/tmp-fastcgi;
    uwsgi_temp_path $work/tmp-uwsgi;
    scgi_temp_path $work/tmp-scgi;
CONF
      "$servers" "$p"
      echo "}"
    } >"$work/nginx.conf"
    rm -f "$work/nginx.pid"
    "$NGINX" -c "$work/nginx.conf" -p "$work" 2>>"$work/nginx-start.log" &
    npid=$!
    if nginx_listening "$npid"; then port=$p; pids+=("$npid"); break; fi
  done
  [ -n "$port" ] || { cat "$work/nginx-start.log" >&2; fail "nginx did not start"; }
  # shellcheck disable=SC2034 # for the scripts that source this
  base="http://127.0.0.1:$port/"
}

# nginx_listening PID: waits until nginx listens, which its pid file says
# (nginx writes it once its ports are bound), or until it exits (a port
# taken: nginx tries to bind it for 2.5 s first). The 2 minutes are no
# speed limit, only a bound on a hang.
nginx_listening() {
  for _ in $(seq 1 1200); do
    [ -s "$work/nginx.pid" ] && return 0
    if ! kill -0 "$1" 2>/dev/null; then
      wait "$1" 2>/dev/null || true
      return 1
    fi
    sleep 0.1
  done
  fail "nginx neither listens nor exits after 2 minutes"
}

# start_sitemapd: `sitemapd run` with the configuration on stdin (kept as
# $work/sitemapd.yaml), its log in $work/sitemapd.log.
start_sitemapd() {
  cat >"$work/sitemapd.yaml"
  "$work/sitemapd" run -config "$work/sitemapd.yaml" 2>"$work/sitemapd.log" &
  pids+=("$!")
}

# log_tail shows the daemon's last log lines, if it was started.
log_tail() {
  [ -n "${work:-}" ] && [ -f "$work/sitemapd.log" ] || return 0
  echo "--- sitemapd log (last 20 lines)"
  tail -20 "$work/sitemapd.log"
}

# pass: the check passed, with the requests nginx served, if it ran.
pass() {
  local served=""
  if [ -f "${work:-}/access.log" ]; then served=" ($(grep -c '"GET ' "$work/access.log" || true) requests served by nginx)"; fi
  say "PASS$served"
}
