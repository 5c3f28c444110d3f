package textcodec

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestDictionaryLoads(t *testing.T) {
	if _, err := zstd.NewWriter(nil, zstd.WithEncoderDict(dict1)); err != nil {
		t.Fatalf("text-1 dictionary: %v", err)
	}
	data, name := Encode([]byte("The committee met on Tuesday."))
	if name != Dict1 {
		t.Fatalf("compression %q, want %q", name, Dict1)
	}
	var h zstd.Header
	if err := h.Decode(data); err != nil || h.DictionaryID != 200001 {
		t.Fatalf("frame names dictionary %d (%v), want 200001", h.DictionaryID, err)
	}
}

func TestRoundTrip(t *testing.T) {
	plain, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"",
		"short",
		"Grüße, 世界 \xff invalid bytes kept as they are",
		strings.Repeat("The river path stays open to walkers through the winter.\n", 400),
	}
	for _, text := range texts {
		data, name := Encode([]byte(text))
		got, err := Decode(data, name)
		if err != nil || string(got) != text {
			t.Errorf("%s round trip of %d bytes: %d bytes back, %v", name, len(text), len(got), err)
		}
		// Uploads from clients before the dictionary.
		got, err = Decode(plain.EncodeAll([]byte(text), nil), Zstd)
		if err != nil || string(got) != text {
			t.Errorf("plain zstd of %d bytes: %d bytes back, %v", len(text), len(got), err)
		}
		got, err = Decode([]byte(text), None)
		if err != nil || string(got) != text {
			t.Errorf("uncompressed: %v", err)
		}
	}
}

// TestDictionaryHelps: on a short English text the dictionary makes the
// upload smaller than plain zstd does (the reason it is shipped).
func TestDictionaryHelps(t *testing.T) {
	text := []byte("The council said on Monday that the new library would open in the spring, " +
		"after the building work on the old railway station had finished. Visitors will be able to " +
		"borrow books, use the computers and attend lessons for children and adults during the week.")
	plain, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	with, _ := Encode(text)
	without := plain.EncodeAll(text, nil)
	if len(with) >= len(without) {
		t.Errorf("with the dictionary %d bytes, without %d", len(with), len(without))
	}
}

func TestDecodeErrors(t *testing.T) {
	bomb, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	big := bomb.EncodeAll(bytes.Repeat([]byte{'a'}, MaxTextBytes+1), nil)
	tests := []struct {
		name, compression string
		data              []byte
	}{
		{"unknown compression", "brotli", []byte("x")},
		{"corrupt", Dict1, []byte("not zstd at all")},
		{"corrupt plain", Zstd, []byte("not zstd at all")},
		{"bomb", Zstd, big},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(tc.data, tc.compression); !errors.Is(err, ErrCompression) {
				t.Errorf("Decode = %v, want ErrCompression", err)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	data, _ := Encode([]byte("seed text for the fuzzer"))
	f.Add(data, Dict1)
	f.Add([]byte("plain"), None)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0}, Zstd)
	f.Fuzz(func(t *testing.T, data []byte, compression string) {
		raw, err := Decode(data, compression)
		if err != nil {
			if !errors.Is(err, ErrCompression) {
				t.Fatalf("error %v does not wrap ErrCompression", err)
			}
			return
		}
		if len(raw) > MaxTextBytes {
			t.Fatalf("%d bytes decoded", len(raw))
		}
	})
}
