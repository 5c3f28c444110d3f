package crawler

import (
	"maps"
	"slices"

	"github.com/hivecrawl/hivecrawl/crawler/textcodec"
	"github.com/hivecrawl/hivecrawl/task"
)

// droppedHeaders are left out of task.Page.Header: they describe the
// transfer, not the body as kept (decoded, whole).
var droppedHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true, "Content-Encoding": true, "Content-Length": true,
}

// keepRaw puts resp's body and header fields into page, for a task that
// asks for raw pages (task.Task.Raw). A body that compresses to more than
// task.MaxRawBytes is left out; header fields past task.MaxHeaderBytes
// are dropped, in name order.
func keepRaw(page *task.Page, resp *response) {
	data, compression := textcodec.Encode(resp.Body)
	if len(data) > task.MaxRawBytes {
		return
	}
	h := make(map[string][]string)
	size := 0
	for _, k := range slices.Sorted(maps.Keys(resp.Header)) {
		if droppedHeaders[k] {
			continue
		}
		for _, v := range resp.Header[k] {
			if size += len(k) + len(v) + 4; size > task.MaxHeaderBytes {
				break
			}
			h[k] = append(h[k], v)
		}
	}
	page.Raw, page.RawCompression, page.RawBytes, page.Header = data, compression, len(resp.Body), h
}
