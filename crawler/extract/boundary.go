package extract

import (
	"strings"
)

// Word boundaries. go-trafilatura keeps its tree the way lxml does, text
// and tail of each element, and trims every one of them (processNode):
// "If <em>src</em> and <em>dst</em>" comes back as "If", "src", "and",
// "dst" with the spaces gone. Its ContentText joins every text node with a
// space, which splits what an inline element cuts without a space
// ("shutil.<b>copy</b>()"); the tree rendered as it stands glues
// "Ifsrcanddst". Neither knows, so respace asks the page.

// maxRespaceScan bounds the bytes of the page's text respace searches, as
// a multiple of its length: a main text the page does not hold in order
// (extractors that reorder, or alter text) would otherwise cost a scan of
// the page for each word.
const maxRespaceScan = 8

// anchorBytes is how much of the main text (spaces and line breaks left
// out) must follow in the page for respace to take a place in the page as
// where the main text goes on: long enough to occur once in a page, short
// enough that a word or two cut by the extractor does not hide it.
const anchorBytes = 24

// respace puts back into text the word boundaries of page that it lost:
// text is a main text rendered from an extractor's tree (renderText), page
// the page's own text rendered from the parsed document; both normalised
// (normalizeText), so their bytes compare. Both are read with their spaces
// and line breaks left out, side by side: where they agree the page says
// where words end. Within a run that agrees, a space or line break of
// the page that text lacks is put in; one that text has where the page
// runs a word on is taken out (an extractor's block cut through the
// word); a line break where the page only has a space is a space
// (go-trafilatura ends a paragraph in a list item before its first inline
// element). Where they part (the extractor left the page's template out,
// or moved or changed text), the next anchorBytes of text are looked up
// in the page, after the place reached first and then before it, once
// for each word of text, within a bound on the bytes searched; text the
// page does not hold is left as it is.
func respace(text, page string) string {
	s, _ := respaceScan(text, page)
	return s
}

// respaceScan is respace, and also returns the bytes of the page it
// searched.
func respaceScan(text, page string) (string, int) {
	p := squeeze(page)
	t := squeeze(text)
	if text == "" || len(p.flat) == 0 {
		return text, 0
	}
	limit := maxRespaceScan*len(p.flat) + 1<<16
	var (
		sb     strings.Builder
		budget = limit
		j      int  // the place in p.flat that t.flat[k] is matched to
		synced bool // t.flat[k-1] matched p.flat[j-1]
		ti     int  // bytes of text written
	)
	sb.Grow(len(text) + len(text)/16)
	for k := 0; k < len(t.flat); k++ {
		// The spaces and line breaks of text before t.flat[k].
		sepStart := ti
		for text[ti] == ' ' || text[ti] == '\n' {
			ti++
		}
		sep := text[sepStart:ti]
		ti++
		wordStart := k == 0 || sep != ""
		parted := synced && (j >= len(p.flat) || p.flat[j] != t.flat[k] ||
			wordStart && !strings.HasPrefix(p.flat[j:], t.flat[k:min(len(t.flat), k+anchorBytes)]) &&
				!p.wordAt(text[ti-1:wordEnd(text, ti-1)], j))
		if parted {
			synced = false
		}
		if !synced && (wordStart || parted) && budget > 0 {
			// Find where the text goes on in the page: at each word,
			// and where the two part within one.
			at, scanned := p.lookup(t.flat[k:min(len(t.flat), k+anchorBytes)], j, budget)
			budget -= scanned
			if end := wordEnd(text, ti-1); at < 0 && wordStart && budget > 0 {
				// What follows the word may be missing from the page:
				// the word alone, as whole words of the page.
				at, scanned = p.find(text[ti-1:end], j, budget)
				budget -= scanned
			}
			if at >= 0 {
				j, synced = at, true
				sb.WriteString(sep)
				sb.WriteByte(t.flat[k])
				j++
				continue
			}
		}
		if !synced {
			sb.WriteString(sep)
			sb.WriteByte(t.flat[k])
			continue
		}
		switch {
		case j == 0 || !p.gap(j):
			// The page runs the word on: so does the text.
		case sep == "":
			sb.WriteByte(' ')
		case strings.IndexByte(sep, '\n') >= 0 && !p.line(j):
			sb.WriteByte(' ')
		default:
			sb.WriteString(sep)
		}
		sb.WriteByte(t.flat[k])
		j++
	}
	sb.WriteString(text[ti:])
	return sb.String(), limit - budget
}

// squeezed is a text without its spaces and line breaks, and where they
// stood.
type squeezed struct {
	flat string
	// bits has bit i set when a space or line break stood before
	// flat[i]; bit len(flat) is set too (the text's end is a word's).
	// lines has bit i set when a line break did.
	bits, lines []uint64
	gaps        int // spaces and line breaks inside the text, runs counted once
}

// squeeze removes the spaces and line breaks of s.
func squeeze(s string) squeezed {
	var sb strings.Builder
	sb.Grow(len(s))
	bits := make([]uint64, len(s)/64+1)
	lines := make([]uint64, len(s)/64+1)
	gaps := 0
	gap, line := true, false // the start of s starts a word
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ' ' || c == '\n' {
			gap = true
			line = line || c == '\n'
			continue
		}
		if gap {
			n := sb.Len()
			bits[n/64] |= 1 << (n % 64)
			if line {
				lines[n/64] |= 1 << (n % 64)
			}
			if n > 0 {
				gaps++
			}
			gap, line = false, false
		}
		sb.WriteByte(s[i])
	}
	n := sb.Len()
	bits[n/64] |= 1 << (n % 64)
	return squeezed{flat: sb.String(), bits: bits[:n/64+1], lines: lines[:n/64+1], gaps: gaps}
}

// gap reports whether a word of the text starts (or ends) at flat[i].
func (p squeezed) gap(i int) bool { return p.bits[i/64]&(1<<(i%64)) != 0 }

// line reports whether a line of the text starts at flat[i].
func (p squeezed) line(i int) bool { return p.lines[i/64]&(1<<(i%64)) != 0 }

// lookup returns where s stands in flat, first looking from from on
// and then before it, -1 if nowhere within budget bytes read; and the
// bytes it read.
func (p squeezed) lookup(s string, from, budget int) (at, scanned int) {
	after := p.flat[from:min(len(p.flat), from+budget)]
	if k := strings.Index(after, s); k >= 0 {
		return from + k, k + len(s)
	}
	scanned = len(after)
	before := p.flat[:min(from+len(s), len(p.flat), max(0, budget-scanned))]
	if k := strings.Index(before, s); k >= 0 {
		return k, scanned + k + len(s)
	}
	return -1, scanned + len(before)
}

// wordEnd returns the end of the word of text that starts at i.
func wordEnd(text string, i int) int {
	for i < len(text) && text[i] != ' ' && text[i] != '\n' {
		i++
	}
	return i
}

// find returns the first offset at or after from where word stands in
// flat as a run of whole words, -1 if none does within budget bytes; and
// the bytes it read.
func (p squeezed) find(word string, from, budget int) (at, scanned int) {
	start := from
	for budget-(from-start) > 0 {
		rest := p.flat[from:min(len(p.flat), from+budget-(from-start))]
		k := strings.Index(rest, word)
		if k < 0 {
			return -1, from - start + len(rest)
		}
		at = from + k
		if p.gap(at) && p.gap(at+len(word)) {
			return at, at + len(word) - start
		}
		from = at + 1
	}
	return -1, from - start
}

// wordAt reports whether word stands in flat at i as a run of whole words
// (the page's text goes on as text does for a word at least).
func (p squeezed) wordAt(word string, i int) bool {
	return strings.HasPrefix(p.flat[i:], word) && p.gap(i+len(word))
}
