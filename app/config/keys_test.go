package config

import (
	"errors"
	"strings"
	"testing"
)

// TestApplyErrorsSayItOnce checks that a refused setting reads as one
// sentence after the command's name: the key once and what is wrong.
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
			want: `api_port must be between 0 and 65535, got 70000`},
		{name: "unknown key", key: "colour", value: "1", unknown: true},
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
