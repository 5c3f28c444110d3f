package upload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/proto/frame"
	"github.com/hivecrawl/hivecrawl/task"
)

func TestReceiptVerification(t *testing.T) {
	key, _, _ := crypto.GenerateEd25519Key(nil)
	other, _, _ := crypto.GenerateEd25519Key(nil)
	raw, err := SignReceipt(task.Receipt{TaskID: "t", Peer: "p", PagesAccepted: 3, Credits: 3, IssuedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}, key)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := envelope.OpenPayload(raw, ReceiptKind, key.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	// Raise the credits inside the envelope: "credits":3 → "credits":9.
	inflated := append([]byte(nil), raw...)
	i := bytes.Index(inflated, payload)
	for j := i; j < i+len(payload)-10; j++ {
		if string(inflated[j:j+10]) == `"credits":` {
			inflated[j+10] = '9'
		}
	}
	taskEnv, err := envelope.Seal(&task.Task{ID: "t", Seeds: []string{"http://x/"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		raw  []byte
		key  crypto.PubKey
		want error
	}{
		{"good", raw, key.GetPublic(), nil},
		{"credits altered", inflated, key.GetPublic(), envelope.ErrAltered},
		{"other key", raw, other.GetPublic(), envelope.ErrForged},
		{"a task is not a receipt", taskEnv, key.GetPublic(), envelope.ErrAltered},
		{"garbage", []byte("receipt"), key.GetPublic(), envelope.ErrUnsigned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := VerifyReceipt(tt.raw, tt.key)
			if !errors.Is(err, tt.want) {
				t.Fatalf("VerifyReceipt = %+v, %v; want %v", rc, err, tt.want)
			}
			if tt.want == nil && rc.Credits != 3 {
				t.Fatalf("receipt %+v", rc)
			}
		})
	}
}

func TestDecodePageChecksDuplicateOf(t *testing.T) {
	for _, tc := range []struct {
		name, dup string
		ok        bool
	}{
		{name: "absent", ok: true},
		{name: "http", dup: "http://a.example/story", ok: true},
		{name: "not http", dup: "javascript:alert(1)"},
		{name: "relative", dup: "/story"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := fmt.Appendf(nil, `{"url":"http://a.example/x","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":1,"out_links":0,"duplicate_of":%q}`, tc.dup)
			_, err := DecodePage(b)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrMalformed)) {
				t.Errorf("DecodePage with duplicate_of %q: %v", tc.dup, err)
			}
		})
	}
}

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
	f.Add([]byte(`{"url":"http://a.example/r","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":0,"out_links":0,"text":"aGk=","raw":"PHA+aGk8L3A+","raw_bytes":9,"header":{"Content-Type":["text/html"],"X":[]}}`))
	f.Add([]byte(`{"url":"http://a.example/r","status":200,"fetched_at":"2026-01-01T00:00:00Z","depth":0,"out_links":0,"header":{"Content-Type":["text/html"]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePage(b)
		if err != nil {
			return
		}
		if p.URL == "" || p.Status < 0 || p.Depth < 0 {
			t.Fatalf("accepted page out of range: %+v", p)
		}
		if len(p.Raw) > task.MaxRawBytes || p.RawBytes < 0 || task.HeaderSize(p.Header) > task.MaxHeaderBytes || len(p.Header) > 0 && len(p.Raw) == 0 {
			t.Fatalf("accepted raw response out of range: %d bytes, %d declared, header %v", len(p.Raw), p.RawBytes, p.Header)
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
