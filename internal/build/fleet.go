package build

import (
	"strconv"

	"github.com/sitemapd/sitemapd/internal/scan"
)

// Fleet decides times with the other servers of a fleet (package fleet):
// each page's (scan.Agreer), and each sitemap file's lastmod in the index,
// which is otherwise its file's mtime here, a time no other server's copy
// has.
type Fleet interface {
	scan.Agreer
	// AgreeFile returns the lastmod of the sitemap file name (relative
	// to the output root) whose bytes hash to sum, landed here at local.
	AgreeFile(name string, sum uint64, local int64) int64
}

// WithFleet makes the engine one of a fleet's: pages and sitemap files
// take the times the fleet agreed for their bytes.
func WithFleet(f Fleet) Option { return func(e *Engine) { e.opts.fleet = f } }

// fileTime is the lastmod in the index of part p, landed at mtime: with a
// fleet, the time it agreed for the part's bytes.
func (o *options) fileTime(p part, mtime int64) int64 {
	if o.fleet == nil || len(p.sum) < 16 {
		return mtime
	}
	sum, err := strconv.ParseUint(p.sum[:16], 16, 64)
	if err != nil {
		return mtime
	}
	return o.fleet.AgreeFile(p.name, sum, mtime)
}

// agreer is the fleet as the scanner's Agreer, or nil (an interface
// holding a nil Fleet would not be).
func (o *options) agreer() scan.Agreer {
	if o.fleet == nil {
		return nil
	}
	return o.fleet
}
