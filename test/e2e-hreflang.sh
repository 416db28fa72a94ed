#!/usr/bin/env bash
# hreflang alternates end to end, through HTTP only: a real nginx serves a
# site in three languages (en at the root, fr/ and de/), `sitemapd run`
# keeps its sitemaps, and while it runs a language directory is deleted,
# made again, and one of its pages stops naming its English version. At
# each quiet moment (the daemon published since the change, and nothing
# for a second), test/e2e-hreflang.py reads every sitemap and every
# alternate listed through nginx: each answers 200 and names its page
# back, and each page lists what its served head names that names it back.
# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
need_nginx
need python3
make_work e2e-hreflang
build_sitemapd

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

servers() {
  cat <<CONF
    server {
        listen 127.0.0.1:$1;
        root $site;
        include $top/deploy/nginx/sitemapd.conf;
    }
CONF
}
start_nginx servers

start_sitemapd <<CONF
root: $site
base_url: $base
state_dir: $work/state
watch: {settle: 200ms, max_delay: 2s}
log: {format: json}
# Two languages of three deleted at once are most of the site: meant here.
shrink_guard: false
CONF

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
  fail "the daemon did not publish and settle within 30 s"
}
check() { # check WHAT LANG...: the pages of those languages are the site
  local what=$1 l page paths=()
  shift
  for l in "$@"; do for page in "${pages[@]}"; do paths+=("$(url "$l" "$page")"); done; done
  say "after $what"
  python3 "$top/test/e2e-hreflang.py" "$base" "${paths[@]}" || fail "the check after $what"
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
    [ ! -e "$site/$d" ] || fail "could not remove $d"
  done
}

quiet 0;                                 check "the first build" en fr de
n=$(before); remove fr;                  quiet "$n"; check "fr/ deleted" en de
n=$(before); write fr;                   quiet "$n"; check "fr/ made again" en fr de
n=$(before); write fr noen;              quiet "$n"; check "fr/about.html names en no more" en fr de
n=$(before); remove de fr;               quiet "$n"; check "fr/ and de/ deleted" en
n=$(before); write de;                   quiet "$n"; check "de/ made again" en de
if grep -q '"level":"error"' "$work/sitemapd.log"; then
  grep '"level":"error"' "$work/sitemapd.log" >&2
  fail "the daemon logged errors (above)"
fi
pass
