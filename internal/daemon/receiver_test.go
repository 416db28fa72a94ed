package daemon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/indexnowtest"
)

// receiver is the tests' IndexNow endpoint on 127.0.0.1 (indexnowtest),
// whose counts leave out the harness's sync pages.
type receiver struct{ *indexnowtest.Receiver }

func newReceiver(t *testing.T) *receiver { return &receiver{indexnowtest.Start(t)} }

// notify is the configuration's notify key, sending to the receiver every
// second.
func (rc *receiver) notify() string {
	return fmt.Sprintf("notify: {attempts: 1, endpoints: [{name: in, kind: indexnow, url: %q, key: 0123456789abcdef, schedule: \"@every 1s\"}]}\n", rc.URL)
}

// pages are the URLs accepted since mark but the harness's sync pages,
// with how often.
func (rc *receiver) pages(mark int) map[string]int {
	out := rc.Counts(mark)
	for u := range out {
		if strings.Contains(u, "/zz-sync-") {
			delete(out, u)
		}
	}
	return out
}
