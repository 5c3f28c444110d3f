package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hivecrawl/hivecrawl/crawler/export"
)

// CDXJ index files: one beside every WARC file, named after it
// (hivecrawl-….warc.gz → hivecrawl-….cdxj), one line per conversion and
// response record in file order, as pywb and cdxj-indexer write them:
//
//	com,example)/a 20261122120000 {"url": "http://example.com/a", "mime": "text/plain", "status": "200", "digest": "sha1:…", "length": "512", "offset": "1024", "filename": "hivecrawl-….warc.gz"}
//
// The JSON block's values are strings, its keys in this order, with
// mime, status and digest left out when unknown. cdxj-indexer indexes
// conversion records only when asked (--records all); they are the text
// this store is made of, so they are always listed. Lines are in file
// order, not sorted: pywb wants a collection's lines merged and sorted
// (LC_ALL=C sort).
const (
	cdxjExt = ".cdxj"
	warcExt = ".warc.gz"
)

// cdxjName returns the name of the CDXJ file of WARC file warc.
func cdxjName(warc string) string { return strings.TrimSuffix(warc, warcExt) + cdxjExt }

// partName returns the name of the CDXJ file of WARC file warc while it
// is written, renamed to cdxjName once the WARC file is closed and synced.
func partName(warc string) string { return cdxjName(warc) + ".part" }

// indexed reports whether a record of WARC-Type typ gets a CDXJ line.
func indexed(typ string) bool { return typ == "conversion" || typ == "response" }

// cdxjLine returns the CDXJ line of record r in file filename, with its
// newline.
func cdxjLine(r export.RecordInfo, filename string) []byte {
	var b bytes.Buffer
	key := "-"
	if r.Target != "" {
		key = surt(r.Target)
	}
	b.WriteString(strings.Map(noSpace, key))
	b.WriteByte(' ')
	b.WriteString(r.Date.UTC().Format("20060102150405"))
	b.WriteString(" {")
	first := true
	field := func(name, value string) {
		if value == "" {
			return
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		jsonString(&b, name)
		b.WriteString(": ")
		jsonString(&b, value)
	}
	field("url", r.Target)
	field("mime", cdxjMime(r.Mime))
	if r.Status > 0 {
		field("status", strconv.Itoa(r.Status))
	}
	field("digest", r.Digest)
	field("length", strconv.FormatInt(r.Length, 10))
	field("offset", strconv.FormatInt(r.Offset, 10))
	field("filename", filename)
	b.WriteString("}\n")
	return b.Bytes()
}

// cdxjMime is a Content-Type as cdxj-indexer lists it: the media type
// before any parameter or space.
func cdxjMime(ct string) string {
	if i := strings.IndexAny(ct, "; \t\r\n"); i >= 0 {
		ct = ct[:i]
	}
	return ct
}

// noSpace keeps a line's key one field: a space in a URL that did not
// parse would split it.
func noSpace(r rune) rune {
	if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
		return '%'
	}
	return r
}

// jsonString writes s as a JSON string as Python's json.dumps does:
// non-ASCII as \u escapes, "<>&" as they are.
func jsonString(b *bytes.Buffer, s string) {
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		// A string always encodes; keep the line well-formed regardless.
		b.WriteString(`""`)
		return
	}
	out := bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
	for len(out) > 0 {
		r, n := utf8.DecodeRune(out)
		switch {
		case r < utf8.RuneSelf:
			b.WriteByte(out[0])
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
		out = out[n:]
	}
}
