package governor

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssKB reads the process's resident set from /proc/self/status.
func rssKB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// Paging out the executable's read-only mappings leaves fewer of its
// pages resident, and the process runs on (the pages come back on use).
func TestPageOutCode(t *testing.T) {
	before := rssKB(t)
	advised := pageOutCode()
	after := rssKB(t)
	t.Logf("advised %d MB of mappings; file pages resident %d kB → %d kB", advised>>20, before, after)
	if advised == 0 {
		t.Skip("this kernel does not page out on advice (MADV_PAGEOUT needs Linux 5.4)")
	}
	if after >= before {
		t.Errorf("file-backed pages resident %d kB after paging out, %d kB before", after, before)
	}
}

func TestReadOnlyMapping(t *testing.T) {
	const exe = "/usr/bin/hivecrawl"
	for line, want := range map[string]bool{
		"00400000-00c00000 r-xp 00000000 08:01 123 /usr/bin/hivecrawl": true,
		"00c00000-01200000 r--p 00800000 08:01 123 /usr/bin/hivecrawl": true,
		"01200000-01300000 rw-p 00e00000 08:01 123 /usr/bin/hivecrawl": false,
		"7f0000000000-7f0000100000 rw-p 00000000 00:00 0 ":             false,
		"00400000-00c00000 r-xs 00000000 08:01 123 /usr/bin/hivecrawl": false,
		"00400000-00c00000 r-xp 00000000 08:01 123 /usr/bin/other":     false,
		"zz-00c00000 r-xp 00000000 08:01 123 /usr/bin/hivecrawl":       false,
		"00c00000-00400000 r-xp 00000000 08:01 123 /usr/bin/hivecrawl": false,
	} {
		if _, _, ok := readOnlyMapping(line, exe); ok != want {
			t.Errorf("readOnlyMapping(%q) = %v, want %v", line, ok, want)
		}
	}
}
