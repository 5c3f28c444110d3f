package storage

import "math"

// Credit weights; see Credits.
const (
	CreditPerNewPage       = 1.0
	CreditPerChangedPage   = 1.0
	CreditPerUnchangedPage = 0.1
	CreditPerMiB           = 0.5
)

// Credits is the credit formula:
//
//	credits = 1.0 × new pages + 1.0 × changed pages
//	        + 0.1 × unchanged pages (checked, not re-sent)
//	        + 0.5 × MiB of compressed text stored
//
// rounded to hundredths. A new or changed page is what the search engine
// needs, so it earns most; confirming that a known page is unchanged
// costs the volunteer a request (usually a 304), so it earns a little;
// bytes add a small share for hosts with long pages. A duplicate result or
// one for a task never issued earns 0.
func Credits(newPages, changed, unchanged int, bytes int64) float64 {
	c := CreditPerNewPage*float64(newPages) + CreditPerChangedPage*float64(changed) +
		CreditPerUnchangedPage*float64(unchanged) + CreditPerMiB*float64(bytes)/(1<<20)
	return math.Round(c*100) / 100
}
