package domain

import (
	"strings"
	"testing"
)

func TestRegistrable(t *testing.T) {
	cases := []struct{ name, host, want string }{
		{"plain", "www.example.com", "example.com"},
		{"port", "Shop.Example.COM:8080", "example.com"},
		{"two-level suffix", "a.b.example.co.uk", "example.co.uk"},
		{"private suffix", "alice.github.io", "alice.github.io"},
		{"wildcard trap", "w9999.trap.test", "trap.test"},
		{"trailing dot", "www.example.com.", "example.com"},
		{"ipv4", "127.0.1.5:8080", "127.0.1.5"},
		{"ipv6", "[2001:db8::1]:443", "2001:db8::1"},
		{"single label", "localhost:80", "localhost"},
		{"suffix itself", "co.uk", "co.uk"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Registrable(c.host); got != c.want {
				t.Errorf("Registrable(%q) = %q, want %q", c.host, got, c.want)
			}
		})
	}
}

func FuzzRegistrable(f *testing.F) {
	for _, s := range []string{"www.example.co.uk:80", "[::1]:1", "a..b", ".", "xn--p1ai", "1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		d := Registrable(host)
		if len(d) > len(strings.ToLower(host)) {
			t.Fatalf("Registrable(%q) = %q, longer than the host", host, d)
		}
		if strings.ToLower(d) != d {
			t.Fatalf("Registrable(%q) = %q, not lower case", host, d)
		}
	})
}

func TestIsRegistrable(t *testing.T) {
	for _, c := range []struct {
		name, host string
		want       bool
	}{
		{"registrable", "example.com", true},
		{"two-level suffix", "Example.CO.UK", true},
		{"private suffix", "alice.github.io:443", true},
		{"subdomain", "www.example.com", false},
		{"suffix itself", "co.uk", false},
		{"single label", "localhost", false},
		{"ipv4", "127.0.0.1", false},
		{"ipv6", "[2001:db8::1]", false},
		{"empty", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := IsRegistrable(c.host); got != c.want {
				t.Errorf("IsRegistrable(%q) = %v, want %v", c.host, got, c.want)
			}
		})
	}
}
