package storage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hivecrawl/hivecrawl/manager/internal/frame"
)

func FuzzDecodeHeader(f *testing.F) {
	f.Add([]byte(`{"task":"AAEC","result":{"task_id":"t","channel":"c","stats":{"pages_fetched":1,"started":"0001-01-01T00:00:00Z","duration":"1s","rtt":"0s","transfer":"0s","wait":"0s"}},"pages":2,"nickname":"n"}`))
	f.Add([]byte(`{"task":"","pages":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHeader(b)
		if err != nil {
			return
		}
		if h.Pages < 0 || h.Pages > MaxPages || len(h.Task) == 0 {
			t.Fatalf("accepted header out of range: %+v", h)
		}
		enc, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeHeader(enc); err != nil {
			t.Fatalf("re-encoded header refused: %v", err)
		}
	})
}

func FuzzDecodePage(f *testing.F) {
	f.Add([]byte(`{"url":"http://a.example/x","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":1,"digest":5,"text":"aGk=","out_links":0}`))
	f.Add([]byte(`{"url":"http://a.example/p","final_url":"http://a.example/p?x","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":1,"out_links":3,"duplicate_of":"http://a.example/c"}`))
	f.Add([]byte(`{"url":"javascript:alert(1)","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":0,"out_links":0}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePage(b)
		if err != nil {
			return
		}
		if p.URL == "" || p.Status < 0 || p.Depth < 0 {
			t.Fatalf("accepted page out of range: %+v", p)
		}
	})
}

// FuzzFrames feeds arbitrary bytes to the framing and response decoder.
func FuzzFrames(f *testing.F) {
	var buf bytes.Buffer
	frame.Write(&buf, &Response{Receipt: []byte("r"), Duplicate: true}, MaxResponseSize)
	f.Add(buf.Bytes())
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		br := bufio.NewReader(bytes.NewReader(b))
		frame, err := frame.ReadBytes(br, br, MaxResponseSize)
		if err != nil {
			return
		}
		if len(frame) > MaxResponseSize {
			t.Fatalf("frame of %d bytes passed the limit", len(frame))
		}
		DecodeResponse(frame)
	})
}
