package governor

import (
	"testing"
	"time"
)

// TestParsePmset: macOS's `pmset -g batt`, as a laptop prints it on
// battery and on mains, and a desktop on a UPS.
func TestParsePmset(t *testing.T) {
	for _, tc := range []struct {
		out     string
		battery bool
		bad     bool
	}{
		{"Now drawing from 'Battery Power'\n -InternalBattery-0 (id=4653155)\t87%; discharging; 4:37 remaining present: true\n", true, false},
		{"Now drawing from 'AC Power'\n -InternalBattery-0 (id=4653155)\t100%; charged; 0:00 remaining present: true\n", false, false},
		{"Now drawing from 'UPS Power'\n", false, false},
		{"", false, true},
		{"Now drawing from 'Battery", false, true},
	} {
		got, err := parsePmset([]byte(tc.out))
		if (err != nil) != tc.bad || got != tc.battery {
			t.Errorf("parsePmset(%q) = %v, %v; want %v, error %v", tc.out, got, err, tc.battery, tc.bad)
		}
	}
}

// TestParseHIDIdleTime: ioreg's IOHIDSystem entry, in nanoseconds.
func TestParseHIDIdleTime(t *testing.T) {
	out := `+-o IOHIDSystem  <class IOHIDSystem, id 0x100000482, registered, matched, active, busy 0 (0 ms), retain 29>
    {
      "HIDIdleTime" = 361370254375
      "HIDParameters" = {"HIDClickTime"=500000000}
    }
`
	d, err := parseHIDIdleTime([]byte(out))
	if err != nil || d != 361370254375*time.Nanosecond || d < IdleAfter {
		t.Errorf("parseHIDIdleTime = %v, %v; want 6m1.37s", d, err)
	}
	for _, bad := range []string{"", `"HIDIdleTime" = `, `"HIDIdleTime" = 99999999999999999999999`} {
		if d, err := parseHIDIdleTime([]byte(bad)); err == nil {
			t.Errorf("parseHIDIdleTime(%q) = %v, want an error", bad, d)
		}
	}
}

// The tools' output is outside input: whatever it is, the parsers return
// a value or an error, never panic, and never a negative idle time.
func FuzzParsePmset(f *testing.F) {
	f.Add([]byte("Now drawing from 'Battery Power'\n"))
	f.Add([]byte("Now drawing from 'AC Power'"))
	f.Fuzz(func(t *testing.T, b []byte) { parsePmset(b) })
}

func FuzzParseHIDIdleTime(f *testing.F) {
	f.Add([]byte(`"HIDIdleTime" = 1370254375`))
	f.Add([]byte(`"HIDIdleTime" = -1`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := parseHIDIdleTime(b); err == nil && d < 0 {
			t.Fatalf("negative idle time %v from %q", d, b)
		}
	})
}
