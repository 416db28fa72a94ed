package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version and commit are set at link time (-ldflags "-X main.version=…
// -X main.commit=…", as the Makefile and the image do); otherwise they
// come from the build info: the module version, and the VCS revision the
// go command stamps into binaries built in a git checkout.
var (
	version = ""
	commit  = ""
)

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
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
	var rev, modified string
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	switch {
	case rev == "":
		return "unknown (built without version control information)"
	case modified == "true":
		return rev + " (modified)"
	}
	return rev
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
