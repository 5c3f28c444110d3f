package peernets

import (
	"net/netip"
	"strings"
	"testing"
)

// TestASTable: the longest prefix holding an address names its AS; lines
// that are not "PREFIX ASN" are refused with their number.
func TestASTable(t *testing.T) {
	tab, err := ParseASTable(strings.NewReader(`# prefix asn
10.0.0.0/8 64500
10.1.0.0/16	AS64501
; a comment
2001:db8::/32 64510

2001:db8:1::/48 64511
::ffff:192.0.2.0/120 64520
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		addr string
		as   uint32
		ok   bool
	}{
		{"10.2.3.4", 64500, true},
		{"10.1.2.3", 64501, true},
		{"::ffff:10.1.2.3", 64501, true},
		{"2001:db8:2::1", 64510, true},
		{"2001:db8:1::1", 64511, true},
		{"192.0.2.7", 64520, true},
		{"198.51.100.1", 0, false},
	} {
		as, ok := tab.Lookup(netip.MustParseAddr(tt.addr))
		if as != tt.as || ok != tt.ok {
			t.Errorf("Lookup(%s) = %d, %v; want %d, %v", tt.addr, as, ok, tt.as, tt.ok)
		}
	}
	if as, ok := (*ASTable)(nil).Lookup(netip.MustParseAddr("10.0.0.1")); ok || as != 0 {
		t.Errorf("a nil table knows AS %d", as)
	}
	for _, bad := range []string{"10.0.0.0/8", "10.0.0.0/8 64500 extra", "10.0.0.0 64500", "10.0.0.0/8 AS0", "10.0.0.0/8 4294967296", "10.0.0.0/8 x", strings.Repeat("1", maxASLine+1)} {
		if _, err := ParseASTable(strings.NewReader("1.0.0.0/8 1\n" + bad + "\n")); err == nil {
			t.Errorf("%q accepted", bad)
		} else if !strings.Contains(err.Error(), "line 2") && !strings.Contains(err.Error(), "longer than") {
			t.Errorf("%q: error %v does not name the line", bad, err)
		}
	}
}

// FuzzParseASTable: whatever the file, parsing does not panic, and every
// prefix a table accepted is found again by an address inside it.
func FuzzParseASTable(f *testing.F) {
	f.Add("10.0.0.0/8 64500\n2001:db8::/32 AS64510\n")
	f.Add("# c\n::ffff:192.0.2.0/120 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		tab, err := ParseASTable(strings.NewReader(in))
		if err != nil {
			return
		}
		for bits, ps := range tab.byBits {
			for p, as := range ps {
				if p.Bits() != bits {
					t.Fatalf("prefix %s filed under /%d", p, bits)
				}
				if got, ok := tab.Lookup(p.Addr()); !ok || got == 0 {
					t.Fatalf("%s (AS %d) not found again: %d, %v", p, as, got, ok)
				}
			}
		}
	})
}
