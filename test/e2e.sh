#!/usr/bin/env bash
# End to end, through HTTP only: a real nginx serves a docroot on
# 127.0.0.1, `sitemapd run` keeps its sitemaps, and test/e2e-check.mjs
# checks what a crawler sees (robots.txt, every sitemap served and valid
# against sitemap.xsd, the pages a real sitemap client, sitemapper from
# npm, finds with their lastmod and images, and the feed of changes as a real feed
# reader, rss-parser from npm, reads it) after each of: the first build, an added
# page, an edited page, the same page rewritten with the same bytes (its
# lastmod stays), a deleted page, a moved directory, a page now noindex.
# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"

# Only CI installs what is missing; elsewhere the test says what to install.
need_nginx install
for t in node npm xmllint; do need $t; done
make_work e2e

# The sitemap client, from the npm registry, cached between runs.
mods="$top/.cache/e2e"
# The feed reader too: no sitemap client on npm reads Atom (sitemapper
# reads urlset and sitemapindex documents only).
if [ ! -d "$mods/node_modules/sitemapper" ] || [ ! -d "$mods/node_modules/rss-parser" ]; then
  mkdir -p "$mods"
  npm install --silent --no-audit --no-fund --prefix "$mods" sitemapper@4.1.6 rss-parser@3.13.0 >/dev/null
fi
sitemap_xsd="$top/.cache/xsd/sitemap.xsd"
if [ ! -f "$sitemap_xsd" ]; then
  mkdir -p "$top/.cache/xsd"
  (cd "$work" && npm pack sitemap --silent >/dev/null && tar -xzf sitemap-*.tgz package/schema/sitemap.xsd && cp package/schema/sitemap.xsd "$sitemap_xsd")
fi
# sitemap.xsd with the XHTML link element of hreflang alternates and
# Google's image element declared, as internal/xsdtest does.
xsd="$work/all.xsd"
cat > "$xsd" <<XSD
<?xml version="1.0" encoding="UTF-8"?>
<schema elementFormDefault="qualified" xmlns="http://www.w3.org/2001/XMLSchema">
  <import namespace="http://www.sitemaps.org/schemas/sitemap/0.9" schemaLocation="$sitemap_xsd"/>
  <import namespace="http://www.w3.org/1999/xhtml" schemaLocation="$top/internal/xsdtest/xhtml-link.xsd"/>
  <import namespace="http://www.google.com/schemas/sitemap-image/1.1" schemaLocation="$top/internal/xsdtest/testdata/google/sitemap-image.xsd"/>
</schema>
XSD

build_sitemapd

# A small site with names a crawler must get right.
site="$work/www"
page() { mkdir -p "$(dirname "$site/$1")"; echo "<title>$1</title>" > "$site/$1"; touch -d "$2" "$site/$1"; }
page index.html "2026-01-02 03:04:05 UTC"
page about.html "2026-02-01 00:00:00 UTC"
page "blog/index.html" "2026-03-01 12:00:00 UTC"
page "blog/first post.html" "2026-03-02 12:00:00 UTC"
page "blog/café & crème.html" "2026-03-03 12:00:00 UTC"
page "docs/guide/intro.html" "2026-04-01 08:30:00 UTC"
page "docs/guide/setup.htm" "2026-04-02 08:30:00 UTC"
page "docs/api/v1.html" "2026-04-03 08:30:00 UTC"
for i in $(seq 1 60); do page "archive/2025/p$i.html" "2025-06-01 00:00:00 UTC"; done
# Heads that decide: a page that asks not to be indexed, and alternates.
echo '<meta name="robots" content="noindex"><title>draft</title>' > "$site/draft.html"
# The alternates name each other, and themselves (docs/output.md: only
# those are listed).
alts='<link rel="alternate" hreflang="en" href="/blog/"><link rel="alternate" hreflang="de" href="/de/blog/"><link rel="alternate" hreflang="x-default" href="/blog/">'
echo "$alts" >> "$site/blog/index.html"
touch -d "2026-03-01 12:00:00 UTC" "$site/blog/index.html"
page "de/blog/index.html" "2026-03-01 13:00:00 UTC"
echo "$alts" >> "$site/de/blog/index.html"
touch -d "2026-03-01 13:00:00 UTC" "$site/de/blog/index.html"
# A page that shows images (pages.images): its own, a picture's, one on
# another host (not listed). e2e-check.mjs knows which it shows.
echo '<img src="/assets/logo.png" srcset="/assets/logo.png 1x, /assets/logo@2x.png 2x"><picture><source srcset="diagram.webp"><img src="diagram.png"></picture><img src="https://elsewhere.test/x.png">' >> "$site/docs/api/v1.html"
touch -d "2026-04-03 08:30:00 UTC" "$site/docs/api/v1.html"
mkdir -p "$site/assets" && echo "body{}" > "$site/assets/site.css" && echo x > "$site/.hidden.html"
echo "User-agent: *" > "$site/robots.txt"

# nginx on two free ports of 127.0.0.1: the site, and the site with its
# IndexNow key file redirected.
key=e2ekey0123456789
servers() {
  cat <<CONF
    server {
        listen 127.0.0.1:$1;
        root $site;
        include $top/deploy/nginx/sitemapd.conf;
        # An application under /app/ (as proxy_pass would be): its own
        # feed.xml and sitemap.xml must reach it, not the docroot.
        location /app/ {
            default_type text/plain;
            return 200 "from the app\n";
        }
        # The IndexNow endpoint the daemon submits to.
        location = /indexnow {
            return 200;
        }
    }
    # The same docroot where a rule takes the IndexNow key file away (as a
    # careless rewrite would): sitemapd check -reach must say so.
    server {
        listen 127.0.0.1:$(($1 + 1));
        root $site;
        include $top/deploy/nginx/sitemapd.conf;
        location = /$key.txt {
            return 301 /keys/$key.txt;
        }
    }
CONF
}
start_nginx servers
p2=$((port + 1))

start_sitemapd <<CONF
root: $site
base_url: $base
notify: {endpoints: [{name: indexnow, kind: indexnow, url: ${base}indexnow, key: $key}]}
robots_txt: true
formats: [xml, txt]
feed: {name: changes.atom, entries: 10}
pages: {images: true}
state_dir: $work/state
watch: {settle: 200ms, max_delay: 2s}
log: {format: json}
CONF

check() {
  say "after $1"
  node "$top/test/e2e-check.mjs" "$base" "$site" "$xsd" "$mods/node_modules" "${@:2}" || fail "the check after $1"
}
check "the first build"
# The shipped rules leave the site's own locations their paths, and keep
# sitemaps from being cached long.
get() { node -e 'fetch(process.argv[1]).then(async (r) => console.log(r.status, (await r.text()).trim(), "|", r.headers.get("cache-control")))' "$1"; }
for p in app/feed.xml app/sitemap.xml; do
  got=$(get "${base}$p")
  [ "$got" = "200 from the app | null" ] || fail "GET /$p answered '$got', not the application under location /app/"
done
got=$(get "${base}sitemap_index.xml")
[ "${got##*| }" = "max-age=300" ] || fail "the index's Cache-Control is '${got##*| }'"
page "blog/new.html" "2026-05-01 00:00:00 UTC";            check "a page added"
echo '<p>more</p>' >> "$site/about.html"; touch -d "2026-05-02 10:00:00 UTC" "$site/about.html"; check "a page edited"
# A redeploy of the same bytes (cp without -p): the page keeps the lastmod
# of its last real change (pages.lastmod: content, the default).
cp "$site/about.html" "$work/about.html"; cp "$work/about.html" "$site/about.html"
touch -d "2026-06-01 00:00:00 UTC" "$site/about.html"
check "a page rewritten with the same bytes" "/about.html=2026-05-02T10:00:00Z"
rm "$site/blog/first post.html";                           check "a page deleted" "/about.html=2026-05-02T10:00:00Z"
mv "$site/docs/guide" "$site/docs/handbook";               check "a directory moved" "/about.html=2026-05-02T10:00:00Z"
echo '<meta name="ROBOTS" content="noindex, nofollow">' > "$site/blog/new.html"; check "a page now says noindex" "/about.html=2026-05-02T10:00:00Z"
# sitemapd's own validator, over HTTP, on the index and every sitemap it lists.
maps=$(node -e 'fetch(process.argv[1]).then((r) => r.text()).then((t) => console.log([...t.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]).join(" ")))' "${base}sitemap_index.xml")
# shellcheck disable=SC2086
"$work/sitemapd" check "${base}sitemap_index.xml" $maps ${maps//.xml/.txt} | sed 's/^/  /'
# A directory whose only index file is index.htm is listed as dir/
# (pages.index_files), which nginx answers with 200 only because the
# shipped rules name index.htm too (nginx's default index is index.html).
page "manual/index.htm" "2026-07-01 00:00:00 UTC"
for i in $(seq 1 50); do
  grep -rqF --include='*.xml' "<loc>${base}manual/</loc>" "$site" && break
  sleep 0.2
done
grep -rqF --include='*.xml' "<loc>${base}manual/</loc>" "$site" || fail "${base}manual/ (only index.htm) is not listed"
got=$(get "${base}manual/")
[ "${got%% *}" = 200 ] || fail "GET /manual/, listed, answered '$got': nginx does not take index.htm for the directory"
# What search engines fetch, as they fetch it: the key file, robots.txt,
# the index and its sitemaps, the same bytes as on disk.
say "sitemapd check -reach"
"$work/sitemapd" check -config "$work/sitemapd.yaml" -reach -timeout 5s | sed 's/^/  /'
[ "${PIPESTATUS[0]}" = 0 ] || fail "check -reach failed against the shipped nginx rules"
# ... and through the server whose rule redirects the key file.
sed "s|^base_url: .*|base_url: http://127.0.0.1:$p2/|" "$work/sitemapd.yaml" > "$work/broken.yaml"
set +e
out=$("$work/sitemapd" check -config "$work/broken.yaml" -reach -timeout 5s); code=$?
set -e
echo "$out" | sed 's/^/  /'
[ "$code" = 1 ] || fail "check -reach exited $code, not 1, with the key file redirected"
echo "$out" | grep -q "^FAIL  key file http://127.0.0.1:$p2/$key.txt answered 301" || fail "check -reach did not name the redirected key file"
pass
