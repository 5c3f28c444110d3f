package task

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDecodeRoundTrip(t *testing.T) {
	in := &Task{
		ID: "t1", Channel: "example.com", Seeds: []string{"https://example.com/"},
		Filters: []string{`^https://example\.com/news/`}, MaxDepth: 3, Delay: Duration(2 * time.Second),
		KnownPages: []Digest{1, 2}, Issued: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	b, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if out.ID != in.ID || out.Delay != in.Delay || len(out.KnownPages) != 2 || !out.Issued.Equal(in.Issued) {
		t.Fatalf("round trip changed the task: %+v", out)
	}
}

func TestDecodeRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":           ``,
		"not json":        `hello`,
		"unknown field":   `{"id":"a","seeds":["http://x/"],"evil":1}`,
		"no seeds":        `{"id":"a"}`,
		"no id":           `{"seeds":["http://x/"]}`,
		"trailing":        `{"id":"a","seeds":["http://x/"]} {}`,
		"negative depth":  `{"id":"a","seeds":["http://x/"],"max_depth":-1}`,
		"huge depth":      `{"id":"a","seeds":["http://x/"],"max_depth":1000}`,
		"bad duration":    `{"id":"a","seeds":["http://x/"],"delay":"soon"}`,
		"long seed":       `{"id":"a","seeds":["http://x/` + strings.Repeat("a", 3000) + `"]}`,
		"unknown purpose": `{"id":"a","seeds":["http://x/"],"purpose":"ai-train"}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Decode([]byte(in)); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode(%q) = %v, want ErrInvalid", in, err)
			}
		})
	}
}

func TestPurpose(t *testing.T) {
	for in, want := range map[string]string{
		`{"id":"a","seeds":["http://x/"]}`:                    PurposeSearch,
		`{"id":"a","seeds":["http://x/"],"purpose":"search"}`: PurposeSearch,
	} {
		tk, err := Decode([]byte(in))
		if err != nil {
			t.Fatalf("Decode(%s): %v", in, err)
		}
		if got := tk.PurposeOf(); got != want {
			t.Errorf("purpose of %s = %q, want %q", in, got, want)
		}
	}
}

func TestDigestOf(t *testing.T) {
	// SHA-1("abc") = a9993e36...
	if got := DigestOf([]byte("abc")); got != 0xa9993e36 {
		t.Fatalf("DigestOf(abc) = %x", uint32(got))
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"id":"a","seeds":["http://x/"],"delay":"1s"}`))
	f.Add([]byte(`{"id":"a","seeds":["http://x/"],"known_pages":[1,2,3]}`))
	f.Add([]byte(`{"id":"a","seeds":["http://x/"],"known_filter":{"k":3,"bits":"AAAAAAAAAAA="}}`))
	f.Add([]byte(`{"id":"a","seeds":["http://x/"],"known_filter":{"k":99,"bits":""}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, err := Decode(b)
		if err != nil {
			return
		}
		enc, err := tk.Encode()
		if err != nil {
			t.Fatalf("decoded task does not encode: %v", err)
		}
		if _, err := Decode(enc); err != nil {
			t.Fatalf("re-encoded task does not decode: %v", err)
		}
		// A decoded filter answers without panicking whatever its bits.
		tk.KnownFilter.Has(0)
		tk.KnownFilter.Has(0xffffffff)
	})
}
