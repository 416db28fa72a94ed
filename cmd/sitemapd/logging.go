package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"

	"github.com/sitemapd/sitemapd/internal/config"
)

// newLogger logs to w. Format "auto" is readable text on a terminal and
// in the journal, JSON elsewhere (containers, files). When w is the
// journal's stream (systemd's JOURNAL_STREAM), every line starts with its
// priority, "<3>" to "<7>" as sd-daemon(3) describes, which journald takes
// off and keeps as the entry's priority: `journalctl -p warning` then
// shows the warnings and errors. The journal stamps each entry, so text
// lines carry no time there.
func newLogger(c config.Log, w io.Writer) *zap.Logger {
	level, err := zapcore.ParseLevel(c.Level)
	if err != nil {
		level = zapcore.InfoLevel
	}
	journal := isJournal(w)
	terminal := false
	if f, ok := w.(*os.File); ok && !journal {
		terminal = term.IsTerminal(int(f.Fd()))
	}
	format := c.Format
	if format == "auto" {
		format = "json"
		if journal || terminal {
			format = "console"
		}
	}
	ec := zap.NewProductionEncoderConfig()
	ec.EncodeTime = zapcore.ISO8601TimeEncoder
	var enc zapcore.Encoder
	if format == "console" {
		ec.EncodeLevel = zapcore.CapitalLevelEncoder
		if terminal {
			ec.EncodeLevel = zapcore.CapitalColorLevelEncoder
		}
		if journal {
			ec.TimeKey = zapcore.OmitKey
		}
		enc = zapcore.NewConsoleEncoder(ec)
	} else {
		enc = zapcore.NewJSONEncoder(ec)
	}
	if journal {
		enc = journalEncoder{enc}
	}
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(w), level))
}

// isJournal reports whether w is the stream systemd connected to the
// journal: JOURNAL_STREAM holds its device and inode numbers
// ("DEV:INODE", systemd.exec(5)), which must be w's own (the variable is
// inherited by children whose stderr may be elsewhere).
func isJournal(w io.Writer) bool {
	devIno := os.Getenv("JOURNAL_STREAM")
	f, ok := w.(*os.File)
	if devIno == "" || !ok {
		return false
	}
	d, i, _ := strings.Cut(devIno, ":")
	dev, err1 := strconv.ParseUint(d, 10, 64)
	ino, err2 := strconv.ParseUint(i, 10, 64)
	fi, err := f.Stat()
	if err1 != nil || err2 != nil || err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(st.Dev) == dev && uint64(st.Ino) == ino
}

// journalEncoder starts every line with its entry's syslog priority.
type journalEncoder struct{ zapcore.Encoder }

var journalBuffers = buffer.NewPool()

func (e journalEncoder) Clone() zapcore.Encoder { return journalEncoder{e.Encoder.Clone()} }

func (e journalEncoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	in, err := e.Encoder.EncodeEntry(ent, fields)
	if err != nil {
		return nil, err
	}
	defer in.Free()
	prefix := priority(ent.Level)
	out := journalBuffers.Get()
	// A message of several lines is several entries: each gets the prefix.
	rest := in.Bytes()
	for len(rest) > 0 {
		out.AppendString(prefix)
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		out.AppendBytes(line)
		rest = rest[len(line):]
	}
	return out, nil
}

// priority is a level's sd-daemon(3) prefix.
func priority(l zapcore.Level) string {
	switch {
	case l <= zapcore.DebugLevel:
		return "<7>"
	case l == zapcore.InfoLevel:
		return "<6>"
	case l == zapcore.WarnLevel:
		return "<4>"
	case l == zapcore.ErrorLevel:
		return "<3>"
	}
	return "<2>" // dpanic, panic, fatal: critical
}
