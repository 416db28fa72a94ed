package scan

import (
	"io/fs"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Symlinks the walk does not follow (broken, or leaving the document
// root) are warned about only where something a sitemap would list is
// lost: a link named as a page (by pages.extensions, not excluded, not an
// error page), counted in the summary's "pages", or a link to a directory
// outside the root, whose pages, if it holds any, are not read (nothing
// outside the root is), counted in "links". A link to anything else, a
// stylesheet, a script or a font, as documentation trees hold by the
// hundred, would not have been listed had it resolved: it is noted at
// debug level only.

// countedAs names what a held warning's count counts, when not pages: a
// field encoders skip, read by the collapser.
func countedAs(unit string) zap.Field {
	return zap.Field{Key: "counted_as", Type: zapcore.SkipType, String: unit}
}

// wouldList reports whether the walk would list a regular file at rel,
// named name: the page filter's verdict.
func (w *Walk) wouldList(name, rel string) bool {
	f := w.s.filter
	return f.IsPage(name) && !f.Excluded("/"+rel) && !f.ErrorPage("/"+rel)
}

// lostLink reports a symlink not followed: st is its target's stat (nil if
// none), real its resolved path, err why it did not resolve.
func (w *Walk) lostLink(v *visit, name, rel string, st fs.FileInfo, real string, fault linkFault, err error) {
	p := w.abs(rel)
	dir := st != nil && st.IsDir()
	switch {
	case fault == linkOut && dir && !w.s.filter.Excluded("/"+rel):
		w.log.Warn("not followed: symlinked directory leaves the document root", zap.String("path", p), zap.String("target", real), countedAs("links"))
	case dir || !w.wouldList(name, rel):
		w.log.Debug("not followed: symlink to no page", zap.String("path", p), zap.String("target", real), zap.Error(err))
	case fault == linkBroken:
		w.log.Warn("not listed: broken symlink", zap.String("path", p), zap.Error(err))
	default:
		w.log.Warn("not listed: symlink leaves the document root", zap.String("path", p), zap.String("target", real))
	}
}
