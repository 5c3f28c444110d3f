package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/jsontext"
)

// key is one setting reachable by name from the command line and the local
// API.
type key struct {
	help string
	set  func(c *Config, v string) error
}

// keys maps each setting's name (its JSON name) to its parser. Aliases map
// to the same entry.
var keys = map[string]key{
	"download":         {"download cap, bytes/s with units (200KB/s; 1KB/s to 10GB/s, 0 = unlimited)", bytesKey(func(c *Config) *Bytes { return &c.Download })},
	"upload":           {"upload cap, bytes/s with units (50KB/s; 1KB/s to 10GB/s, 0 = unlimited)", bytesKey(func(c *Config) *Bytes { return &c.Upload })},
	"cpu":              {"CPU cap for Hivecrawl, percent of the machine (0 = no cap)", percentKey(func(c *Config) *Percent { return &c.CPU })},
	"busy_threshold":   {"pause while other programs use more CPU than this (0 = never)", percentKey(func(c *Config) *Percent { return &c.BusyThreshold })},
	"busy_hysteresis":  {"resume only this many points below busy_threshold", percentKey(func(c *Config) *Percent { return &c.BusyHysteresis })},
	"memory":           {"memory (RSS) cap with units (512MB; 32MiB to 1TiB, 0 = no cap)", bytesKey(func(c *Config) *Bytes { return &c.Memory })},
	"connections":      {"open crawl sockets at most (up to 10000; 0 = no cap; the overlay's own cap follows, at least 16)", intKey(func(c *Config) *int { return &c.Connections })},
	"threads":          {"tasks crawled at once (CL; 1–64)", intKey(func(c *Config) *int { return &c.Threads })},
	"queue_length":     {"tasks waiting at most (0–1000)", intKey(func(c *Config) *int { return &c.QueueLength })},
	"overload":         {"overloading threshold OT (threads to 1064; 0 = threads + queue_length)", intKey(func(c *Config) *int { return &c.Overload })},
	"daily_quota":      {"transfer per day with units (500MB; up to 1000TB, 0 = no quota)", bytesKey(func(c *Config) *Bytes { return &c.DailyQuota })},
	"monthly_quota":    {"transfer per month with units (10GB; up to 1000TB, 0 = no quota)", bytesKey(func(c *Config) *Bytes { return &c.MonthlyQuota })},
	"quota_reset_day":  {"day of the month the monthly quota restarts (1–28)", intKey(func(c *Config) *int { return &c.QuotaResetDay })},
	"disk_max":         {"most Hivecrawl keeps on disk with units (5GB; 16MiB to 1000TB, 0 = no cap): near it no task starts, at it crawling pauses", bytesKey(func(c *Config) *Bytes { return &c.DiskMax })},
	"disk_min_free":    {"free space left on the data directory's disk, with units (256MB; 0 = none)", bytesKey(func(c *Config) *Bytes { return &c.DiskMinFree })},
	"schedule":         {`weekly windows as JSON ({"windows":[{"days":["mon"],"start":"18:00","end":"23:00"}]}; "" = always)`, setSchedule},
	"snooze_until":     {"pause until this RFC 3339 time (\"\" = not snoozed)", setSnooze},
	"paused":           {"explicit pause (true/false)", boolKey(func(c *Config) *bool { return &c.Paused })},
	"pause_on_battery": {"pause while the computer runs on battery (true/false; default true; UPower on Linux, the system on Windows and macOS)", boolKey(func(c *Config) *bool { return &c.PauseOnBattery })},
	"delay":            {"your own minimum wait between requests to one host, which can only slow crawling: the operator's wait applies when longer (2s; 0 = the operator's)", setDelay},
	"start_at_login":   {"start when you log in (true/false)", boolKey(func(c *Config) *bool { return &c.StartAtLogin })},
	"nickname":         {"name shown beside your credits (up to 64 bytes of printable text)", func(c *Config, v string) error { c.Nickname = v; return nil }},
	"api_port":         {"dashboard and local API port on 127.0.0.1 (1024–65535, default 7339; 0 = random; applies at next start)", intKey(func(c *Config) *int { return &c.APIPort })},
	"metrics":          {"serve Prometheus metrics at /metrics on the local API (on/off; default off)", boolKey(func(c *Config) *bool { return &c.Metrics })},

	"idle.on":       {"use the idle limits below while nobody uses the computer (true/false; default false; logind on Linux, 5 minutes without input on Windows and macOS)", boolKey(func(c *Config) *bool { return &c.Idle.On })},
	"idle.cpu":      {"CPU cap while the computer is idle, percent of the machine (0 = no cap)", percentKey(func(c *Config) *Percent { return &c.Idle.CPU })},
	"idle.download": {"download cap while the computer is idle, bytes/s with units (0 = unlimited)", bytesKey(func(c *Config) *Bytes { return &c.Idle.Download })},
	"idle.upload":   {"upload cap while the computer is idle, bytes/s with units (0 = unlimited)", bytesKey(func(c *Config) *Bytes { return &c.Idle.Upload })},

	"preset": {presetHelp(), setPreset},

	"notifications.first_contribution": {"notify on the first accepted contribution", boolKey(func(c *Config) *bool { return &c.Notifications.FirstContribution })},
	"notifications.daily_summary":      {"notify a daily summary", boolKey(func(c *Config) *bool { return &c.Notifications.DailySummary })},
	"notifications.milestones":         {"notify credit milestones", boolKey(func(c *Config) *bool { return &c.Notifications.Milestones })},
	"notifications.problems":           {"notify problems that need you", boolKey(func(c *Config) *bool { return &c.Notifications.Problems })},
}

// operatorKeys are settings that belong to the network's operator, not to
// volunteers, with why, for `hivecrawl set` to refuse them in words. Older
// clients let volunteers set them; a file that still has one loads with
// the key ignored (see file.go).
var operatorKeys = map[string]string{
	"user_agent": "Hivecrawl names itself to web sites with the operator's User-Agent " +
		"(its version and a contact URL) and obeys the robots.txt rules for the operator's product token, " +
		"so that sites can tell who crawls them; to crawl more slowly, set delay instead",
}

// aliases are short names accepted for convenience.
var aliases = map[string]string{
	"busy":          "busy_threshold",
	"queue":         "queue_length",
	"ot":            "overload",
	"cl":            "threads",
	"quota.daily":   "daily_quota",
	"quota.monthly": "monthly_quota",
	"quota.reset":   "quota_reset_day",
	"mem":           "memory",
	"down":          "download",
	"up":            "upload",
	"disk":          "disk_max",
	"min_free":      "disk_min_free",
}

// Keys lists every setting name with a one-line description, sorted.
func Keys() [][2]string {
	out := make([][2]string, 0, len(keys))
	for k, v := range keys {
		out = append(out, [2]string{k, v.help})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Change is one KEY=VALUE setting.
type Change struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Apply sets the named settings on c in order and validates the result; c
// is left unchanged on error. Keys are case-insensitive; "-" may stand for
// "_".
func (c *Config) Apply(changes ...Change) error {
	next := *c
	next.Schedule.Windows = append([]Window(nil), c.Schedule.Windows...)
	for _, ch := range changes {
		name := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(ch.Key)), "-", "_")
		if a, ok := aliases[name]; ok {
			name = a
		}
		if why, ok := operatorKeys[name]; ok {
			return invalidf("%s is %w, not by a volunteer: %s", name, ErrOperatorSetting, why)
		}
		k, ok := keys[name]
		if !ok {
			return fmt.Errorf("%w %q (known: %s)", ErrUnknownKey, ch.Key, strings.Join(keyNames(), ", "))
		}
		if err := k.set(&next, strings.TrimSpace(ch.Value)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := next.Validate(); err != nil {
		return err
	}
	*c = next
	return nil
}

func keyNames() []string {
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func bytesKey(field func(*Config) *Bytes) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := ParseBytes(v)
		if err != nil {
			return err
		}
		*field(c) = b
		return nil
	}
}

func percentKey(field func(*Config) *Percent) func(*Config, string) error {
	return func(c *Config, v string) error {
		p, err := ParsePercent(v)
		if err != nil {
			return err
		}
		*field(c) = p
		return nil
	}
}

func intKey(field func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return invalidf("%q is not a whole number", v)
		}
		*field(c) = n
		return nil
	}
}

func boolKey(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		on, err := ParseSwitch(v)
		if err != nil {
			return err
		}
		*field(c) = on
		return nil
	}
}

// ParseSwitch reads an on/off value as settings take it: true, on, yes
// or 1, and false, off, no or 0, in any case.
func ParseSwitch(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "on", "yes", "1":
		return true, nil
	case "false", "off", "no", "0":
		return false, nil
	}
	return false, invalidf("%q is not true or false", v)
}

// scheduleExample is a schedule as the set command takes it.
const scheduleExample = `{"windows":[{"days":["mon","fri"],"start":"18:00","end":"23:00"}]}`

func setSchedule(c *Config, v string) error {
	if v == "" {
		c.Schedule = Schedule{}
		return nil
	}
	s, err := parseSchedule(v)
	if err != nil {
		return err
	}
	c.Schedule = s
	return nil
}

// parseSchedule reads a schedule written as JSON, as `hivecrawl set
// schedule=...` takes it. Its errors say what is wrong in words, with an
// example, rather than as the JSON decoder's; Apply puts "schedule: "
// before them.
func parseSchedule(v string) (Schedule, error) {
	var s Schedule
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	err := dec.Decode(&s)
	if err == nil && dec.More() {
		err = errors.New("trailing data")
	}
	if err == nil {
		return s, nil
	}
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, ErrInvalid):
		return Schedule{}, err // a day or a time of day, in words already
	case errors.As(err, &typ) && typ.Field != "":
		return Schedule{}, invalidf("%q must be %s, not %s (example: %s)",
			typ.Field, jsontext.Kind(typ.Type.Kind()), typ.Value, scheduleExample)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return Schedule{}, invalidf("%s: a schedule has \"windows\", each with \"days\", \"start\", \"end\" and optionally \"download\" and \"upload\" (example: %s)",
			strings.TrimPrefix(err.Error(), "json: "), scheduleExample)
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &typ):
		return Schedule{}, invalidf("%q is not JSON: write it in single quotes, such as '%s', or \"\" to crawl at any time", v, scheduleExample)
	}
	return Schedule{}, invalidf("%q is not one JSON object (%v): write it such as '%s'", v, err, scheduleExample)
}

func setSnooze(c *Config, v string) error {
	if v == "" {
		c.SnoozeUntil = time.Time{}
		return nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return invalidf("%q is not an RFC 3339 time", v)
	}
	c.SnoozeUntil = t
	return nil
}

func setDelay(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return invalidf("%q is not a duration (1s, 500ms)", v)
	}
	c.Delay = Duration(d)
	return nil
}

// SnoozeUntil turns "1h", "30m" or "tomorrow" into the time crawling
// resumes, relative to now: "tomorrow" is the next local midnight.
func SnoozeUntil(now time.Time, s string) (time.Time, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "1h":
		return now.Add(time.Hour), nil
	case "tomorrow":
		y, m, d := now.Date()
		return time.Date(y, m, d+1, 0, 0, 0, 0, now.Location()), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > 7*24*time.Hour {
		return time.Time{}, invalidf("snooze %q: use a duration up to a week (1h, 30m) or \"tomorrow\"", s)
	}
	return now.Add(d), nil
}
