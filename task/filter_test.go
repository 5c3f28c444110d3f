package task

import (
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestFilterMembershipAndRate(t *testing.T) {
	tests := []struct {
		name string
		n    int
		fp   float64
		// maxRate is the measured false-positive rate allowed: the target
		// with margin, or what a capped filter gives.
		maxRate float64
	}{
		{name: "empty", n: 0, fp: 0.01, maxRate: 0},
		{name: "one", n: 1, fp: 0.01, maxRate: 0.0001},
		{name: "1k at 1%", n: 1000, fp: 0.01, maxRate: 0.015},
		{name: "100k at 1%", n: 100_000, fp: 0.01, maxRate: 0.013},
		{name: "10k at 0.1%", n: 10_000, fp: 0.001, maxRate: 0.002},
		{name: "capacity at 1%", n: FilterCapacity(0.01), fp: 0.01, maxRate: 0.013},
		{name: "bad rate takes default", n: 5000, fp: 2, maxRate: 0.015},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tt.n), 7))
			f := NewFilter(tt.n, tt.fp)
			if err := f.Validate(); err != nil {
				t.Fatalf("new filter does not validate: %v", err)
			}
			in := make(map[Digest]bool, tt.n)
			for len(in) < tt.n {
				d := Digest(rng.Uint32())
				in[d] = true
				f.Add(d)
			}
			for d := range in {
				if !f.Has(d) {
					t.Fatalf("digest %x added but not found", uint32(d))
				}
			}
			const probes = 200_000
			fps := 0
			for range probes {
				d := Digest(rng.Uint32())
				if !in[d] && f.Has(d) {
					fps++
				}
			}
			rate := float64(fps) / probes
			t.Logf("%d digests, %d bytes, k=%d: false-positive rate %.4f", tt.n, len(f.Bits), f.K, rate)
			if rate > tt.maxRate {
				t.Fatalf("false-positive rate %.4f over %d digests (%d bytes, k=%d), want ≤ %.4f", rate, tt.n, len(f.Bits), f.K, tt.maxRate)
			}
		})
	}
}

func TestFilterSizeCapped(t *testing.T) {
	for _, n := range []int{FilterCapacity(0.01), 1_000_000, 1 << 31} {
		f := NewFilter(n, 0.01)
		if len(f.Bits) > MaxFilterBytes || f.K < 1 || f.K > MaxFilterK {
			t.Fatalf("NewFilter(%d): %d bytes, k=%d", n, len(f.Bits), f.K)
		}
	}
	if c := FilterCapacity(0.01); c < 150_000 || c > 180_000 {
		t.Fatalf("capacity at 1%% = %d, want about 164,000", c)
	}
	var nilFilter *Filter
	if nilFilter.Has(1) {
		t.Fatal("a nil filter holds a digest")
	}
}

func TestDecodeFilter(t *testing.T) {
	base := `{"id":"a","seeds":["http://x/"],"known_filter":`
	bits := func(n int) string { return `"` + base64.StdEncoding.EncodeToString(make([]byte, n)) + `"` }
	tests := []struct {
		name, filter string
		ok           bool
	}{
		{name: "good", filter: `{"k":7,"bits":` + bits(64) + `}`, ok: true},
		{name: "largest", filter: `{"k":16,"bits":` + bits(MaxFilterBytes) + `}`, ok: true},
		{name: "null", filter: `null`, ok: true},
		{name: "no bits", filter: `{"k":7}`},
		{name: "empty bits", filter: `{"k":7,"bits":""}`},
		{name: "k zero", filter: `{"k":0,"bits":` + bits(8) + `}`},
		{name: "k negative", filter: `{"k":-1,"bits":` + bits(8) + `}`},
		{name: "k huge", filter: `{"k":1000000000,"bits":` + bits(8) + `}`},
		{name: "too large", filter: `{"k":7,"bits":` + bits(MaxFilterBytes+1) + `}`},
		{name: "not base64", filter: `{"k":7,"bits":"!!!!"}`},
		{name: "unknown field", filter: `{"k":7,"bits":` + bits(8) + `,"m":64}`},
		{name: "not an object", filter: `[1,2]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, err := Decode([]byte(base + tt.filter + `}`))
			if tt.ok {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				tk.KnownFilter.Has(1) // must not panic
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestDecodeListLimits(t *testing.T) {
	long := `[` + strings.Repeat(`1,`, MaxKnownList) + `1]`
	for name, in := range map[string]string{
		"known pages": `{"id":"a","seeds":["http://x/"],"known_pages":` + long + `}`,
		"inter-site":  `{"id":"a","seeds":["http://x/"],"known_inter_site":` + long + `}`,
		"validators":  `{"id":"a","seeds":["http://x/"],"validators":[` + strings.Repeat(`{"url":"u"},`, MaxValidators) + `{"url":"u"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Decode([]byte(in)); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestFilterRoundTrip(t *testing.T) {
	f := NewFilter(100, 0.01)
	for d := range Digest(100) {
		f.Add(d * 7919)
	}
	in := &Task{ID: "a", Seeds: []string{"http://x/"}, KnownFilter: f}
	b, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for d := range Digest(100) {
		if !out.KnownFilter.Has(d * 7919) {
			t.Fatalf("decoded filter lost digest %d", d*7919)
		}
	}
}
