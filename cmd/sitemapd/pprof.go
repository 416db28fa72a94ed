//go:build pprof

package main

// Built with -tags pprof, sitemapd serves net/http/pprof on the address
// SITEMAPD_PPROF names (127.0.0.1:6060, say): how bench/README.md's
// memory figures were profiled (go tool pprof
// http://127.0.0.1:6060/debug/pprof/heap). Never in a release build.

import (
	"fmt"
	"net/http"
	_ "net/http/pprof"
	"os"
)

func init() {
	if addr := os.Getenv("SITEMAPD_PPROF"); addr != "" {
		go func() {
			if err := http.ListenAndServe(addr, nil); err != nil {
				fmt.Fprintln(os.Stderr, "sitemapd: pprof:", err)
			}
		}()
	}
}
