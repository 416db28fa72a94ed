// The npm peer bench/dense.sh compares a fresh `sitemapd build` with: the
// same job done with the `sitemap` package (9.x) from the npm registry. It
// walks ROOT (readdirSync, names sorted, dot-names skipped, as sitemapd
// skips them), makes one URL per page (.html, .htm, .pdf, any case;
// index.html and index.htm name their directory) with each segment
// percent-encoded and the file's mtime as lastmod, and streams them through
// the package's simpleSitemapAndIndex (SitemapAndIndexStream underneath):
// sitemaps of at most 50,000 URLs and an index, uncompressed, into OUT. It
// reads no page and keeps no state.
//
//   NODE_PATH=PREFIX/node_modules node sitemap.cjs ROOT https://example.org/ OUT
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { Readable } = require('node:stream');
const { simpleSitemapAndIndex } = require('sitemap');

const [rootArg, base, out] = process.argv.slice(2);
if (!rootArg || !base || !out) {
  console.error('usage: node sitemap.cjs ROOT BASE_URL OUT_DIR');
  process.exit(2);
}
const root = path.resolve(rootArg);
// The package takes only a relative destinationDir.
fs.mkdirSync(out, { recursive: true });
process.chdir(out);
const pageExt = new Set(['.html', '.htm', '.pdf']);

function* walk(dir, rel) {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      yield* walk(p, rel + encodeURIComponent(e.name) + '/');
    } else if (e.isFile() && pageExt.has(path.extname(e.name).toLowerCase())) {
      const st = fs.statSync(p);
      const url = e.name === 'index.html' || e.name === 'index.htm' ? rel : rel + encodeURIComponent(e.name);
      yield { url: url === '' ? '/' : url, lastmod: st.mtime.toISOString() };
    }
  }
}

simpleSitemapAndIndex({
  hostname: base,
  destinationDir: '.',
  sourceData: Readable.from(walk(root, '')),
  limit: 50000,
  gzip: false,
}).catch((err) => {
  console.error('sitemap.cjs:', err);
  process.exit(1);
});
