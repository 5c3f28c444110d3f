package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Bytes is a byte count or a byte rate (bytes per second). In JSON it is a
// number of bytes or a string with units, and it is written back as a number.
type Bytes int64

// unitScale maps a lower-case unit (without "/s") to its multiplier. SI
// prefixes are powers of 1000, IEC ones ("KiB") powers of 1024, as on disks
// and in network tools.
var unitScale = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "kib": 1 << 10,
	"m": 1e6, "mb": 1e6, "mib": 1 << 20,
	"g": 1e9, "gb": 1e9, "gib": 1 << 30,
	"t": 1e12, "tb": 1e12, "tib": 1 << 40,
}

// ParseBytes parses a size or rate such as "0", "4096", "200KB/s",
// "1.5MiB/s", "512MB" or "2 GiB". The "/s" suffix is optional; decimal
// fractions are allowed; the result is rounded down to whole bytes.
func ParseBytes(s string) (Bytes, error) {
	in := s
	s = strings.TrimSpace(strings.ToLower(s))
	s = strings.TrimSuffix(s, "/s")
	s = strings.TrimSuffix(s, "ps") // "KBps"
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	if num == "" {
		return 0, invalidf("%q is not a size (examples: 0, 200KB/s, 1.5MiB, 512MB)", in)
	}
	scale, ok := unitScale[unit]
	if !ok {
		return 0, invalidf("unknown unit %q in %q (use B, KB, MB, GB, KiB, MiB, GiB)", unit, in)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, invalidf("%q is not a number", in)
	}
	v *= scale
	if math.IsInf(v, 0) || math.IsNaN(v) || v >= math.MaxInt64/2 {
		return 0, invalidf("%q is too large", in)
	}
	return Bytes(v), nil
}

// String formats b with SI units ("200 KB"), the way status lines show it.
func (b Bytes) String() string {
	v := float64(b)
	for _, u := range []string{"B", "KB", "MB", "GB", "TB"} {
		if math.Abs(v) < 1000 || u == "TB" {
			if u == "B" {
				return fmt.Sprintf("%d B", int64(b))
			}
			return strconv.FormatFloat(v, 'f', precision(v), 64) + " " + u
		}
		v /= 1000
	}
	return ""
}

// precision keeps about three significant digits.
func precision(v float64) int {
	switch {
	case math.Abs(v) >= 100:
		return 0
	case math.Abs(v) >= 10:
		return 1
	}
	return 2
}

// UnmarshalJSON accepts a number of bytes or a string with units.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		v, err := ParseBytes(s)
		if err != nil {
			return err
		}
		*b = v
		return nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return invalidf("%s is not a size", data)
	}
	if f < 0 || f >= math.MaxInt64/2 {
		return invalidf("size %s out of range", data)
	}
	*b = Bytes(f)
	return nil
}

// Percent is a share of the machine, 0–100. JSON and Parse accept "50%" or
// 50.
type Percent float64

// ParsePercent parses "50%", "50" or "12.5 %".
func ParsePercent(s string) (Percent, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, invalidf("%q is not a percentage (example: 50%%)", s)
	}
	if v < 0 || v > 100 {
		return 0, invalidf("%q is outside 0–100 %%", s)
	}
	return Percent(v), nil
}

// UnmarshalJSON accepts a number or a string such as "50%".
func (p *Percent) UnmarshalJSON(data []byte) error {
	s := string(data)
	if len(data) > 0 && data[0] == '"' {
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
	}
	v, err := ParsePercent(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Duration is a time.Duration written as "1s", "1m30s" in JSON.
type Duration time.Duration

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON accepts a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return invalidf("%q is not a duration (examples: 1s, 500ms)", s)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(data, &secs); err != nil {
		return invalid(err)
	}
	if math.Abs(secs) > 1e9 {
		return invalidf("duration %s out of range", data)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}
