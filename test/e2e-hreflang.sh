#!/usr/bin/env bash
# hreflang alternates end to end, through HTTP only: a real nginx serves a
# site in three languages (en at the root, fr/ and de/), `sitemapd run`
# keeps its sitemaps, and while it runs a language directory is deleted,
# made again, and one of its pages stops naming its English version. At
# each quiet moment (the daemon published since the change, and nothing
# for a second), test/e2e-hreflang.py reads every sitemap and every
# alternate listed through nginx: each answers 200 and names its page
# back, and each page lists what its served head names that names it back.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
skip() {
  if [ -n "${CI:-}" ]; then echo "e2e-hreflang.sh: FAIL: $*" >&2; exit 1; fi
  echo "e2e-hreflang.sh: SKIP: $*"; exit 0
}
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  skip "nginx is not installed (apt-get install nginx-light)"
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
command -v python3 >/dev/null || skip "python3 is not installed"

work=$(mktemp -d /tmp/sitemapd-e2e-hreflang.XXXXXX)
chmod 755 "$work"   # nginx's workers read the docroot
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/sitemapd" ./cmd/sitemapd

# The site: each page in each language names its version in every
# language of the site, and x-default (the English one).
site="$work/www"
langs=(en fr de)
pages=(index.html about.html guide/intro.html)
dir() { [ "$1" = en ] && echo "" || echo "$1/"; }
url() { local p="/$(dir "$1")$2"; echo "${p%index.html}"; }
write() { # write LANG [NOEN]: the pages of a language; NOEN: about.html does not name en
  local lang=$1 noen=${2:-} page l links
  for page in "${pages[@]}"; do
    links=""
    for l in "${langs[@]}"; do
      [ -n "$noen" ] && [ "$page" = about.html ] && [ "$l" = en ] && continue
      links+="<link rel=\"alternate\" hreflang=\"$l\" href=\"$(url "$l" "$page")\">"
    done
    [ -n "$noen" ] && [ "$page" = about.html ] || links+="<link rel=\"alternate\" hreflang=\"x-default\" href=\"$(url en "$page")\">"
    mkdir -p "$(dirname "$site/$(dir "$lang")$page")"
    printf '<!doctype html><html><head><title>%s %s</title>%s</head><body>%s</body></html>\n' "$lang" "$page" "$links" "$page" > "$site/$(dir "$lang")$page"
  done
}
for l in "${langs[@]}"; do write "$l"; done

port=""
for try in $(seq 1 20); do
  p=$((20000 + RANDOM % 40000))
  cat > "$work/nginx.conf" <<CONF
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
    server {
        listen 127.0.0.1:$p;
        root $site;
        include $top/deploy/nginx/sitemapd.conf;
    }
}
CONF
  "$NGINX" -c "$work/nginx.conf" -p "$work" 2>>"$work/nginx-start.log" &
  npid=$!
  sleep 0.5
  if kill -0 "$npid" 2>/dev/null; then port=$p; pids+=("$npid"); break; fi
done
[ -n "$port" ] || { cat "$work/nginx-start.log" >&2; echo "e2e-hreflang.sh: nginx did not start" >&2; exit 1; }
base="http://127.0.0.1:$port/"

cat > "$work/sitemapd.yaml" <<CONF
root: $site
base_url: $base
state_dir: $work/state
watch: {settle: 200ms, max_delay: 2s}
log: {format: json}
# Two languages of three deleted at once are most of the site: meant here.
shrink_guard: false
CONF
"$work/sitemapd" run -config "$work/sitemapd.yaml" 2>"$work/sitemapd.log" &
pids+=("$!")

published() { grep -c '"msg":"published"' "$work/sitemapd.log" || true; }
# quiet N: waits until the daemon has published more than N times, then
# for a second in which it publishes nothing.
quiet() {
  local since=$1 n last=-1 still=0
  for _ in $(seq 1 300); do
    n=$(published)
    if [ "$n" -gt "$since" ] && [ "$n" = "$last" ]; then
      still=$((still + 1)); [ "$still" -ge 10 ] && return 0
    else
      still=0
    fi
    last=$n
    sleep 0.1
  done
  echo "e2e-hreflang.sh: the daemon did not publish and settle within 30 s" >&2
  tail -20 "$work/sitemapd.log" >&2
  exit 1
}
check() { # check WHAT LANG...: the pages of those languages are the site
  local what=$1 l page paths=()
  shift
  for l in "$@"; do for page in "${pages[@]}"; do paths+=("$(url "$l" "$page")"); done; done
  echo "e2e-hreflang.sh: after $what"
  if ! python3 "$top/test/e2e-hreflang.py" "$base" "${paths[@]}"; then
    echo "--- sitemapd log" >&2; tail -20 "$work/sitemapd.log" >&2
    exit 1
  fi
}
# A change whose publish must settle: the number of publishes before it.
before() { published; }
# remove DIR...: as a user would, again if the daemon wrote its sitemap
# there again meanwhile (it restores its files in a directory that is
# still there, and the directory then goes with its pages).
remove() {
  local d
  for d in "$@"; do
    for _ in $(seq 1 50); do rm -rf "$site/$d" 2>/dev/null && break; sleep 0.1; done
    [ ! -e "$site/$d" ] || { echo "e2e-hreflang.sh: could not remove $d" >&2; exit 1; }
  done
}

quiet 0;                                 check "the first build" en fr de
n=$(before); remove fr;                  quiet "$n"; check "fr/ deleted" en de
n=$(before); write fr;                   quiet "$n"; check "fr/ made again" en fr de
n=$(before); write fr noen;              quiet "$n"; check "fr/about.html names en no more" en fr de
n=$(before); remove de fr;               quiet "$n"; check "fr/ and de/ deleted" en
n=$(before); write de;                   quiet "$n"; check "de/ made again" en de
grep -q '"level":"error"' "$work/sitemapd.log" && { echo "e2e-hreflang.sh: the daemon logged errors:" >&2; grep '"level":"error"' "$work/sitemapd.log" >&2; exit 1; }
echo "e2e-hreflang.sh: PASS ($(grep -c '"GET ' "$work/access.log" || true) requests served by nginx)"
