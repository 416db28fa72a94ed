#!/usr/bin/env bash
# End to end, the daemon's self-check (selfcheck.enabled) against a real
# nginx on 127.0.0.1: `sitemapd run` checks its public view every few
# seconds while the nginx configuration breaks what search engines fetch,
# one way after another (reloaded each time): the IndexNow key file
# redirected and robots.txt answering 404; the key file served with a
# wrong default_type; the key file served from another file, which starts
# with a UTF-8 BOM. /healthz must name each problem (URL and kind) within
# one interval and a margin, stop naming it once it is fixed, and the log
# must say each once, however many checks see it.
# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# A failure shows what /healthz said, before the daemon's log.
on_fail() {
  [ -n "${health:-}" ] || return 0
  echo "--- /healthz"; curl -s "$health/healthz" || true
}

need_nginx
need curl "apt-get install curl"
make_work e2e-selfcheck
build_sitemapd

site="$work/www"
mkdir -p "$site/blog"
for p in index.html about.html blog/index.html blog/a.html; do echo "<title>$p</title>" > "$site/$p"; done
echo "User-agent: *" > "$site/robots.txt"
key=selfcheck0123456789
# The file a careless alias serves instead of sitemapd's: the key after a
# UTF-8 byte order mark, as an editor on another system saves it.
mkdir -p "$work/other"
printf '\xef\xbb\xbf%s' "$key" > "$work/other/$key.txt"

# nginx: the site, with what breaks it in an included file that each step
# rewrites before a reload.
: > "$work/break.conf"
servers() {
  cat <<CONF
    server {
        listen 127.0.0.1:$1;
        root $site;
        index index.html index.htm;
        location = /indexnow {
            return 200;
        }
        include $work/break.conf;
    }
CONF
}
start_nginx servers
hport=$((port + 1))
[ "$hport" -lt 65536 ] || hport=$((port - 1))
health="http://127.0.0.1:$hport"

interval=3
start_sitemapd <<CONF
root: $site
base_url: $base
robots_txt: true
notify: {endpoints: [{name: indexnow, kind: indexnow, url: ${base}indexnow, key: $key}]}
state_dir: $work/state
listen: 127.0.0.1:$hport
selfcheck: {enabled: true, interval: ${interval}s, after_publish: 500ms, timeout: 2s}
watch: {settle: 200ms, max_delay: 2s}
log: {format: json}
CONF

healthz() { curl -s --max-time 5 "$health/healthz" || true; }
# within SECONDS WHAT PREDICATE...: polls /healthz until every predicate
# (a function of its body) holds, failing after SECONDS.
within() {
  local secs=$1 what=$2; shift 2
  local start=$SECONDS body p ok
  while :; do
    body=$(healthz); ok=1
    for p in "$@"; do "$p" "$body" || { ok=""; break; }; done
    if [ -n "$ok" ]; then say "$what after $((SECONDS - start)) s"; return; fi
    [ $((SECONDS - start)) -lt "$secs" ] || fail "$what: not within $secs s"
    sleep 0.2
  done
}
# A problem as /healthz lists it: what, URL, kind (and a word of its detail).
has() { grep -qF "\"what\":\"$2\",\"url\":\"$3\",\"problem\":\"$4\",\"detail\":\"$5" <<<"$1"; }
keyRedirect() { has "$1" "key file" "$base$key.txt" redirect "answered 301 to "; }
keyType() { has "$1" "key file" "$base$key.txt" content_type 'is served as \"text/html\"'; }
keyBOM() { has "$1" "key file" "$base$key.txt" body 'holds \"\\ufeff'"$key"'\", starting with a UTF-8 byte order mark'; }
robots404() { has "$1" "robots.txt" "${base}robots.txt" status "answered 404"; }
noKeyRedirect() { ! keyRedirect "$1"; }
noKeyType() { ! keyType "$1"; }
noRobots404() { ! robots404 "$1"; }
checked() { grep -qF '"self_check":{"checked":' <<<"$1"; }
clean() { grep -qF '"status":"ok"' <<<"$1" && ! grep -qF '"problems"' <<<"$1"; }
degraded() { grep -qF '"status":"degraded","reason":"self-check: ' <<<"$1"; }

breakit() {
  printf '%s\n' "$@" > "$work/break.conf"
  "$NGINX" -c "$work/nginx.conf" -p "$work" -s reload 2>>"$work/nginx-start.log" || fail "nginx -s reload"
}
# One interval and a margin: the check that follows a reload comes within
# an interval; the margin is for the reload and the check itself.
limit=$((interval + 7))

within 30 "the first check, after the first build, finds the site served as written" checked clean

breakit "location = /$key.txt { return 301 /keys/$key.txt; }" "location = /robots.txt { return 404; }"
within "$limit" "the key file redirected and robots.txt 404 named" keyRedirect robots404 degraded
curl -s "$health/metrics" | grep -qF "sitemapd_selfcheck_problem{problem=\"redirect\",url=\"$base$key.txt\",what=\"key file\"} 1" || fail "/metrics does not name the redirected key file"
sleep $((2 * interval))   # more checks that see the same problems
n=$(grep -c '"self-check: the public view differs from what sitemapd wrote".*"url":"'"$base$key.txt"'","problem":"redirect"' "$work/sitemapd.log" || true)
[ "$n" = 1 ] || fail "the redirected key file was logged $n times over several checks, not once"

breakit "location = /$key.txt { types { } default_type text/html; }"
within "$limit" "the key file's wrong default_type named, robots.txt and the redirect cleared" keyType noRobots404 noKeyRedirect

breakit "location = /$key.txt { alias $work/other/$key.txt; }"
within "$limit" "the key file with a BOM named" keyBOM noKeyType

breakit ""
within "$limit" "all fixed: /healthz ok, no problem named" clean
grep -qF '"self-check: cleared"' "$work/sitemapd.log" || fail "no problem was logged as cleared"
n=$(grep -c '"self-check: the public view differs' "$work/sitemapd.log" || true)
[ "$n" = 4 ] || fail "$n problems logged as they appeared, want 4 (redirect, robots.txt 404, default_type, BOM)"
pass
