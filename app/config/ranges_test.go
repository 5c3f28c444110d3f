package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// rangeCases holds, for every setting, values inside its range and values
// outside it, with a word the refusal must contain.
var rangeCases = map[string]struct {
	good []string
	bad  map[string]string // value → what the error says
}{
	"download":        {[]string{"0", "1KB/s", "200KB/s", "10GB/s"}, map[string]string{"1": "between 1.00 KB/s", "999B/s": "between", "11GB/s": "10.0 GB/s", "-1": "not a size"}},
	"upload":          {[]string{"0", "50KB/s", "1.5MiB/s"}, map[string]string{"10": "upload must be 0", "1TB/s": "upload must be 0"}},
	"cpu":             {[]string{"0", "50", "100%"}, map[string]string{"101": "outside 0–100", "-5": "outside", "NaN": "not a percentage"}},
	"busy_threshold":  {[]string{"0", "25"}, map[string]string{"150": "outside"}},
	"busy_hysteresis": {[]string{"0", "10"}, map[string]string{"-1": "outside"}},
	"memory":          {[]string{"0", "32MiB", "512MB", "1TiB"}, map[string]string{"1MB": "too small", "2TiB": "at most 1 TiB", "-1": "not a size"}},
	"connections":     {[]string{"0", "8", "10000"}, map[string]string{"-1": "between 0 (no cap) and 10000", "10001": "10000", "1e6": "not a whole number"}},
	"threads":         {[]string{"1", "64"}, map[string]string{"0": "between 1 and 64", "65": "between 1 and 64", "-3": "between"}},
	"queue_length":    {[]string{"0", "1000"}, map[string]string{"1001": "between 0 and 1000", "-1": "between"}},
	"overload":        {[]string{"0", "8", "1064"}, map[string]string{"1065": "between 0 and 1064", "-1": "between", "2": "at least threads"}},
	"daily_quota":     {[]string{"0", "500MB"}, map[string]string{"2PB": "unknown unit", "2000TB": "daily_quota must be between"}},
	"monthly_quota":   {[]string{"0", "10GB", "1000TB"}, map[string]string{"1001TB": "monthly_quota must be between"}},
	"disk_max":        {[]string{"0", "16MiB", "5GB", "1000TB"}, map[string]string{"1MB": "too small", "1001TB": "disk_max must be between", "-1": "not a size"}},
	"disk_min_free":   {[]string{"0", "256MB", "10GB"}, map[string]string{"1001TB": "disk_min_free must be between"}},
	"preset":          {[]string{"quiet", "Standard", "full"}, map[string]string{"turbo": "not a preset (quiet, standard, full)", "": "not a preset"}},
	"quota_reset_day": {[]string{"1", "28"}, map[string]string{"0": "between 1 and 28", "29": "between 1 and 28", "31": "between"}},
	"schedule": {[]string{"", `{"windows":[{"days":["mon"],"start":"18:00","end":"23:00"}]}`}, map[string]string{
		`{"windows":[{"days":["xyz"],"start":"18:00","end":"23:00"}]}`: "xyz",
		"nope": "schedule",
		`{"windows":[{"days":["mon"],"start":"18:00","end":"23:00","download":"10B/s"}]}`:                                                            "window 1: download must be 0",
		`{"windows":[{"days":["mon"],"start":"18:00","end":"23:00","upload":"20GB/s"}]}`:                                                             "window 1: upload must be 0",
		`{"windows":[` + strings.Repeat(`{"days":["mon"],"start":"18:00","end":"23:00"},`, 168) + `{"days":["mon"],"start":"18:00","end":"23:00"}]}`: "at most 168",
	}},
	"snooze_until":     {[]string{"", "2030-01-01T00:00:00Z"}, map[string]string{"tomorrow": "RFC 3339"}},
	"paused":           {[]string{"true", "off"}, map[string]string{"maybe": "not true or false"}},
	"pause_on_battery": {[]string{"false", "on"}, map[string]string{"battery": "not true or false"}},
	"delay":            {[]string{"0", "2s", "1m"}, map[string]string{"2m": "between 0 and 1m", "-1s": "between", "fast": "not a duration"}},
	"start_at_login":   {[]string{"yes", "no"}, map[string]string{"2": "not true or false"}},
	"nickname":         {[]string{"", "bee keeper", "Ölbaum"}, map[string]string{strings.Repeat("x", 65): "longer than 64", "a\x07b": "printable", "a\nb": "printable"}},
	"api_port":         {[]string{"0", "1024", "7339", "65535"}, map[string]string{"22": "privileged", "1": "privileged", "1023": "between 1024 and 65535", "65536": "between 1024 and 65535", "-1": "between", "99999999999": "between 1024 and 65535", "7339x": "not a whole number"}},
	"metrics":          {[]string{"on", "off"}, map[string]string{"sometimes": "not true or false"}},

	"idle.on":       {[]string{"true", "off"}, map[string]string{"away": "not true or false"}},
	"idle.cpu":      {[]string{"0", "90", "100"}, map[string]string{"101": "outside 0–100", "-1": "outside"}},
	"idle.download": {[]string{"0", "1MB/s", "10GB/s"}, map[string]string{"10B/s": "idle.download must be 0", "20GB/s": "idle.download must be 0"}},
	"idle.upload":   {[]string{"0", "50KB/s"}, map[string]string{"10B/s": "idle.upload must be 0", "fast": "not a size"}},

	"notifications.first_contribution": {[]string{"true"}, map[string]string{"x": "not true or false"}},
	"notifications.daily_summary":      {[]string{"false"}, map[string]string{"x": "not true or false"}},
	"notifications.milestones":         {[]string{"on"}, map[string]string{"x": "not true or false"}},
	"notifications.problems":           {[]string{"off"}, map[string]string{"x": "not true or false"}},
}

// TestSettingRanges: every setting takes the values in its range and
// refuses the ones outside with an error that names the range, the same
// through Apply (hivecrawl set and the local API, so the Settings page)
// and through the configuration file.
func TestSettingRanges(t *testing.T) {
	for _, k := range Keys() {
		if _, ok := rangeCases[k[0]]; !ok {
			t.Errorf("setting %q has no range cases: add its values in and out of range", k[0])
		}
	}
	for name, tc := range rangeCases {
		for _, v := range tc.good {
			c := Default()
			if err := c.Apply(Change{Key: name, Value: v}); err != nil {
				t.Errorf("%s=%s: %v", name, v, err)
				continue
			}
			// What Apply accepted, the file takes back.
			data, _ := json.Marshal(c)
			if _, err := Parse(data); err != nil {
				t.Errorf("%s=%s saved, then the file is refused: %v", name, v, err)
			}
		}
		for v, want := range tc.bad {
			c := Default()
			err := c.Apply(Change{Key: name, Value: v})
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s=%q: %v, want an invalid-setting error containing %q", name, v, err, want)
			}
			if before, _ := json.Marshal(Default()); !jsonEqual(c, before) {
				t.Errorf("%s=%q refused, but the configuration changed", name, v)
			}
		}
	}
}

// TestFileRanges: the configuration file is held to the same ranges.
func TestFileRanges(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`{"api_port": 22}`, "privileged port"},
		{`{"api_port": 70000}`, "between 1024 and 65535"},
		{`{"connections": -4}`, "connections must be between"},
		{`{"connections": 1000000}`, "10000"},
		{`{"download": 5}`, "download must be 0"},
		{`{"download": "100GB/s"}`, "download must be 0"},
		{`{"memory": "4TiB"}`, "at most 1 TiB"},
		{`{"monthly_quota": 9e17}`, "monthly_quota must be between"},
		{`{"nickname": "a\u0000b"}`, "printable"},
		{`{"queue_length": 5000}`, "queue_length"},
	} {
		_, err := Parse([]byte(tc.file))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", tc.file, err, tc.want)
		}
	}
}

func jsonEqual(c Config, want []byte) bool {
	got, _ := json.Marshal(c)
	return string(got) == string(want)
}
