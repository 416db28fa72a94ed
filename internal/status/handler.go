package status

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"time"

	"go.uber.org/zap"
)

//go:embed page.html
var pageHTML string

//go:embed style.css
var styleCSS string

// pages are page.html's templates: "site" and "overview".
var pages = template.Must(template.New("page").Funcs(template.FuncMap{
	"css":   func() template.CSS { return template.CSS(styleCSS) },
	"num":   num,
	"count": count,
}).Parse(pageHTML))

// csp allows the page nothing but its own inline style sheet, by hash:
// no script, no image, no font, no frame, nothing fetched. A page that
// needed anything else would show its violation in the browser's console,
// which the browser test fails on.
var csp = func() string {
	sum := sha256.Sum256([]byte(styleCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

// Source is what the handler shows: the daemon's sites.
type Source interface {
	// Sites names the sites served, in the order the overview lists them.
	Sites() []string
	// Snapshot is the named site's status now; false when no such site is
	// served.
	Snapshot(site string) (Snapshot, bool)
}

// Handler serves the status page: GET /status shows the one site of a
// process, or lists a process's sites, each linking to ?site=NAME, its
// page. ?format=text answers with the text WriteText writes, for
// terminals and scripts.
type Handler struct {
	src Source
	log *zap.Logger
	now func() time.Time
}

// NewHandler returns the handler of the sites src serves. Mount it where
// the listener serves /status; it answers whatever path it is given.
func NewHandler(src Source, log *zap.Logger) *Handler {
	if log == nil {
		log = zap.NewNop()
	}
	return &Handler{src: src, log: log.Named("status"), now: time.Now}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	text := q.Get("format") == "text"
	site, named := q.Get("site"), q.Has("site")
	names := h.src.Sites()
	if !named && len(names) == 1 {
		site, named = names[0], true
	}
	var buf bytes.Buffer
	var err error
	switch {
	case named:
		s, ok := h.src.Snapshot(site)
		if !ok {
			http.Error(w, "no site is named "+site, http.StatusNotFound)
			return
		}
		overview := ""
		if len(names) > 1 {
			overview = r.URL.Path
		}
		if text {
			err = s.WriteText(&buf)
		} else {
			err = pages.ExecuteTemplate(&buf, "site", newSitePage(&s, overview))
		}
	default:
		snaps := make([]Snapshot, 0, len(names))
		for _, n := range names {
			if s, ok := h.src.Snapshot(n); ok { // gone meanwhile: not listed
				snaps = append(snaps, s)
			}
		}
		if text {
			err = writeOverviewText(&buf, h.now(), snaps)
		} else {
			err = pages.ExecuteTemplate(&buf, "overview", newOverviewPage(h.now(), snaps))
		}
	}
	if err != nil {
		h.log.Error("render the status page", zap.Error(err))
		http.Error(w, "the status page could not be rendered; see the log", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	if text {
		hd.Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		hd.Set("Content-Type", "text/html; charset=utf-8")
		hd.Set("Content-Security-Policy", csp)
	}
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	if r.Method == http.MethodHead {
		return
	}
	w.Write(buf.Bytes())
}
