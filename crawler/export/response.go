package export

import (
	"crypto/rand"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

// skippedHeaders are not written into a response record's HTTP header:
// the body kept is decoded and whole, so these would misdescribe it, and
// the record's own Content-Length is written instead.
var skippedHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true, "Content-Encoding": true, "Content-Length": true,
}

// rawBody returns p's raw response body (task.Page.Raw) decompressed;
// ok is false when p has none, or one that does not decompress.
func rawBody(p *task.Page) (body []byte, ok bool) {
	if p.Raw == nil {
		return nil, false
	}
	body, err := textcodec.Decode(p.Raw, p.RawCompression)
	return body, err == nil
}

// httpHeader returns the HTTP status line and header fields of a response
// record for p's raw body of n bytes, ending with the blank line, and the
// response's Content-Type. Fields that are not valid HTTP are left out.
// The status line says HTTP/1.1 whatever the protocol was, as other
// crawlers do for HTTP/2.
func httpHeader(p *task.Page, n int) (block []byte, mime string) {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", p.Status, http.StatusText(p.Status))
	for _, k := range slices.Sorted(maps.Keys(p.Header)) {
		if skippedHeaders[http.CanonicalHeaderKey(k)] || !httpguts.ValidHeaderFieldName(k) {
			continue
		}
		for _, v := range p.Header[k] {
			if !httpguts.ValidHeaderFieldValue(v) {
				continue
			}
			if mime == "" && http.CanonicalHeaderKey(k) == "Content-Type" {
				mime = v
			}
			b.WriteString(k + ": " + strings.TrimSpace(v) + "\r\n")
		}
	}
	b.WriteString("Content-Length: " + strconv.Itoa(n) + "\r\n\r\n")
	return []byte(b.String()), mime
}

// newRecordID returns a new WARC-Record-ID, a random UUID URN in angle
// brackets. Record IDs that must be known before their record is written
// (to link two records both ways) are made here.
func newRecordID() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
