package daemon

// Trigger is what started a publish. Its String is logged as "trigger" and
// is the trigger label of the publish metrics, so those spellings are kept
// as they are.
type Trigger int

const (
	// InitialBuild is the first build after a start or reload.
	InitialBuild Trigger = iota
	// Change is a batch of watched changes, rebuilt incrementally.
	Change
	// Rescan is a batch whose events were lost: the tree is read again.
	Rescan
	// RobotsChanged is a new robots.txt, whose rules may let in or keep
	// out any page.
	RobotsChanged
	// PeriodicRescan is watch.rescan's full walk.
	PeriodicRescan
	// Retry builds again the groups that failed.
	Retry
	// Due builds again the groups holding pages whose time (a future
	// mtime, from clock skew or a build host ahead) has come: they get a
	// lastmod now; and the news sitemap when its articles change with
	// the time alone (one's publication time comes, or one turns 48 h
	// old and leaves), with no group to read.
	Due
	// URLFiles is a change of extra_urls files: their sitemaps are
	// published again.
	URLFiles
	// Restored writes again the files of sitemapd's someone removed (a
	// deploy's rsync --delete): the groups that lack one, and the index.
	Restored
	// PagePrints is the full build that follows a first one published
	// without reading what pages say (build.WithDeferredPrints): it learns
	// the site's template and prints every HTML page.
	PagePrints
	// FleetAgreed publishes again pages or sitemap files whose time the
	// fleet settled otherwise than this server published it.
	FleetAgreed
)

var triggerNames = [...]string{
	InitialBuild:   "initial build",
	Change:         "change",
	Rescan:         "rescan",
	RobotsChanged:  "robots.txt changed",
	PeriodicRescan: "periodic rescan",
	Retry:          "retry",
	Due:            "pages due",
	URLFiles:       "extra_urls changed",
	Restored:       "outputs restored",
	PagePrints:     "page prints",
	FleetAgreed:    "fleet agreed",
}

func (t Trigger) String() string {
	if t >= 0 && int(t) < len(triggerNames) {
		return triggerNames[t]
	}
	return "unknown"
}

// Full reports whether the publish walks the whole tree: all but Change,
// Retry, Due, Restored and FleetAgreed, which rebuild only the groups they
// name, and URLFiles.
func (t Trigger) Full() bool {
	return t != Change && t != Retry && t != Due && t != URLFiles && t != Restored && t != FleetAgreed
}
