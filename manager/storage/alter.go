package storage

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Comparing what matters (docs/developer/validation.md, "Compare what matters").
// Word-pair likeness alone lets a cheater alter a page and still match: a
// spam sentence in a long page scores 0.99, every number changed or every
// "is" negated 0.6 to 0.8, half the page replaced 0.53. So the texts are
// diffed word by word, and what the upload has that the checker's page
// has not is weighed on its own:
//
//   - a run of insertAt or more words: an inserted span (a spam sentence,
//     a paragraph, a replaced half);
//   - scattered words, together at least addedAt of them and addedShare of
//     the upload's: insertions (negations, a word here and there);
//   - numbers replaced by other numbers, at least numbersAt of them and
//     numbersShare of the upload's numbers: changed figures.
//
// Small replacements (a date, a counter, a corrected word) stay under
// these bounds; what the site added since the crawl (words only the
// checker's page has) is not held against the upload, unless the
// validators say the page did not change. A page that changes beyond the
// bounds by itself is told apart by the checkers' fetches disagreeing with
// each other (corroborate.go): undecidable, never a failure.
const (
	insertAt     = 6
	addedAt      = 6
	addedShare   = 0.02
	numbersAt    = 3
	numbersShare = 0.25
	// maxDiffWords bounds the words diffed per text: beyond, the texts
	// are compared by likeness alone (similarity). A diff costs about the
	// product of the text's length and the words that differ, so texts
	// less than changedText alike are not diffed either: they differ, and
	// likeness says so at a fraction of the cost (two unrelated texts of
	// 20,000 words took seconds to diff).
	maxDiffWords = 10000
)

// textDiff is what a diff of an upload's text against a checker's found.
type textDiff struct {
	Words int // words of the upload
	// Added are the upload's words not on the checker's page, in runs of
	// at most LongestAdded; Dropped the checker's words not in the
	// upload, in runs of at most LongestDropped.
	Added, LongestAdded     int
	Dropped, LongestDropped int
	// Numbers are the upload's numbers, NumbersChanged those the
	// checker's page has another number in place of.
	Numbers, NumbersChanged int
}

// words splits a text into lower-cased words of letters and digits, at
// most maxDiffWords+1 of them.
func words(text string) []string {
	var out []string
	for w := range strings.FieldsFuncSeq(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out = append(out, strings.ToLower(w))
		if len(out) > maxDiffWords {
			break
		}
	}
	return out
}

func isNumber(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// diffTexts diffs upload against fetched word by word. ok is false when
// either text has more than maxDiffWords words.
func diffTexts(upload, fetched string) (d textDiff, ok bool) {
	uw, fw := words(upload), words(fetched)
	if len(uw) > maxDiffWords || len(fw) > maxDiffWords {
		return textDiff{}, false
	}
	// Each distinct word becomes one rune, so the diff runs on words
	// (diffmatchpatch's line mode, applied to words).
	ids := map[string]rune{}
	toRunes := func(ws []string) []rune {
		rs := make([]rune, len(ws))
		for i, w := range ws {
			id, seen := ids[w]
			if !seen {
				id = rune(len(ids) + 1)
				if id >= 0xD800 { // skip the surrogate range
					id += 0x800
				}
				ids[w] = id
			}
			rs[i] = id
		}
		return rs
	}
	ur, fr := toRunes(uw), toRunes(fw)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // the same answer on a slow machine as on a fast one
	diffs := dmp.DiffMainRunes(fr, ur, false)
	d.Words = len(uw)
	for _, w := range uw {
		if isNumber(w) {
			d.Numbers++
		}
	}
	ui, fi := 0, 0 // positions in uw and fw
	for k, df := range diffs {
		n := len([]rune(df.Text))
		switch df.Type {
		case diffmatchpatch.DiffEqual:
			ui, fi = ui+n, fi+n
		case diffmatchpatch.DiffDelete: // on the checker's page only
			d.Dropped += n
			d.LongestDropped = max(d.LongestDropped, n)
			// A replacement is a deletion followed by an insertion: count
			// the numbers it swapped for numbers.
			if k+1 < len(diffs) && diffs[k+1].Type == diffmatchpatch.DiffInsert {
				m := min(n, len([]rune(diffs[k+1].Text)))
				for j := range m {
					if isNumber(fw[fi+j]) && isNumber(uw[ui+j]) {
						d.NumbersChanged++
					}
				}
			}
			fi += n
		case diffmatchpatch.DiffInsert: // in the upload only
			d.Added += n
			d.LongestAdded = max(d.LongestAdded, n)
			ui += n
		}
	}
	return d, true
}

// added tells whether words of the upload not on the checker's page go
// beyond what a page changes by itself, and how.
func (d textDiff) added() (string, bool) {
	switch {
	case d.LongestAdded >= insertAt:
		return fmt.Sprintf("a span of %d words not on the page", d.LongestAdded), true
	case d.Added >= addedAt && float64(d.Added) >= addedShare*float64(d.Words):
		return fmt.Sprintf("%d words not on the page", d.Added), true
	case d.NumbersChanged >= numbersAt && float64(d.NumbersChanged) >= numbersShare*float64(d.Numbers):
		return fmt.Sprintf("%d of %d numbers changed", d.NumbersChanged, d.Numbers), true
	}
	return "", false
}

// dropped tells whether words of the checker's page missing from the
// upload go beyond what a page changes by itself.
func (d textDiff) dropped() (string, bool) {
	switch {
	case d.LongestDropped >= insertAt:
		return fmt.Sprintf("a span of %d words of the page left out", d.LongestDropped), true
	case d.Dropped >= addedAt && float64(d.Dropped) >= addedShare*float64(d.Words):
		return fmt.Sprintf("%d words of the page left out", d.Dropped), true
	}
	return "", false
}

// altered compares an upload's text with a checker's: why, and true, when
// the upload holds what the page does not beyond its own variability, or,
// when strict (the validators say the page did not change), lacks what
// the page holds. Texts less than changedText alike differ; texts too
// long to diff are compared by likeness alone: at least sameText when
// strict, changedText otherwise.
func altered(upload, fetched string, strict bool) (string, bool) {
	sim := similarity(upload, fetched)
	if sim < changedText {
		return fmt.Sprintf("texts %.2f alike", sim), true
	}
	d, ok := diffTexts(upload, fetched)
	if !ok {
		if strict && sim < sameText {
			return fmt.Sprintf("texts %.2f alike", sim), true
		}
		return "", false
	}
	if why, bad := d.added(); bad {
		return why, true
	}
	if strict {
		return d.dropped()
	}
	return "", false
}

// sameText and changedText are the likeness two texts too long to diff
// must reach to match: under the same validators, and otherwise.
const (
	sameText    = 0.9
	changedText = 0.5
)
