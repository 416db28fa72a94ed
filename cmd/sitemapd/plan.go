package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/hreflang"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/scan"
)

// printPlan prints what `build -dry-run` found a build would do: the
// groups with their URL counts, then each file it would create, replace,
// remove, refuse or clean, then the problems it would meet. It returns
// the exit status the build would have.
func printPlan(w io.Writer, cfg *config.Config, plan *build.Plan, rep *build.Report, err error) int {
	fmt.Fprintf(w, "Dry run of %s: nothing was written.\n", cfg.File)
	if plan == nil {
		plan = &build.Plan{}
	}
	// The groups: their URL counts right-aligned.
	total, gw, nw := 0, len("total"), len("urls")
	for _, g := range plan.Groups {
		total += g.URLs
		gw = max(gw, len(sitePath(g.Dir)))
	}
	nw = max(nw, len(fmt.Sprint(total)))
	fmt.Fprintf(w, "\n%-*s  %*s  %s\n", gw, "group", nw, "urls", "sitemaps")
	for _, g := range plan.Groups {
		sitemaps := strings.Join(g.Sitemaps, ", ")
		if len(g.Sitemaps) == 0 {
			sitemaps = "- (no page listed)"
		}
		fmt.Fprintf(w, "%-*s  %*d  %s\n", gw, sitePath(g.Dir), nw, g.URLs, sitemaps)
	}
	fmt.Fprintf(w, "%-*s  %*d  in %s\n", gw, "total", nw, total, plural(len(plan.Groups), "group"))

	var shrink *build.ShrinkError
	if errors.As(err, &shrink) {
		fmt.Fprintf(w, "\nThe build would be refused, and write nothing: %v\n", shrink)
		return ExitFailure
	}

	fmt.Fprintln(w)
	fw := len("file")
	for _, f := range plan.Files {
		fw = max(fw, len(f.Name))
	}
	if len(plan.Files) == 0 {
		fmt.Fprintln(w, "No file would change.")
	} else {
		fmt.Fprintln(w, "would    file")
	}
	for _, f := range plan.Files {
		what := ""
		switch f.Action {
		case build.Create:
			what = "(new)"
		case build.Clean:
			what = "(a temp file left by a crash)"
		case build.Refuse:
			what = refusal(f.Err)
		}
		line := fmt.Sprintf("%-7s  %-*s  %s", f.Action, fw, f.Name, what)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	fmt.Fprintf(w, "%s unchanged", plural(plan.Unchanged, "file"))
	if plan.PageStore != "" {
		fmt.Fprintf(w, "; the page store, %s, rewritten whole", plan.PageStore)
	}
	fmt.Fprintln(w, ".")
	if rep != nil && rep.LeftOut.Total() > 0 {
		fmt.Fprintf(w, "Pages left out: %s.\n", rep.LeftOut.String())
	}
	if rep != nil && rep.Hreflang.Dropped() > 0 {
		// What search engines would ignore (docs/output.md).
		fmt.Fprintf(w, "hreflang alternates not listed: %s (%d listed).\n", rep.Hreflang.String(), rep.Hreflang[hreflang.Kept])
	}
	if rep != nil {
		printLastmods(w, &rep.Lastmods)
	}

	var problems []string
	for _, e := range splitErrors(err) {
		var fe *publish.ForeignError
		if e == nil || errors.As(e, &fe) {
			continue // in the table
		}
		problems = append(problems, e.Error())
	}
	if len(problems) > 0 {
		fmt.Fprintln(w, "\nThe build would also meet these problems:")
		for _, p := range problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	if err != nil {
		return ExitFailure
	}
	return ExitOK
}

// plural is "1 file", "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// refusal says briefly why a file would be refused.
func refusal(err error) string {
	var fe *publish.ForeignError
	if errors.As(err, &fe) {
		return "(refused: " + fe.Why + ")"
	}
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return ""
}

// sitePath shows a group directory as a path from the site root.
func sitePath(dir string) string {
	if dir == "" {
		return "/"
	}
	return "/" + filepath.ToSlash(dir) + "/"
}

// printLastmods says, of each page read whose bytes changed, whether its
// lastmod moved and why (pages.lastmod: significant): which part of what
// it says changed, or that only its template, scripts or stamps did.
func printLastmods(w io.Writer, l *build.Lastmods) {
	n := l.Kept + l.Moved + l.MovedBytes
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\nPages whose bytes changed: %s; lastmod kept for %d (what they say is the same), moved for %d (what they say changed)",
		plural(n, "page"), l.Kept, l.Moved)
	if l.MovedBytes > 0 {
		fmt.Fprintf(w, " and %d (their bytes changed; nothing tells more)", l.MovedBytes)
	}
	fmt.Fprintln(w, ".")
	pages := slices.SortedFunc(slices.Values(l.Pages), func(a, b scan.Judgement) int { return strings.Compare(a.Path, b.Path) })
	for _, j := range pages {
		why := j.Verdict.String()
		if j.Verdict == scan.Moved {
			why += " (" + j.Parts.String() + ")"
		}
		fmt.Fprintf(w, "  /%s  %s\n", j.Path, why)
	}
	if len(l.Pages) < n {
		fmt.Fprintf(w, "  … and %d more\n", n-len(l.Pages))
	}
}
