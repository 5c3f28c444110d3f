package web

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// sseMessage formats one server-sent event. data is JSON, so it holds no
// newlines.
func sseMessage(event string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteString("\ndata: ")
	b.Write(bytes.ReplaceAll(data, []byte("\n"), []byte("\ndata: ")))
	b.WriteString("\n\n")
	return b.Bytes()
}

// subscribe registers a page for ticks and returns its channel, the history
// so far and the latest tick.
func (u *UI) subscribe() (ch chan []byte, history []Sample, last []byte) {
	ch = make(chan []byte, 8)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.subs[ch] = struct{}{}
	return ch, u.hist.Since(u.opts.Now().UnixMilli()), u.last
}

func (u *UI) unsubscribe(ch chan []byte) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.subs, ch)
}

// events streams the history once, then every tick, until the page goes
// away or the server shuts down.
func (u *UI) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	ch, hist, last := u.subscribe()
	defer u.unsubscribe(ch)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	data, err := json.Marshal(hist)
	if err != nil {
		return // []Sample always encodes
	}
	w.Write([]byte("retry: 3000\n\n"))
	w.Write(sseMessage("history", data))
	if last != nil {
		w.Write(last)
	}
	if rc.Flush() != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case msg := <-ch:
			if _, err := w.Write(msg); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
		}
	}
}
