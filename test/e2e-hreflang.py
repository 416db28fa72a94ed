#!/usr/bin/env python3
"""Reads a site's sitemaps and alternates back through HTTP, as a crawler
does, for test/e2e-hreflang.sh.

usage: e2e-hreflang.py BASE_URL PATH...

PATHs are the site's pages as the test made them (URL paths). What each
page's head names is read from the page as the web server serves it, so the
expected alternates come from the served site and Google's rule, not from
sitemapd: a page's <url> lists the alternates its head names that are the
page itself, or a listed page whose head names it back; none if that
leaves the page alone. Every alternate listed must answer 200 (no
redirect) and name the page back. Exits 1 naming each difference.
"""
import http.client
import sys
import urllib.parse
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"


def get(url):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.request("GET", u.path + ("?" + u.query if u.query else ""))
    r = c.getresponse()
    return r.status, r.read()


class Links(HTMLParser):
    """The hreflang alternates a page's markup names: (hreflang, URL)."""

    def __init__(self, base):
        super().__init__()
        self.base, self.links = base, set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and (a.get("rel") or "").lower() == "alternate" and a.get("hreflang") and a.get("href"):
            self.links.add((a["hreflang"], urllib.parse.urljoin(self.base, a["href"])))


def names(url, body):
    p = Links(url)
    p.feed(body.decode("utf-8", "replace"))
    return p.links


def main():
    base, paths = sys.argv[1], sys.argv[2:]
    bad = []
    present = {urllib.parse.urljoin(base, p) for p in paths}
    heads = {}
    for u in present:
        status, body = get(u)
        if status != 200:
            bad.append(f"{u}: the test's page answers {status}")
        heads[u] = names(u, body)

    status, body = get(urllib.parse.urljoin(base, "sitemap_index.xml"))
    if status != 200:
        sys.exit(f"sitemap_index.xml answers {status}")
    listed = {}
    for loc in ET.fromstring(body).iter(SM + "loc"):
        status, body = get(loc.text)
        if status != 200:
            bad.append(f"{loc.text}: a sitemap the index lists answers {status}")
            continue
        for url in ET.fromstring(body).iter(SM + "url"):
            listed[url.find(SM + "loc").text] = {(l.get("hreflang"), l.get("href")) for l in url.iter(XHTML + "link")}

    if set(listed) != present:
        bad.append(f"listed {sorted(listed)}, the site's pages are {sorted(present)}")
    for u in sorted(present):
        want = {(lang, t) for lang, t in heads[u] if t == u or (t in present and any(b == u for _, b in heads[t]))}
        if all(t == u for _, t in want):
            want = set()
        if u in listed and listed[u] != want:
            bad.append(f"{u} lists {sorted(listed[u])}, want {sorted(want)}")
    alternates = 0
    for u, alts in sorted(listed.items()):
        if alts and not any(t == u for _, t in alts):
            bad.append(f"{u}: its alternates do not name it")
        for lang, t in sorted(alts):
            alternates += 1
            status, body = get(t)
            if status != 200:
                bad.append(f"{u}: alternate {lang} {t} answers {status}")
            elif not any(b == u for _, b in names(t, body)):
                bad.append(f"{u}: alternate {lang} {t} does not name it back")
    for b in bad:
        print("  " + b, file=sys.stderr)
    if bad:
        sys.exit(1)
    print(f"  {len(listed)} URLs, {alternates} alternates: each answers 200 and names its page back")


if __name__ == "__main__":
    main()
