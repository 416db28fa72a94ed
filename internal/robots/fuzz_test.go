package robots

import (
	"net/url"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// FuzzRules compares Rules with Google's parser (grobotstxt) on any
// robots.txt, any agent a configuration accepts (pages.robots_agent must
// not be blank) and any site path. The path is taken as grobotstxt takes
// the URL it makes: paths that are no URL's, or that hold a fragment, are
// skipped (no page has one), and any other is compared in the form
// grobotstxt brings it to (its URL parsed and printed again), which is
// the form of a site path.
//
// grobotstxt is a port, and it erred where Rules followed it: it turned
// patterns with lower-case escapes into ones that match nothing. It is
// asked about the file with its escapes upper-cased (googleEscapes,
// written apart from the fix in Rules, so that each checks the other);
// TestGoogleVerdicts is the outside oracle, the answers of Google's own
// C++ matcher, for Rules and for this one.
func FuzzRules(f *testing.F) {
	for _, c := range append(cases(), googleCases()...) {
		if len(c.body) > 4<<10 {
			continue // the long ones slow every run down
		}
		for _, u := range c.urls {
			f.Add(c.body, c.agent, sitePath(f, u))
		}
	}
	f.Fuzz(func(t *testing.T, body, agent, path string) {
		if strings.TrimSpace(agent) == "" || strings.Contains(path, "#") {
			t.Skip()
		}
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		u, err := url.Parse("http://static.test" + path)
		if err != nil {
			t.Skip()
		}
		p := sitePath(t, u.String())
		read := body
		if len(read) > maxSize {
			read = read[:maxSize] // as Google reads it
		}
		want := grobotstxt.AgentAllowed(googleEscapes(read), agent, "http://static.test"+path)
		if again := oracle(body, agent, p); again != want {
			t.Fatalf("grobotstxt answers %v for path %q and %v for %q", want, path, again, p)
		}
		r := parse([]byte(body), agent)
		if got := r.Allowed(p); got != want {
			t.Errorf("Allowed(%q) = %v, Google's parser says %v\nagent %q, robots.txt %q", p, got, want, agent, body)
		}
		if !want && r.AllowsAll() {
			t.Errorf("AllowsAll, but %q is disallowed", p)
		}
	})
}
