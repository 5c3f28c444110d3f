package sitemap

import (
	"strings"
	"time"
)

// westmost is how far behind UTC the westernmost time zone is: a time
// written without a zone means at the latest that much after UTC.
const westmost = 12 * time.Hour

// lastModLayouts are the W3C Datetime forms (https://www.w3.org/TR/NOTE-datetime),
// and the same without a time zone, which sites often write; each with the
// length of the period it names.
var lastModLayouts = []struct {
	layout string
	zoned  bool
	period func(time.Time) time.Time // end of the period starting at t
}{
	{"2006-01-02T15:04:05Z07:00", true, same}, // fractions of a second parse too
	{"2006-01-02T15:04Z07:00", true, plus(time.Minute)},
	{"2006-01-02T15:04:05", false, same},
	{"2006-01-02T15:04", false, plus(time.Minute)},
	{"2006-01-02", false, func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
	{"2006-01", false, func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
	{"2006", false, func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
}

func same(t time.Time) time.Time { return t }

func plus(d time.Duration) func(time.Time) time.Time {
	return func(t time.Time) time.Time { return t.Add(d) }
}

// parseLastMod returns the latest instant a <lastmod> value can mean (see
// Entry.LastMod), in UTC, or zero.
func parseLastMod(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, l := range lastModLayouts {
		t, err := time.Parse(l.layout, s)
		if err != nil {
			continue
		}
		end := l.period(t)
		if !l.zoned {
			end = end.Add(westmost)
		}
		return end.UTC()
	}
	return time.Time{}
}
