// What a crawler sees, through HTTP only: node e2e-check.mjs BASE DOCROOT
// XSD NODE_MODULES [PATH=ISO-TIME…]. Each page must be listed with its
// file's mtime as lastmod, or with the time given for its URL path (a page
// rewritten with the same bytes keeps the lastmod of when they last
// changed). The feed of changes (changes.atom) must list, as a feed
// reader sees it, the 10 pages with the latest of those times, newest
// first, ties by URL. Retries for up to 30 s (the daemon publishes after its settle
// time), then prints what it checked or why it failed.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';

const [base, docroot, xsd, modules, ...kept] = process.argv.slice(2);
const keptTimes = new Map(kept.map((a) => {
  const i = a.lastIndexOf('=');
  return [a.slice(0, i), Math.floor(Date.parse(a.slice(i + 1)) / 1000)];
}));
const { default: Sitemapper } = await import(pathToFileURL(join(modules, 'sitemapper/lib/assets/sitemapper.js')));
const { default: FeedParser } = await import(pathToFileURL(join(modules, 'rss-parser/index.js')));
const feedEntries = 10;
// The images each page shows, as e2e.sh writes them (relative to base),
// on the site's host: every other page shows none.
const imagesOf = new Map([['/docs/api/v1.html', ['assets/logo.png', 'assets/logo@2x.png', 'docs/api/diagram.webp', 'docs/api/diagram.png']]]);
const tmp = mkdtempSync(join(tmpdir(), 'e2e-check-'));
let requests = 0;

async function get(path) {
  requests++;
  const res = await fetch(new URL(path, base));
  return { status: res.status, type: res.headers.get('content-type') || '', body: await res.text() };
}

// The pages that exist and do not ask to be left out, as the decoded URL
// path each must be listed under, with the second of its mtime.
function expected() {
  const pages = new Map();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) { walk(p); continue; }
      if (!/\.html?$/.test(e.name)) continue;
      if (/<meta name="robots" content="noindex/i.test(readFileSync(p, 'utf8'))) continue;
      let rel = '/' + relative(docroot, p).split(sep).join('/');
      if (e.name === 'index.html') rel = rel.slice(0, -'index.html'.length);
      pages.set(rel, keptTimes.get(rel) ?? Math.floor(statSync(p).mtimeMs / 1000));
    }
  };
  walk(docroot);
  return pages;
}

async function check() {
  const robots = await get('robots.txt');
  if (robots.status !== 200 || !robots.body.includes('User-agent: *') ||
      !robots.body.split('\n').includes(`Sitemap: ${base}sitemap_index.xml`) || robots.body.includes('changes.atom')) {
    throw new Error(`robots.txt (${robots.status}) does not keep its lines and name the index (and only the index):\n${robots.body}`);
  }
  const index = await get('sitemap_index.xml');
  if (index.status !== 200 || !index.type.includes('xml') || !index.body.includes('<sitemapindex')) {
    throw new Error(`the index: ${index.status} ${index.type}`);
  }
  const maps = [...index.body.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1].replaceAll('&amp;', '&'));
  for (const [i, loc] of maps.entries()) {
    const sm = await get(loc);
    if (sm.status !== 200 || !sm.type.includes('xml')) throw new Error(`${loc}: ${sm.status} ${sm.type}`);
    const file = join(tmp, `s${i}.xml`);
    writeFileSync(file, sm.body);
    try {
      execFileSync('xmllint', ['--noout', '--schema', xsd, file], { stdio: 'pipe' });
    } catch (e) {
      throw new Error(`${loc} does not validate against sitemap.xsd: ${e.stderr}`);
    }
    // The text sitemap beside it lists the same URLs, one a line.
    const txt = await get(loc.replace(/\.xml$/, '.txt'));
    const locs = [...sm.body.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1].replaceAll('&amp;', '&') + '\n');
    if (txt.status !== 200 || !txt.type.startsWith('text/plain') || txt.body !== locs.join('')) {
      throw new Error(`the text sitemap beside ${loc}: ${txt.status} ${txt.type}\n${txt.body}`);
    }
  }
  if (!maps.some((m) => m.endsWith('blog/sitemap.xml'))) {
    throw new Error('no blog sitemap');
  }
  const blog = await get('blog/sitemap.xml');
  if (!blog.body.includes(`<xhtml:link rel="alternate" hreflang="de" href="${base}de/blog/"/>`)) {
    throw new Error(`blog/sitemap.xml lacks the hreflang alternates of /blog/:\n${blog.body}`);
  }
  const record = await get('.sitemapd-text.sha256');
  if (record.status === 200) throw new Error('nginx serves the record of text sitemaps, a dotfile');
  const client = new Sitemapper({ url: `${base}sitemap_index.xml`, timeout: 10000, fields: { loc: true, lastmod: true, image: true } });
  const { sites, errors } = await client.fetch();
  requests += maps.length + 1;
  if (errors && errors.length) throw new Error(`sitemapper: ${JSON.stringify(errors)}`);
  const want = expected();
  const got = new Map();
  for (const s of sites) {
    const path = decodeURIComponent(new URL(s.loc).pathname);
    if (got.has(path)) throw new Error(`${s.loc} is listed twice`);
    got.set(path, Math.floor(Date.parse(s.lastmod) / 1000));
    const images = [s.image ?? []].flat().map((i) => i.loc).join(' ');
    const wantImages = (imagesOf.get(path) ?? []).map((i) => new URL(i, base).href).join(' ');
    if (images !== wantImages) throw new Error(`${path}: images ${images || 'none'}, want ${wantImages || 'none'}`);
  }
  for (const [path, mt] of want) {
    if (!got.has(path)) throw new Error(`${path} exists but is not listed`);
    if (got.get(path) !== mt) throw new Error(`${path}: lastmod ${new Date(got.get(path) * 1000).toISOString()}, want ${new Date(mt * 1000).toISOString()}`);
  }
  for (const path of got.keys()) {
    if (!want.has(path)) throw new Error(`${path} is listed but does not exist`);
  }
  if (maps.some((m) => m.endsWith('.atom'))) throw new Error('the index lists the feed: an index lists sitemaps only');
  const locs = new Map(sites.map((s) => [decodeURIComponent(new URL(s.loc).pathname), s.loc]));
  const entries = await checkFeed(want, locs);
  return { pages: want.size, sitemaps: maps.length, entries };
}

// checkFeed reads the feed through nginx with rss-parser and compares it
// with the pages expected (path -> second), whose listed URLs are locs.
async function checkFeed(want, locs) {
  const res = await get('changes.atom');
  if (res.status !== 200 || !res.type.startsWith('application/atom+xml')) {
    throw new Error(`changes.atom: ${res.status} ${res.type}`);
  }
  const feed = await new FeedParser().parseURL(`${base}changes.atom`);
  requests++;
  if (feed.link !== base) throw new Error(`the feed's link is ${feed.link}, want ${base}`);
  const top = [...want].sort(([pa, ta], [pb, tb]) => tb - ta || (locs.get(pa) < locs.get(pb) ? -1 : 1)).slice(0, feedEntries);
  const got = feed.items.map((it) => `${it.link} ${it.isoDate}`);
  const exp = top.map(([path, t]) => `${locs.get(path)} ${new Date(t * 1000).toISOString()}`);
  if (got.join('\n') !== exp.join('\n') || feed.items.some((it) => it.id !== it.link)) {
    throw new Error(`the feed lists:\n${got.join('\n')}\nwant the pages changed last, newest first:\n${exp.join('\n')}`);
  }
  return feed.items.length;
}

const deadline = Date.now() + 30000;
for (;;) {
  try {
    const { pages, sitemaps, entries } = await check();
    console.log(`  ok: ${pages} pages listed with their lastmod and images by sitemapper, ${sitemaps} sitemaps valid with their text sitemaps, robots.txt names the index, the feed's ${entries} entries read by rss-parser; ${requests} requests`);
    process.exit(0);
  } catch (e) {
    if (Date.now() > deadline) {
      console.error(`  FAIL: ${e.message}`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
