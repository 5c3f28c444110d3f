package config

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Bytes
		bad  bool
	}{
		{"zero", "0", 0, false},
		{"plain bytes", "4096", 4096, false},
		{"SI rate", "200KB/s", 200000, false},
		{"IEC fraction rate", "1.5MiB/s", 1572864, false},
		{"SI size", "512MB", 512000000, false},
		{"space and case", " 2 gib ", 2 << 30, false},
		{"bare prefix", "10k", 10000, false},
		{"Bps suffix", "100KBps", 100000, false},
		{"B unit", "12B", 12, false},
		{"empty", "", 0, true},
		{"negative", "-5KB", 0, true},
		{"unknown unit", "5 parsecs", 0, true},
		{"only unit", "MB", 0, true},
		{"two dots", "1.2.3MB", 0, true},
		{"overflow", "99999999999TB", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBytes(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("ParseBytes(%q) = %d, want error", tt.in, got)
				}
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("error %v does not wrap ErrInvalid", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseBytes(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestBytesString(t *testing.T) {
	tests := []struct {
		in   Bytes
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {200000, "200 KB"}, {1572864, "1.57 MB"}, {25_500_000, "25.5 MB"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Bytes(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
		}
	}
}

func TestParsePercent(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Percent
		bad  bool
	}{
		{"with sign", "50%", 50, false},
		{"without sign", "25", 25, false},
		{"fraction and space", "12.5 %", 12.5, false},
		{"over 100", "150%", 0, true},
		{"negative", "-1", 0, true},
		{"word", "half", 0, true},
		{"NaN", "NaN", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePercent(tt.in)
			if (err != nil) != tt.bad || got != tt.want {
				t.Fatalf("ParsePercent(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
}

func TestUnitsJSON(t *testing.T) {
	var v struct {
		B Bytes    `json:"b"`
		N Bytes    `json:"n"`
		P Percent  `json:"p"`
		D Duration `json:"d"`
		S Duration `json:"s"`
	}
	in := `{"b":"1.5MiB/s","n":2048,"p":"40%","d":"1m30s","s":2}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if v.B != 1572864 || v.N != 2048 || v.P != 40 || time.Duration(v.D) != 90*time.Second || time.Duration(v.S) != 2*time.Second {
		t.Fatalf("decoded %+v", v)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":1572864,"n":2048,"p":40,"d":"1m30s","s":"2s"}`; string(out) != want {
		t.Errorf("encoded %s, want %s", out, want)
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"0", "200KB/s", "1.5MiB/s", "512MB", "2 GiB", "-1", "1e308TB", ".", "9.9.9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBytes(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if b < 0 {
			t.Fatalf("ParseBytes(%q) = %d < 0", s, b)
		}
		// A formatted value parses back to within rounding of itself.
		back, err := ParseBytes(b.String())
		if err != nil {
			t.Fatalf("ParseBytes(%q) of formatted %d: %v", b.String(), b, err)
		}
		if diff := float64(back - b); diff > float64(b)*0.01+1 || diff < -float64(b)*0.01-1 {
			t.Fatalf("round trip %d -> %q -> %d", b, b.String(), back)
		}
	})
}
