package governor

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// IdleAfter is how long without keyboard or mouse input counts as nobody
// using the computer, where the platform gives only the time since the
// last input (Windows, macOS); on Linux logind's IdleHint decides, after
// the desktop's own idle delay.
const IdleAfter = 5 * time.Minute

// parsePmset reads `pmset -g batt`'s first line, "Now drawing from
// 'Battery Power'" or "… 'AC Power'" (or 'UPS Power').
func parsePmset(out []byte) (onBattery bool, err error) {
	line, _, _ := bytes.Cut(out, []byte("\n"))
	_, src, ok := bytes.Cut(line, []byte("drawing from '"))
	if !ok {
		return false, fmt.Errorf("pmset: no power source in %.80q", line)
	}
	src, _, ok = bytes.Cut(src, []byte("'"))
	if !ok {
		return false, fmt.Errorf("pmset: no power source in %.80q", line)
	}
	return string(src) == "Battery Power", nil
}

// parseHIDIdleTime reads the first `"HIDIdleTime" = N` of ioreg's
// output, N in nanoseconds.
func parseHIDIdleTime(out []byte) (time.Duration, error) {
	_, rest, ok := bytes.Cut(out, []byte(`"HIDIdleTime" = `))
	if !ok {
		return 0, errors.New("ioreg: no HIDIdleTime")
	}
	end := bytes.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	ns, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ioreg: HIDIdleTime %.30q: %w", rest, err)
	}
	return time.Duration(ns), nil
}
