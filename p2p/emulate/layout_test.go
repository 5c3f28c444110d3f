package emulate

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLayoutRTT(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "m.tsv", tsv)
	p := writeFile(t, dir, "layout.json", `{"matrix":"m.tsv","nodes":{"127.0.2.1":0,"127.0.2.2":1,"127.0.1.1":2}}`)
	l, err := LoadLayout(p)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	tests := []struct {
		name   string
		a, b   string
		want   time.Duration
		wantOK bool
	}{
		{"symmetric mean", "127.0.2.1", "127.0.2.2", 11 * ms, true},
		{"one way known", "127.0.1.1", "127.0.2.1", 30 * ms, true},
		{"unknown uses median of first node", "127.0.2.2", "127.0.1.1", 11 * ms, true},
		{"self", "127.0.2.1", "127.0.2.1", 0, true},
		{"not placed", "127.0.2.1", "127.0.9.9", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := l.RTT(tc.a, tc.b)
			if got != tc.want || ok != tc.wantOK {
				t.Fatalf("RTT(%s, %s) = %v, %v; want %v, %v", tc.a, tc.b, got, ok, tc.want, tc.wantOK)
			}
		})
	}
	if d := l.Delay("127.0.2.1", "127.0.9.9"); d != 0 {
		t.Fatalf("Delay of an unplaced IP = %v, want 0", d)
	}
}

func TestLoadLayoutRejects(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, json, want string }{
		{"unknown field", `{"nodes":{},"extra":1}`, "unknown field"},
		{"trailing data", `{"nodes":{}} {}`, "data after"},
		{"no nodes", `{}`, "no nodes"},
		{"not an IP", `{"nodes":{"host.example":1}}`, "canonical"},
		{"not canonical", `{"nodes":{"::ffff:127.0.0.1":1}}`, "canonical"},
		{"negative node", `{"nodes":{"127.0.1.1":-1}}`, "negative"},
		{"node outside matrix", `{"nodes":{"127.0.1.1":490}}`, "outside"},
		{"missing matrix file", `{"matrix":"nope.tsv","nodes":{}}`, "nope.tsv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, "l.json", tc.json)
			_, err := LoadLayout(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadLayout(%s) = %v, want an error containing %q", tc.json, err, tc.want)
			}
		})
	}
}

func TestPlaceSaveLoad(t *testing.T) {
	ips := []string{"127.0.1.1", "127.0.1.2", "127.0.2.1", "127.0.2.2"}
	l, err := Place("", ips, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, ip := range ips {
		n, ok := l.Nodes[ip]
		if !ok || seen[n] {
			t.Fatalf("%s placed on node %d (ok %v), want a node of its own", ip, n, ok)
		}
		seen[n] = true
	}
	p := filepath.Join(t.TempDir(), "layout.json")
	if err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	back, err := LoadLayout(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ips {
		for _, b := range ips {
			want, _ := l.RTT(a, b)
			got, ok := back.RTT(a, b)
			if !ok || got != want {
				t.Fatalf("after save and load RTT(%s, %s) = %v, %v; want %v", a, b, got, ok, want)
			}
			if a != b && got <= 0 {
				t.Fatalf("RTT(%s, %s) = %v on PlanetLab, want > 0", a, b, got)
			}
		}
	}
	if _, err := Place(MatrixSeattle, make([]string, 100), rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("placed 100 addresses on a 99-node matrix")
	}
}

func FuzzDecodeLayout(f *testing.F) {
	f.Add([]byte(`{"matrix":"seattle","nodes":{"127.0.1.1":3,"127.0.2.9":98}}`))
	f.Add([]byte(`{"nodes":{"::1":0}}`))
	f.Add([]byte(`{"nodes":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeLayout(b)
		if err != nil {
			return
		}
		again, err := DecodeLayout(mustJSON(l))
		if err != nil {
			t.Fatalf("a decoded layout does not decode again: %v", err)
		}
		if len(again.Nodes) != len(l.Nodes) || again.Matrix != l.Matrix {
			t.Fatalf("round trip changed the layout: %+v → %+v", l.Nodes, again.Nodes)
		}
		if l.Matrix != "" && l.Matrix != MatrixPlanetLab && l.Matrix != MatrixSeattle {
			return // a path: the fuzzer must not open files
		}
		for ip := range l.Nodes {
			if _, ok := l.RTT(ip, ip); !ok && l.Validate() == nil {
				t.Fatalf("RTT(%s, %s) unknown in a valid layout", ip, ip)
			}
		}
	})
}
