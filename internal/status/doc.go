// Package status is the page an operator looks at rather than the log:
// per site, whether it is served well and why not, what its sitemaps
// list and leave out (by group, by reason, with examples), where its
// lastmods come from, what each search engine is owed and how it last
// answered, and charts of the changes published and the submissions
// made over the last day and month.
//
// Three parts, each with a narrow contract:
//
//   - History (history.go) remembers a site's publishes and submissions in
//     the site's state directory (FileName), bounded: hourly buckets for
//     the last Hours, daily buckets for the last Days (UTC), and the last
//     MaxPublishes publishes and MaxSubmissions submissions in detail. The
//     daemon calls RecordPublish after every publish and RecordSubmission
//     after every request to an endpoint. Each record rewrites the file
//     whole as the notifier writes its ledger (temp file, fsync, rename,
//     directory fsync, through internal/publish), so a crash at any
//     instant leaves the old file or the new one. A file that cannot be
//     read, or of another version, is moved aside with a warning and a
//     fresh history starts: the history is a picture for people, and
//     never stops the daemon. A save that fails is returned for the
//     caller to log; the record stays in memory.
//   - Snapshot (snapshot.go) is plain data the daemon fills for one site
//     at one moment. It holds no filesystem path, key or secret: groups
//     are named by URL path, examples are page URLs, and an endpoint's
//     configured URL is only shown through redact.URL (Endpoint.Shown).
//     HealthOf reads /healthz's status and reason into its Health.
//     WriteText writes it for a terminal (`sitemapd status`).
//   - Handler (handler.go) serves /status from a Source (the daemon's
//     sites and a Snapshot of each, taken per request): one site's page,
//     or the list of a process's sites linking to ?site=NAME;
//     ?format=text answers with WriteText's text. The page is rendered on the server by html/template
//     from page.html, with its style sheet inline and nothing else: no
//     script, no image, no font, nothing fetched, and a
//     Content-Security-Policy that allows only that style sheet (by hash).
//     It reads without JavaScript (the groups expand with
//     <details>/<summary>), fits a phone's width, and each chart has a
//     title, a description and its data as a table.
//
// The charts are SVG drawn here (chart.go), some hundred lines: columns
// and stacked rows with a title per bar and a data-count attribute that
// the tests count. No Go charting library fits: github.com/wcharczuk/go-chart
// is archived (unmaintained, and it draws a whole image with its own
// fonts, not markup the page can style and label); go-echarts renders
// through ECharts' JavaScript, loaded from a CDN by default; and either
// would be a dependency larger than the code it saves, for three bar
// charts.
//
// Accessibility is held to by tests in a real browser (browser_test.go:
// headless Chromium through chromedp): the html element's lang, one h1
// and headings in order, every table's header cells, every chart's
// accessible name, and the contrast of every text's colour on its
// background of at least 4.5:1.
package status
