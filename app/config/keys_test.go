package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestApplyErrorsSayItOnce checks that a refused setting reads as one
// sentence after the command's name: the key once, what is wrong and,
// for a schedule, an example rather than the JSON decoder's words.
func TestApplyErrorsSayItOnce(t *testing.T) {
	for _, tc := range []struct {
		name, key, value string
		want             string // the whole message
		unknown          bool   // wraps ErrUnknownKey
	}{
		{name: "size", key: "download", value: "abc",
			want: `download: "abc" is not a size (examples: 0, 200KB/s, 1.5MiB, 512MB)`},
		{name: "alias", key: "down", value: "abc",
			want: `download: "abc" is not a size (examples: 0, 200KB/s, 1.5MiB, 512MB)`},
		{name: "percent", key: "cpu", value: "200", want: `cpu: "200" is outside 0–100 %`},
		{name: "switch", key: "paused", value: "maybe", want: `paused: "maybe" is not true or false`},
		{name: "out of range", key: "api_port", value: "70000",
			want: `api_port must be 0 (a free port at each start) or between 1024 and 65535, got 70000`},
		{name: "unknown key", key: "colour", value: "1", unknown: true},
		{name: "schedule not JSON", key: "schedule", value: "mon-fri 18:00-23:00",
			want: `schedule: "mon-fri 18:00-23:00" is not JSON: write it in single quotes, such as '` + scheduleExample + `', or "" to crawl at any time`},
		{name: "schedule cut short", key: "schedule", value: `{"windows":[`,
			want: `schedule: "{\"windows\":[" is not JSON: write it in single quotes, such as '` + scheduleExample + `', or "" to crawl at any time`},
		{name: "schedule unknown field", key: "schedule", value: `{"window":[]}`,
			want: `schedule: unknown field "window": a schedule has "windows", each with "days", "start", "end" and optionally "download" and "upload" (example: ` + scheduleExample + `)`},
		{name: "schedule wrong type", key: "schedule", value: `{"windows":[{"days":"mon"}]}`,
			want: `schedule: "windows.days" must be a list, not string (example: ` + scheduleExample + `)`},
		{name: "schedule bad day", key: "schedule", value: `{"windows":[{"days":["moon"]}]}`,
			want: `schedule: "moon" is not a weekday (mon, tue, wed, thu, fri, sat, sun)`},
		{name: "schedule two objects", key: "schedule", value: `{} {}`,
			want: `schedule: "{} {}" is not one JSON object (trailing data): write it such as '` + scheduleExample + `'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			err := c.Apply(Change{Key: tc.key, Value: tc.value})
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Apply(%s=%s) = %v, want ErrInvalid", tc.key, tc.value, err)
			}
			if tc.unknown != errors.Is(err, ErrUnknownKey) {
				t.Fatalf("Apply(%s=%s) = %v: ErrUnknownKey %v, want %v", tc.key, tc.value, err, !tc.unknown, tc.unknown)
			}
			msg := err.Error()
			for _, stutter := range []string{ErrInvalid.Error(), "set ", "json:", "invalid character"} {
				if strings.Contains(msg, stutter) {
					t.Errorf("message %q has %q", msg, stutter)
				}
			}
			if tc.want != "" && msg != tc.want {
				t.Errorf("message\n%s\nwant\n%s", msg, tc.want)
			}
			if tc.unknown && !strings.HasPrefix(msg, `unknown key "colour" (known: `) {
				t.Errorf("message %q does not name the key and the known ones", msg)
			}
		})
	}
}

func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{scheduleExample, `{"windows":[]}`, "abc", `{"x":1}`, `{"windows":"mon"}`,
		`{"windows":[{"start":"25:00"}]}`, `{"windows":[{"download":"1MB"}]}`, `{} {}`, `[]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sch, err := parseSchedule(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("parseSchedule(%q) = %v, not ErrInvalid", s, err)
			}
			if strings.Contains(err.Error(), "json:") {
				t.Fatalf("parseSchedule(%q) = %v: the decoder's words", s, err)
			}
			return
		}
		if _, err := parseSchedule(mustJSON(t, sch)); err != nil {
			t.Fatalf("schedule %q read back: %v", s, err)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
