package web

import (
	"time"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Sample is one reading of the rates and resources the dashboard charts,
// with short JSON names since an hour of them is sent at once.
type Sample struct {
	// T is the time of the reading in Unix milliseconds.
	T        int64   `json:"t"`
	Down     int64   `json:"d"`
	DownCap  int64   `json:"dc"`
	Up       int64   `json:"u"`
	UpCap    int64   `json:"uc"`
	CPU      float64 `json:"c"`
	CPUOther float64 `json:"co"`
	CPUCap   float64 `json:"cc"`
	RSS      int64   `json:"m"`
	MemCap   int64   `json:"mc"`
}

// SampleOf takes the charted figures out of a status read at t.
func SampleOf(t time.Time, st localapi.Status) Sample {
	return Sample{
		T:    t.UnixMilli(),
		Down: st.Download.Current, DownCap: st.Download.Cap,
		Up: st.Upload.Current, UpCap: st.Upload.Cap,
		CPU: st.CPU.Own, CPUOther: st.CPU.Other, CPUCap: st.CPU.Cap,
		RSS: st.Memory.RSS, MemCap: st.Memory.Cap,
	}
}

// History keeps the samples of the last Span, oldest first. It is not safe
// for concurrent use; UI guards it.
type History struct {
	span time.Duration
	buf  []Sample // ring of len cap(buf) once full
	next int      // where the next sample goes once full
	full bool
}

// NewHistory keeps samples for span, taken every interval (at most
// span/interval + 1 of them).
func NewHistory(span, interval time.Duration) *History {
	n := 2
	if interval > 0 {
		n = int(span/interval) + 1
	}
	return &History{span: span, buf: make([]Sample, 0, max(n, 2))}
}

// Add appends s, dropping the oldest sample when full.
func (h *History) Add(s Sample) {
	if !h.full {
		h.buf = append(h.buf, s)
		if len(h.buf) == cap(h.buf) {
			h.full = true
		}
		return
	}
	h.buf[h.next] = s
	h.next = (h.next + 1) % len(h.buf)
}

// Since returns the samples newer than span before now (Unix ms), oldest
// first, in a new slice.
func (h *History) Since(now int64) []Sample {
	from := now - h.span.Milliseconds()
	out := make([]Sample, 0, len(h.buf))
	for i := range h.buf {
		s := h.buf[(h.next+i)%len(h.buf)]
		if s.T > from {
			out = append(out, s)
		}
	}
	return out
}
