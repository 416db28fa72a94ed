package build

import (
	"path"
	"slices"
	"syscall"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/feed"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// onDisk reads sitemapd's outputs as they are on disk: a group's parts
// there, the URLs files list, a file's stamp. The model (published) says
// what the engine published; this is what a publish compares with where
// the model does not know (a group new to the engine, files that did not
// land, a build without memory), and how it checks that a file is still
// as it landed.
type onDisk struct {
	pub   *publish.Publisher
	cfg   *config.Config
	names *outname.Site
}

// parts lists the parts of a group that are on disk and ours.
func (d onDisk) parts(dir string) []string {
	return d.partsOf(dir, d.names.Sitemap())
}

// textParts lists the text parts of a group that are on disk and ours.
func (d onDisk) textParts(dir string) []string {
	return d.partsOf(dir, d.names.Text())
}

// partsOf lists the parts of the output called base in a group's
// directory that are on disk and ours (sitemaps, or text sitemaps), sorted:
// numbered parts (outname.Part, as versions before content-defined parts named
// them) and keyed ones (outname.Chunk) alike.
func (d onDisk) partsOf(dir, base string) []string {
	rd := dir
	if rd == "" {
		rd = "."
	}
	files, err := d.pub.ReadDirNames(rd)
	if err != nil {
		return nil
	}
	var names []string
	for _, file := range files {
		if !d.names.PartOf(file, base) {
			continue // a .gz without gzip on, or the reverse, or another file
		}
		name := path.Join(dir, file)
		if ok, _ := d.pub.Owned(name); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// urls reads back the URLs (loc -> lastmod text) of sitemap files we
// wrote. A file it cannot read counts as empty, so its URLs show as added,
// which errs towards telling engines too much rather than too little.
func (d onDisk) urls(names []string) map[string]string {
	urls := map[string]string{}
	for _, n := range names {
		f, err := d.pub.Open(n)
		if err != nil {
			continue
		}
		_ = sitemap.ReadFileURLs(f, n, urls) // what was read counts; the rest shows as added
		f.Close()
	}
	return urls
}

// stamp stats a part's file; the zero stamp, which matches none, when it
// cannot.
func (d onDisk) stamp(name string) fileStamp {
	fi, err := d.pub.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStamp{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{
		ino: int64(st.Ino), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
}

// entries reads a group's first entries of the feed of changes from its
// published parts.
func (d onDisk) entries(parts []string) []feed.Entry {
	s := feed.NewSelector(d.cfg.Feed.Entries)
	for loc, lastmod := range d.urls(parts) {
		t, err := time.Parse(time.RFC3339, lastmod)
		if err != nil {
			continue // no lastmod: no entry
		}
		if en, ok := feed.NewEntry(loc, t); ok {
			s.Add(en)
		}
	}
	return s.Entries()
}
