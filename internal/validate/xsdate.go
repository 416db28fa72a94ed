package validate

import "math"

// xsDateOrDateTime reports whether v is an xs:date or an xs:dateTime, the
// union sitemap.xsd takes for <lastmod>: a year of four digits or more
// (not 0000, a leading '-' for years before 1), a month and a day that
// exist in it, then for a dateTime "T" and hours, minutes and seconds
// (24:00:00 allowed), with an optional fraction of a second; either may
// end with a time zone, Z or ±hh:mm within ±14:00.
func xsDateOrDateTime(v string) bool {
	l := &dateLexer{s: collapse(v)}
	if !l.date() {
		return false
	}
	if l.take('T') && !l.timeOfDay() {
		return false
	}
	return l.zone() && l.i == len(l.s)
}

// dateLexer reads an xs:date or xs:dateTime from its start.
type dateLexer struct {
	s string
	i int
}

// take consumes c if it is next.
func (l *dateLexer) take(c byte) bool {
	if l.i < len(l.s) && l.s[l.i] == c {
		l.i++
		return true
	}
	return false
}

// digits consumes exactly n digits and returns their value.
func (l *dateLexer) digits(n int) (int, bool) {
	if len(l.s) < l.i+n {
		return 0, false
	}
	x := 0
	for _, c := range []byte(l.s[l.i : l.i+n]) {
		if !isDigit(c) {
			return 0, false
		}
		x = x*10 + int(c-'0')
	}
	l.i += n
	return x, true
}

// date reads the year, the month and the day, which must exist.
func (l *dateLexer) date() bool {
	neg := l.take('-')
	first := l.i
	var year int64
	for ; l.i < len(l.s) && isDigit(l.s[l.i]); l.i++ {
		if year > (math.MaxInt64-9)/10 {
			return false
		}
		year = year*10 + int64(l.s[l.i]-'0')
	}
	if n := l.i - first; n < 4 || n > 4 && l.s[first] == '0' || year == 0 {
		return false
	}
	if neg {
		year = -year
	}
	if !l.take('-') {
		return false
	}
	mon, ok := l.digits(2)
	if !ok || mon < 1 || mon > 12 || !l.take('-') {
		return false
	}
	day, ok := l.digits(2)
	return ok && day >= 1 && day <= daysIn(year, mon)
}

// timeOfDay reads hh:mm:ss with an optional fraction; 24:00:00 is the
// end of the day, with no fraction but zeros.
func (l *dateLexer) timeOfDay() bool {
	h, ok := l.digits(2)
	if !ok || h > 24 || !l.take(':') {
		return false
	}
	m, ok := l.digits(2)
	if !ok || m > 59 || !l.take(':') {
		return false
	}
	sec, ok := l.digits(2)
	if !ok {
		return false
	}
	frac := false
	if l.take('.') {
		if l.i >= len(l.s) || !isDigit(l.s[l.i]) {
			return false
		}
		for ; l.i < len(l.s) && isDigit(l.s[l.i]); l.i++ {
			frac = frac || l.s[l.i] != '0'
		}
	}
	return sec <= 59 && !(h == 24 && (m != 0 || sec != 0 || frac))
}

// zone reads an optional time zone: Z, or ±hh:mm within ±14:00.
func (l *dateLexer) zone() bool {
	switch {
	case l.i == len(l.s), l.take('Z'):
		return true
	case l.take('+'), l.take('-'):
		h, ok := l.digits(2)
		if !ok || h > 23 || !l.take(':') {
			return false
		}
		m, ok := l.digits(2)
		return ok && m <= 59 && h*60+m <= 14*60
	}
	return false
}

// daysIn is the number of days of a month; leap years as libxml2 counts
// them (C's remainder, so -4 is a leap year and -100 is not).
func daysIn(year int64, mon int) int {
	if mon == 2 && (year%4 == 0 && year%100 != 0 || year%400 == 0) {
		return 29
	}
	return [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[mon-1]
}
