package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is the weekly plan of when crawling may run. No windows means
// always.
type Schedule struct {
	Windows []Window `json:"windows,omitempty"`
}

// Window is a daily time span on some weekdays where crawling runs,
// optionally with its own bandwidth caps. End at or before Start means the
// window runs past midnight into the next day; Start equal to End is the
// whole day. Times are the machine's local time.
type Window struct {
	Days  []Day `json:"days,omitempty"` // empty = every day
	Start Clock `json:"start"`
	End   Clock `json:"end"`
	// Download and Upload replace the normal caps inside the window;
	// 0 keeps the normal cap.
	Download Bytes `json:"download,omitempty"`
	Upload   Bytes `json:"upload,omitempty"`
}

// Active returns the first window that contains t, or ok false when t is
// outside every window. An empty schedule is always active with a zero
// Window.
func (s Schedule) Active(t time.Time) (w Window, ok bool) {
	if len(s.Windows) == 0 {
		return Window{}, true
	}
	m := Clock(t.Hour()*60 + t.Minute())
	d := Day(t.Weekday())
	prev := Day((int(d) + 6) % 7)
	for _, w := range s.Windows {
		if w.Start < w.End {
			if w.on(d) && m >= w.Start && m < w.End {
				return w, true
			}
			continue
		}
		if (w.on(d) && m >= w.Start) || (w.on(prev) && m < w.End) {
			return w, true
		}
	}
	return Window{}, false
}

// NextStart returns the first time after now at which a window starts, or
// the zero time when the schedule has no windows.
func (s Schedule) NextStart(now time.Time) time.Time {
	var best time.Time
	y, m, d := now.Date()
	for off := 0; off <= 7; off++ {
		day := time.Date(y, m, d+off, 0, 0, 0, 0, now.Location())
		for _, w := range s.Windows {
			if !w.on(Day(day.Weekday())) {
				continue
			}
			start := day.Add(time.Duration(w.Start) * time.Minute)
			if start.After(now) && (best.IsZero() || start.Before(best)) {
				best = start
			}
		}
		if !best.IsZero() {
			return best
		}
	}
	return best
}

func (w Window) on(d Day) bool {
	if len(w.Days) == 0 {
		return true
	}
	for _, x := range w.Days {
		if x == d {
			return true
		}
	}
	return false
}

func (s Schedule) validate() error {
	if len(s.Windows) > MaxWindows {
		return invalidf("schedule has %d windows, at most %d", len(s.Windows), MaxWindows)
	}
	for i, w := range s.Windows {
		if w.Start < 0 || w.Start >= 24*60 || w.End < 0 || w.End > 24*60 {
			return invalidf("schedule window %d: times must be within 00:00–24:00", i+1)
		}
		for _, c := range []struct {
			name string
			b    Bytes
		}{{"download", w.Download}, {"upload", w.Upload}} {
			if c.b != 0 && (c.b < MinRate || c.b > MaxRate) {
				return invalidf("schedule window %d: %s must be 0 (the normal cap) or between %v/s and %v/s, got %v/s", i+1, c.name, MinRate, MaxRate, c.b)
			}
		}
	}
	return nil
}

// Day is a weekday, written "mon" … "sun" in JSON.
type Day time.Weekday

var dayNames = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// String returns the three-letter lower-case name.
func (d Day) String() string {
	if d < 0 || d > 6 {
		return fmt.Sprintf("day(%d)", int(d))
	}
	return dayNames[d]
}

// MarshalJSON writes the three-letter name.
func (d Day) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON accepts "mon", "Monday", "MON" and so on.
func (d *Day) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return invalidf("weekday must be a string such as \"mon\"")
	}
	ls := strings.ToLower(strings.TrimSpace(s))
	for i, n := range dayNames {
		if ls == n || len(ls) >= 3 && strings.HasPrefix(strings.ToLower(time.Weekday(i).String()), ls) {
			*d = Day(i)
			return nil
		}
	}
	return invalidf("%q is not a weekday (mon, tue, wed, thu, fri, sat, sun)", s)
}

// Clock is a time of day in minutes since midnight, written "HH:MM" in JSON;
// "24:00" is allowed as an end.
type Clock int

// ParseClock parses "HH:MM" (or "H:MM").
func ParseClock(s string) (Clock, error) {
	hs, ms, ok := strings.Cut(strings.TrimSpace(s), ":")
	h, errH := strconv.Atoi(hs)
	m, errM := strconv.Atoi(ms)
	if !ok || errH != nil || errM != nil || len(ms) != 2 || len(hs) > 2 ||
		h < 0 || h > 24 || m < 0 || m > 59 || (h == 24 && m != 0) {
		return 0, invalidf("%q is not a time of day (HH:MM, 00:00–24:00)", s)
	}
	return Clock(h*60 + m), nil
}

// String formats the clock as "HH:MM".
func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", int(c)/60, int(c)%60) }

// MarshalJSON writes "HH:MM".
func (c Clock) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }

// UnmarshalJSON reads "HH:MM".
func (c *Clock) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return invalidf("time of day must be a string \"HH:MM\"")
	}
	v, err := ParseClock(s)
	if err != nil {
		return err
	}
	*c = v
	return nil
}
