package main

import (
	"runtime/debug"
	"testing"
)

// TestVersionFrom: what `sitemapd version` says, from what the build
// recorded: the link-time stamp first, then the module version (a tag or
// pseudo-version from go install, or go 1.24's from the checkout), then
// the VCS stamp, then "dev".
func TestVersionFrom(t *testing.T) {
	const rev = "879a0b0c1d2e3f405162738495a6b7c8d9e0f1a2"
	vcs := func(modified string) []debug.BuildSetting {
		s := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}}
		if modified != "" {
			s = append(s, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return s
	}
	info := func(v string, settings []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/sitemapd/sitemapd", Version: v}, Settings: settings}
	}
	for _, tc := range []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"make build", "v0.20.0-3-g879a0b0-dirty", info("(devel)", vcs("true")), "v0.20.0-3-g879a0b0-dirty"},
		{"stamped, no build info", "v0.20.0", nil, "v0.20.0"},
		{"go install @v0.20.0", "", info("v0.20.0", nil), "v0.20.0"},
		{"go install @latest before any tag", "", info("v0.0.0-20261125183214-879a0b0c1d2e", nil), "v0.0.0-20261125183214-879a0b0c1d2e"},
		{"go build in a modified checkout (go 1.24+)", "", info("v0.20.1-0.20261125183214-879a0b0c1d2e+dirty", vcs("true")), "v0.20.1-0.20261125183214-879a0b0c1d2e+dirty"},
		{"VCS stamp only", "", info("(devel)", vcs("false")), "dev-879a0b0c1d2e"},
		{"VCS stamp only, modified", "", info("(devel)", vcs("true")), "dev-879a0b0c1d2e-dirty"},
		{"VCS stamp without modified", "", info("", vcs("")), "dev-879a0b0c1d2e"},
		{"short revision", "", info("(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "879a0b0"}}), "dev-879a0b0"},
		{"-buildvcs=false", "", info("(devel)", nil), "dev"},
		{"no build info", "", nil, "dev"},
	} {
		if got := versionFrom(tc.stamped, tc.bi); got != tc.want {
			t.Errorf("%s: versionFrom(%q, %v) = %q, want %q", tc.name, tc.stamped, tc.bi, got, tc.want)
		}
	}
}
