package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/fleet"
	"github.com/sitemapd/sitemapd/internal/ping"
)

type fleetFlags struct{ timeout time.Duration }

func (f *fleetFlags) define(fs *flag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "how long to wait for etcd")
}

// cmdFleet prints what etcd holds of each site's fleet: its servers, the
// leader, the versions recorded.
func cmdFleet(args []string, stdout, stderr io.Writer) int {
	var f fleetFlags
	path, site, ok := parseConfigFlag("fleet", args, stderr, f.define)
	if !ok {
		return ExitUsage
	}
	_, sites, ok := loadSites(path, site, stderr)
	if !ok {
		return ExitUsage
	}
	status, any := ExitOK, false
	for _, cfg := range sites {
		if !cfg.Fleet.On() {
			continue
		}
		any = true
		if !printFleet(cfg, f.timeout, stdout, stderr) {
			status = ExitFailure
		}
	}
	if !any {
		fmt.Fprintf(stderr, "sitemapd fleet: %s: no fleet (fleet.etcd.endpoints is not set)\n", path)
		return ExitFailure
	}
	return status
}

// printFleet prints one site's fleet, reporting whether etcd answered.
func printFleet(cfg *config.Config, timeout time.Duration, stdout, stderr io.Writer) bool {
	a, err := fleet.New(&cfg.Fleet, zap.NewNop())
	if err != nil {
		fmt.Fprintf(stderr, "sitemapd fleet: %v\n", err)
		return false
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	v, err := a.Inspect(ctx)
	if err != nil {
		fmt.Fprintf(stdout, "fleet %s: etcd unreachable: %v\n", cfg.Fleet.Prefix, err)
		return false
	}
	names := slices.Clone(v.Servers)
	if len(names) > 0 {
		names[0] += " (leader: sends the notifications, submits to Search Console)"
	}
	servers := strings.Join(names, ", ")
	if servers == "" {
		servers = "none running"
	}
	me, state := cfg.Fleet.ServerName(), "running"
	if !slices.Contains(v.Servers, me) {
		state = "not running, or not connected to etcd"
	}
	fmt.Fprintf(stdout, "fleet %s (%d etcd endpoints, revision %d)\n", cfg.Fleet.Prefix, len(cfg.Fleet.Etcd.Endpoints), v.Revision)
	fmt.Fprintf(stdout, "servers: %s\n", servers)
	fmt.Fprintf(stdout, "this server: %s, %s\n", me, state)
	printSitemaps(stdout, me, v.Peers)
	printOwed(stdout, cfg, v)
	fmt.Fprintf(stdout, "versions recorded: %d\n", v.Versions)
	return true
}

// printSitemaps says whether this server's sitemaps are the others': the
// digest each server wrote after its last publish that changed them.
func printSitemaps(w io.Writer, me string, peers []fleet.Peer) {
	var mine *fleet.Peer
	for i := range peers {
		if peers[i].Name == me {
			mine = &peers[i]
		}
	}
	same, differ := []string{}, []string{}
	for _, p := range peers {
		fmt.Fprintf(w, "  %s: sitemaps %s (%d files) since %s\n", p.Name, p.Sum, p.Files, p.Since.Format(time.RFC3339))
		switch {
		case p.Name == me || mine == nil:
		case p.Sum == mine.Sum:
			same = append(same, p.Name)
		default:
			differ = append(differ, p.Name)
		}
	}
	switch {
	case mine == nil:
		fmt.Fprintln(w, "sitemaps: this server has published no digest (not running, not connected, or nothing published yet)")
	case len(peers) == 1:
		fmt.Fprintln(w, "sitemaps: no other server to compare with")
	case len(differ) == 0:
		fmt.Fprintf(w, "sitemaps: this server's match %s's\n", strings.Join(same, ", "))
	default:
		fmt.Fprintf(w, "sitemaps: this server's differ from %s's: mid-deploy (a copy not yet deployed, or a change not yet published), "+
			"or copies that differ; run again at a quiet moment\n", strings.Join(differ, ", "))
	}
}

// printOwed says what the fleet owes the search engines: what this
// server owes (its state_dir: what the leader has not sent, as this
// server saw it), the batches in flight, the marks of the last hour.
func printOwed(w io.Writer, cfg *config.Config, v fleet.View) {
	owed, err := ping.Owed(cfg.StateDir)
	if err != nil {
		fmt.Fprintf(w, "owed by this server: cannot be read: %v\n", err)
	} else {
		var parts []string
		for _, ep := range cfg.Notify.Endpoints {
			if ep.Kind == config.IndexNow || ep.Kind == config.Ping {
				parts = append(parts, fmt.Sprintf("%s %d URLs", ep.Name, owed[ep.Name]))
			}
		}
		if len(parts) == 0 {
			parts = []string{"no IndexNow or ping endpoint"}
		}
		fmt.Fprintf(w, "owed by this server: %s (what the leader has not sent, as this server saw it: each server keeps its own)\n", strings.Join(parts, ", "))
	}
	for _, b := range v.InFlight {
		fmt.Fprintf(w, "in flight: %s: %d URLs sent by %s, not yet marked sent (sent again by the next leader if %s stopped)\n", b.Endpoint, b.URLs, b.Writer, b.Writer)
	}
	fmt.Fprintf(w, "batches marked sent in the last hour: %d\n", v.Marks)
}
