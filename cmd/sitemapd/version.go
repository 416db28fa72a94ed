package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version and commit are set at link time (-ldflags "-X main.version=…
// -X main.commit=…", as the Makefile and the image do); otherwise they
// come from the build info the go command records (versionFrom,
// commitOf).
var (
	version = ""
	commit  = ""
)

func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(version, bi)
}

// versionFrom chooses the version to show: the one stamped at link time;
// else the main module's version, which `go install …@v0.20.0` sets to
// the tag, `…@latest` to the latest tag (a pseudo-version such as
// v0.0.0-20261125183214-b2286cfd2ea8 while there is none), and go 1.24
// and later to the same from the checkout's tag or commit ("+dirty" for a
// modified tree); else, for a build that recorded only the VCS stamp, the
// commit ("dev-879a0b0c1d2e", "-dirty" as git describe --dirty says it);
// else "dev".
func versionFrom(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, modified := vcsStamp(bi)
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 { // as a pseudo-version abbreviates it
		rev = rev[:12]
	}
	if modified {
		return "dev-" + rev + "-dirty"
	}
	return "dev-" + rev
}

// vcsStamp is the commit the go command recorded, and whether the tree
// had changes.
func vcsStamp(bi *debug.BuildInfo) (rev string, modified bool) {
	if bi == nil {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}

// commitString is the commit the binary was built from, with
// " (modified)" when the working tree had changes.
func commitString() string {
	if commit != "" {
		return commit
	}
	bi, _ := debug.ReadBuildInfo()
	return commitOf(bi)
}

// commitOf reads the VCS stamp of build info.
func commitOf(bi *debug.BuildInfo) string {
	switch rev, modified := vcsStamp(bi); {
	case rev == "":
		return "unknown (built without version control information)"
	case modified:
		return rev + " (modified)"
	default:
		return rev
	}
}

// cmdVersion is `sitemapd version`.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "sitemapd version: unexpected argument %q\n", args[0])
		return ExitUsage
	}
	fmt.Fprintf(stdout, "sitemapd %s\ncommit: %s\ngo: %s %s/%s\n", versionString(), commitString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return ExitOK
}
