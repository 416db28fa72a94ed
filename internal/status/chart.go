package status

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// The charts are drawn here, as data for page.html's SVG: a chart is a
// handful of rectangles and labels, which html/template escapes like any
// other text. Coordinates are in the SVG's viewBox, which the page scales
// to its width; font sizes are chosen so that a phone's narrow screen
// still shows them at some 10 CSS pixels.
const (
	chartW    = 520.0 // viewBox width
	chartH    = 240.0 // viewBox height of a column chart
	padLeft   = 44.0  // room for the y axis labels
	padRight  = 4.0
	padTop    = 12.0
	padBottom = 30.0 // room for the x axis labels
	fontSize  = 18.0
	rowLabel  = 24.0 // a bar row's label line
	rowBar    = 24.0 // a bar row's bar
	rowGap    = 12.0
)

// chart is one SVG chart.
type chart struct {
	ID      string // unique on the page: the ids of its title and desc
	Title   string // its accessible name
	Desc    string // what it shows, in words
	W, H    float64
	Bars    []bar
	Ticks   []tick  // horizontal grid lines with their values (column charts)
	Left    float64 // where the plot begins, right of the y axis labels
	Right   float64 // where it ends
	XLabels []label // under the columns; beside the rows
	Empty   bool    // nothing to draw: the page says so in words instead
}

// bar is one rectangle: a column, or a segment of a stacked row.
type bar struct {
	X, Y, W, H float64
	Count      int
	Class      string // its colour (page.html's CSS)
	Title      string // its tooltip and accessible text
}

type tick struct {
	Y     float64
	Value int
}

type label struct {
	X, Y   float64
	Text   string
	Anchor string // text-anchor
}

// column is one value of a column chart.
type column struct {
	Count int
	Label string // under the column; "" for none
	Title string
}

// columnChart draws one column per value, left to right.
func columnChart(id, title, desc string, cols []column) chart {
	c := chart{ID: id, Title: title, Desc: desc, W: chartW, H: chartH, Left: padLeft, Right: chartW - padRight}
	top := 0
	for _, col := range cols {
		top = max(top, col.Count)
	}
	top = niceCeil(top)
	plotW := chartW - padLeft - padRight
	plotH := chartH - padTop - padBottom
	base := padTop + plotH
	for _, v := range []int{0, top / 2, top} {
		if v == top/2 && top%2 != 0 {
			continue // an odd top: no half tick that would round
		}
		c.Ticks = append(c.Ticks, tick{Y: round(base - plotH*float64(v)/float64(top)), Value: v})
	}
	slot := plotW / float64(len(cols))
	for i, col := range cols {
		h := plotH * float64(col.Count) / float64(top)
		x := padLeft + slot*float64(i)
		c.Bars = append(c.Bars, bar{
			X: round(x + slot*0.15), Y: round(base - h), W: round(slot * 0.7), H: round(h),
			Count: col.Count, Class: "bar", Title: col.Title,
		})
		if col.Label != "" {
			l := label{X: round(x + slot/2), Y: chartH - 8, Text: col.Label, Anchor: "middle"}
			if l.X+textWidth(l.Text)/2 > chartW { // the last column's: kept inside, ending at the edge
				l.X, l.Anchor = chartW, "end"
			}
			c.XLabels = append(c.XLabels, l)
		}
	}
	return c
}

// row is one stacked bar of a row chart: its segments in order.
type row struct {
	Label    string
	Segments []segment
}

type segment struct {
	Count int
	Class string
	Title string
}

// rowChart draws one horizontal stacked bar per row, its label above it
// (so that a long endpoint name does not squeeze the bar on a phone) and
// its total after it. Segments of no count are not drawn.
func rowChart(id, title, desc string, rows []row) chart {
	c := chart{ID: id, Title: title, Desc: desc, W: chartW}
	top := 0
	for _, r := range rows {
		top = max(top, total(r.Segments))
	}
	c.Empty = top == 0
	if c.Empty {
		return c
	}
	// Room after the longest bar for its total.
	plotW := chartW - padRight - fontSize*float64(len(strconv.Itoa(top))+1)
	y := padTop
	for _, r := range rows {
		c.XLabels = append(c.XLabels, label{X: 0, Y: round(y + fontSize), Text: r.Label, Anchor: "start"})
		y += rowLabel + 4
		x := 0.0
		for _, s := range r.Segments {
			if s.Count == 0 {
				continue
			}
			w := plotW * float64(s.Count) / float64(top)
			c.Bars = append(c.Bars, bar{X: round(x), Y: round(y), W: round(w), H: rowBar, Count: s.Count, Class: s.Class, Title: s.Title})
			x += w
		}
		c.XLabels = append(c.XLabels, label{X: round(x + 6), Y: round(y + rowBar - 5), Text: strconv.Itoa(total(r.Segments)), Anchor: "start"})
		y += rowBar + rowGap
	}
	c.H = round(y)
	return c
}

// textWidth estimates a label's width: some 0.6 em a character.
func textWidth(s string) float64 { return float64(len([]rune(s))) * fontSize * 0.6 }

func total(ss []segment) int {
	n := 0
	for _, s := range ss {
		n += s.Count
	}
	return n
}

// niceCeil is the smallest of 1, 2, 5, 10, 20, 50… that is at least n
// (and at least 1, so that an empty chart has a scale).
func niceCeil(n int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
		if p > math.MaxInt/100 {
			return n
		}
	}
}

// round keeps two decimals: enough for a screen, and stable text for the
// golden files.
func round(f float64) float64 { return math.Round(f*100) / 100 }

// num formats a coordinate without a trailing ".00".
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// answerClass is the CSS class of an answer's colour.
func answerClass(a Answer) string { return fmt.Sprintf("a%d", a) }

// endpointNames lists the endpoints the buckets name, in the order given
// first (the configuration's), then any others (an endpoint removed since)
// by name.
func endpointNames(configured []string, buckets []Bucket) []string {
	out := slices.Clone(configured)
	var more []string
	for _, b := range buckets {
		for name := range b.Submissions {
			if !slices.Contains(out, name) && !slices.Contains(more, name) {
				more = append(more, name)
			}
		}
	}
	slices.Sort(more)
	return append(out, more...)
}
