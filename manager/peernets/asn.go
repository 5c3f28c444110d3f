package peernets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// ASTable maps address prefixes to the autonomous systems that announce
// them, from a routing table dump the operator supplies (`hivecrawl
// manager --asn FILE`): one "PREFIX ASN" per line, as pyasn and ip2asn
// write them. With it, checkers are drawn from other autonomous systems
// than the result's crawler's, not only from other /24s (links.go): a
// cheater renting addresses across one hosting provider's subnets gets
// no check of its own. Without it the AS of a peer is not known, and
// only its /24 or /48 links it. The zero value knows no AS.
type ASTable struct {
	// byBits holds the prefixes of each length, for a longest-prefix
	// match in at most 129 map lookups.
	byBits map[int]map[netip.Prefix]uint32
	// lengths are the prefix lengths present, longest first.
	lengths []int
}

// maxASLine bounds one line of an AS table.
const maxASLine = 256

// ReadASTable reads an AS table from path.
func ReadASTable(path string) (*ASTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read AS table: %w", err)
	}
	defer f.Close()
	t, err := ParseASTable(f)
	if err != nil {
		return nil, fmt.Errorf("read AS table %s: %w", path, err)
	}
	return t, nil
}

// ParseASTable parses "PREFIX ASN" lines (blank lines and lines starting
// with # or ; are skipped). A line that is not a prefix and an AS number
// is an error naming it: a table half read would link too few peers.
func ParseASTable(r io.Reader) (*ASTable, error) {
	t := &ASTable{byBits: map[int]map[netip.Prefix]uint32{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, maxASLine), maxASLine)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want \"PREFIX ASN\", got %q", n, line)
		}
		p, err := netip.ParsePrefix(f[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		as, err := strconv.ParseUint(strings.TrimPrefix(strings.ToUpper(f[1]), "AS"), 10, 32)
		if err != nil || as == 0 {
			return nil, fmt.Errorf("line %d: AS number %q is not 1 to 4294967295", n, f[1])
		}
		p = p.Masked()
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if t.byBits[p.Bits()] == nil {
			t.byBits[p.Bits()] = map[netip.Prefix]uint32{}
		}
		t.byBits[p.Bits()][p] = uint32(as)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("a line longer than %d bytes: %w", maxASLine, err)
		}
		return nil, err
	}
	for bits := 128; bits >= 0; bits-- {
		if t.byBits[bits] != nil {
			t.lengths = append(t.lengths, bits)
		}
	}
	return t, nil
}

// Lookup returns the AS announcing the longest prefix that holds a.
func (t *ASTable) Lookup(a netip.Addr) (uint32, bool) {
	if t == nil {
		return 0, false
	}
	a = a.Unmap()
	for _, bits := range t.lengths {
		if bits > a.BitLen() {
			continue
		}
		p, err := a.Prefix(bits)
		if err != nil {
			continue
		}
		if as, ok := t.byBits[bits][p]; ok {
			return as, true
		}
	}
	return 0, false
}
