// Command runstat runs a command and prints its wall time, CPU time (user +
// system, children included) and peak resident set size as one JSON line:
// the whole-process figures the bench scripts compare.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: runstat LABEL COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdout, cmd.Stderr = nil, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "runstat:", err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"label":       os.Args[1],
		"wall_s":      wall.Seconds(),
		"cpu_s":       cpu.Seconds(),
		"peak_rss_mb": float64(ru.Maxrss) / 1024,
	})
}
