package config

import (
	"encoding/json"
	"testing"
	"time"
)

func TestScheduleActive(t *testing.T) {
	var s Schedule
	in := `{"windows":[
		{"days":["mon","tue","wed","thu","fri"],"start":"18:00","end":"23:00","download":"500KB/s"},
		{"days":["Saturday"],"start":"22:00","end":"06:00"},
		{"days":["sun"],"start":"00:00","end":"00:00"}]}`
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	// 2026-11-23 is a Monday.
	at := func(day, h, m int) time.Time { return time.Date(2026, 11, 23+day, h, m, 0, 0, time.Local) }
	tests := []struct {
		name     string
		t        time.Time
		want     bool
		download Bytes
	}{
		{"weekday evening", at(0, 19, 0), true, 500000},
		{"weekday start inclusive", at(0, 18, 0), true, 500000},
		{"weekday end exclusive", at(0, 23, 0), false, 0},
		{"weekday morning", at(0, 9, 0), false, 0},
		{"saturday late", at(5, 23, 30), true, 0},
		{"sunday early from saturday window", at(6, 5, 59), true, 0},
		{"sunday whole day", at(6, 12, 0), true, 0},
		{"monday early not from sunday", at(7, 3, 0), false, 0},
		{"friday early not from thursday", at(4, 3, 0), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := s.Active(tt.t)
			if ok != tt.want || w.Download != tt.download {
				t.Fatalf("Active(%v) = %+v, %v; want %v, download %d", tt.t, w, ok, tt.want, tt.download)
			}
		})
	}
	if _, ok := (Schedule{}).Active(at(0, 3, 0)); !ok {
		t.Error("empty schedule not always active")
	}
}

func TestScheduleNextStart(t *testing.T) {
	s := Schedule{Windows: []Window{
		{Days: []Day{1, 3}, Start: 18 * 60, End: 23 * 60},
		{Days: []Day{6}, Start: 9 * 60, End: 12 * 60},
	}}
	at := func(day, h, m int) time.Time { return time.Date(2026, 11, 23+day, h, m, 0, 0, time.Local) }
	tests := []struct {
		name string
		now  time.Time
		want time.Time
	}{
		{"later today", at(0, 9, 0), at(0, 18, 0)},
		{"after today's window", at(0, 23, 30), at(2, 18, 0)},
		{"saturday morning", at(3, 12, 0), at(5, 9, 0)},
		{"wraps the week", at(5, 13, 0), at(7, 18, 0)},
	}
	for _, tt := range tests {
		if got := s.NextStart(tt.now); !got.Equal(tt.want) {
			t.Errorf("%s: NextStart = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !(Schedule{}).NextStart(at(0, 0, 0)).IsZero() {
		t.Error("empty schedule has a next start")
	}
}

func TestParseClock(t *testing.T) {
	tests := []struct {
		in   string
		want Clock
		bad  bool
	}{
		{"00:00", 0, false}, {"9:05", 545, false}, {"24:00", 1440, false},
		{"24:01", 0, true}, {"12:60", 0, true}, {"12", 0, true}, {"12:5", 0, true}, {"ab:cd", 0, true}, {"-1:00", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseClock(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseClock(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestDayJSON(t *testing.T) {
	for in, want := range map[string]Day{`"mon"`: 1, `"Monday"`: 1, `"SUN"`: 0, `"sat"`: 6, `"thurs"`: 4} {
		var d Day
		if err := json.Unmarshal([]byte(in), &d); err != nil || d != want {
			t.Errorf("Day %s = %v, %v; want %v", in, d, err, want)
		}
	}
	for _, in := range []string{`"mo"`, `"funday"`, `3`} {
		var d Day
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("Day %s accepted as %v", in, d)
		}
	}
}
