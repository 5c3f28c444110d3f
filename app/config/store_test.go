package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStoreApplyPersistsAndPushes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	s := Open(path)
	if s.Problem() != nil {
		t.Fatal(s.Problem())
	}
	ch, cancel := s.Subscribe()
	defer cancel()
	if err := s.Apply(Change{"download", "200KB/s"}, Change{"cpu", "30%"}, Change{"threads", "4"}, Change{"quota.daily", "500MB"}); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-ch:
		if c.Download != 200000 || c.CPU != 30 || c.Threads != 4 || c.DailyQuota != 500e6 {
			t.Errorf("pushed %+v", c)
		}
	default:
		t.Fatal("subscriber got nothing")
	}
	onDisk, err := Load(path)
	if err != nil || onDisk.Download != 200000 || onDisk.Threads != 4 {
		t.Fatalf("not persisted: %+v, %v", onDisk, err)
	}
}

func TestStoreWatchIsSynchronous(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "config.json"))
	var seen []Bytes
	cancel := s.Watch(func(c Config) {
		if s.Get().Download != c.Download {
			t.Error("watcher called before the change is current")
		}
		seen = append(seen, c.Download)
	})
	s.Apply(Change{"download", "1KB/s"})
	s.Apply(Change{"download", "bad"})
	s.Apply(Change{"download", "2KB/s"})
	cancel()
	s.Apply(Change{"download", "3KB/s"})
	if len(seen) != 2 || seen[0] != 1000 || seen[1] != 2000 {
		t.Fatalf("watcher saw %v, want [1000 2000]", seen)
	}
}

func TestStoreApplyAllOrNothing(t *testing.T) {
	tests := []struct {
		name    string
		changes []Change
		wantErr error
	}{
		{"unknown key", []Change{{"download", "1MB/s"}, {"speed", "fast"}}, ErrUnknownKey},
		{"bad value", []Change{{"download", "1MB/s"}, {"threads", "many"}}, ErrInvalid},
		{"invalid combination", []Change{{"download", "1MB/s"}, {"threads", "5"}, {"overload", "2"}}, ErrInvalid},
		{"bad percent", []Change{{"cpu", "120%"}}, ErrInvalid},
		{"bad schedule", []Change{{"schedule", `{"windows":[{"start":"25:00","end":"01:00"}]}`}}, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			s := Open(path)
			err := s.Apply(tt.changes...)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Apply error %v, want %v", err, tt.wantErr)
			}
			if s.Get().Download != 0 {
				t.Error("a failed Apply changed the live config")
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Error("a failed Apply wrote the file")
			}
		})
	}
}

func TestStoreBrokenFileNotOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	broken := []byte("{\n  \"threads\": 4,,\n}\n")
	os.WriteFile(path, broken, 0o600)
	s := Open(path)
	if s.Problem() == nil {
		t.Fatal("broken file not reported")
	}
	if err := s.Apply(Change{"paused", "true"}); !errors.Is(err, ErrNotSaved) {
		t.Fatalf("change to a damaged file: %v, want ErrNotSaved", err)
	}
	if !s.Get().Paused {
		t.Error("change not applied in memory")
	}
	got, _ := os.ReadFile(path)
	if string(got) != string(broken) {
		t.Errorf("broken file overwritten: %q", got)
	}
}

func TestStoreGetIsACopy(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "c.json"))
	s.Apply(Change{"schedule", `{"windows":[{"days":["mon"],"start":"08:00","end":"09:00"}]}`})
	c := s.Get()
	c.Schedule.Windows[0].Days[0] = 5
	if s.Get().Schedule.Windows[0].Days[0] != 1 {
		t.Error("Get shares the schedule with the store")
	}
}

func TestSnoozeUntil(t *testing.T) {
	now := time.Date(2026, 11, 22, 13, 5, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{"1h", now.Add(time.Hour), false},
		{"", now.Add(time.Hour), false},
		{"30m", now.Add(30 * time.Minute), false},
		{"tomorrow", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), false},
		{"-1h", time.Time{}, true},
		{"forever", time.Time{}, true},
		{"999h", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := SnoozeUntil(now, tt.in)
		if (err != nil) != tt.bad || !got.Equal(tt.want) {
			t.Errorf("SnoozeUntil(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestKeysDocumented(t *testing.T) {
	for _, k := range Keys() {
		if k[1] == "" {
			t.Errorf("key %s has no description", k[0])
		}
	}
	for _, want := range []string{"download", "upload", "cpu", "memory", "connections", "threads"} {
		c := Default()
		if err := c.Apply(Change{want, "1"}); errors.Is(err, ErrUnknownKey) {
			t.Errorf("key %s missing", want)
		}
	}
}

func TestOperatorSettingsRefused(t *testing.T) {
	for _, tc := range []struct{ name, key string }{
		{"json name", "user_agent"},
		{"dashed", "user-agent"},
		{"other case", "User_Agent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			s := Open(path)
			err := s.Apply(Change{"threads", "2"}, Change{tc.key, "Googlebot"})
			if !errors.Is(err, ErrOperatorSetting) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("set %s: err = %v, want ErrOperatorSetting", tc.key, err)
			}
			for _, w := range []string{"user_agent", "operator", "delay"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if s.Get().Threads != DefaultThreads {
				t.Error("a refused change applied the others with it")
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused change wrote the file: %v", err)
			}
		})
	}
	for _, k := range Keys() {
		if k[0] == "user_agent" {
			t.Error("Keys lists user_agent")
		}
	}
}

// TestOldFileWithUserAgent: a file an older client wrote with user_agent
// loads, with the key ignored and a note, and loses the key on the next
// save.
func TestOldFileWithUserAgent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("{\n  \"threads\": 2,\n  \"user_agent\": \"Googlebot\",\n  \"delay\": \"3s\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path)
	if err := s.Problem(); err != nil {
		t.Fatalf("file with user_agent not used: %v", err)
	}
	if c := s.Get(); c.Threads != 2 || c.Delay != Duration(3*time.Second) {
		t.Fatalf("loaded %+v", c)
	}
	notes := s.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "user_agent") || !strings.Contains(notes[0], "operator") {
		t.Fatalf("notes = %q, want one about user_agent", notes)
	}
	if err := s.Apply(Change{"threads", "3"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "user_agent") {
		t.Fatalf("saved file still has user_agent:\n%s", data)
	}
	// A broken value elsewhere is still reported on its own line.
	if _, err := Parse([]byte("{\"user_agent\": \"x\",\n\"threads\": \"two\"}")); err == nil || !strings.Contains(err.Error(), `line 2`) {
		t.Fatalf("error = %v, want one pointing at threads on line 2", err)
	}
}

// A damaged configuration file never lifts the contributor's limits: the
// store runs under the last good copy, says so, and does not save.
func TestStoreDamagedFileKeepsLastGoodLimits(t *testing.T) {
	damages := []struct {
		name   string
		damage func(path string, data []byte) error
	}{
		{"truncated", func(p string, d []byte) error { return os.WriteFile(p, d[:len(d)/2], 0o600) }},
		{"garbage in the middle", func(p string, d []byte) error {
			d = append([]byte(nil), d...)
			copy(d[len(d)/3:], bytes.Repeat([]byte{0xff, 0x00, '#'}, 8))
			return os.WriteFile(p, d, 0o600)
		}},
		{"zero length", func(p string, _ []byte) error { return os.WriteFile(p, nil, 0o600) }},
		{"a directory in its place", func(p string, _ []byte) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o700)
		}},
	}
	for _, tc := range damages {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			s := Open(path)
			if err := s.Apply(Change{"download", "1MB/s"}, Change{"monthly_quota", "10GB"}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.damage(path, data); err != nil {
				t.Fatal(err)
			}
			s = Open(path)
			err = s.Problem()
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "last good settings") {
				t.Fatalf("Problem() = %v, want the file named and the last good settings in use", err)
			}
			c := s.Get()
			if c.Download != 1_000_000 || c.MonthlyQuota != 10_000_000_000 || c.Held != "" {
				t.Errorf("running under download %v, monthly quota %v, held %q; want the saved 1MB/s and 10GB, not held", c.Download, c.MonthlyQuota, c.Held)
			}
			before, _ := os.ReadFile(GoodCopy(path))
			if err := s.Apply(Change{"upload", "2MB/s"}); !errors.Is(err, ErrNotSaved) {
				t.Errorf("a change to a damaged file: %v, want ErrNotSaved", err)
			}
			if s.Get().Upload != 2_000_000 {
				t.Error("the change did not apply to the running client")
			}
			if after, _ := os.ReadFile(GoodCopy(path)); !bytes.Equal(before, after) {
				t.Error("an unsaved change rewrote the good copy")
			}
		})
	}
}

// Without a good copy, a damaged file holds crawling rather than running
// with no limits; nothing the contributor sets lifts the hold.
func TestStoreDamagedFileWithoutGoodCopyHolds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("{\"download\": \"1MB/s\",\n\"upload\": }"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path)
	if err := s.Problem(); err == nil || !strings.Contains(err.Error(), "paused") {
		t.Fatalf("Problem() = %v, want crawling paused", err)
	}
	if s.Get().Held == "" {
		t.Fatal("crawling not held")
	}
	s.Apply(Change{"paused", "false"})
	if s.Get().Held == "" {
		t.Error("a setting lifted the hold")
	}
}

// A file the contributor edited by hand, and that loads, becomes the good
// copy.
func TestStoreHandEditBecomesGoodCopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	edit := []byte("{\"download\": \"3MB/s\"}\n")
	if err := os.WriteFile(path, edit, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Open(path).Problem(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(GoodCopy(path))
	if err != nil || !bytes.Equal(got, edit) {
		t.Fatalf("good copy %q (%v), want the loaded file", got, err)
	}
	os.WriteFile(path, []byte("{\"download\": "), 0o600)
	if c := Open(path).Get(); c.Download != 3_000_000 {
		t.Errorf("after damage download = %v, want the hand-edited 3MB/s", c.Download)
	}
}

// TestStoreKeepsHandEdits checks that a change made while the file was
// edited by hand applies on top of the edit instead of overwriting it, and
// that an edit that does not load is refused in words and left alone.
func TestStoreKeepsHandEdits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"threads": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path)
	var seen []Config
	defer s.Watch(func(c Config) { seen = append(seen, c) })()
	edit := func(body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	onDisk := func() Config {
		t.Helper()
		c, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	edit(`{"threads": 2, "download": "3MB/s"}`)
	if err := s.Apply(Change{"upload", "1MB/s"}); err != nil {
		t.Fatalf("set after a hand edit: %v", err)
	}
	if c := onDisk(); c.Download != 3_000_000 || c.Upload != 1_000_000 || c.Threads != 2 {
		t.Fatalf("file after the set: download %v, upload %v, threads %d; want the edit's 3MB/s and 2 kept", c.Download, c.Upload, c.Threads)
	}
	if c := s.Get(); c.Download != 3_000_000 || c.Upload != 1_000_000 {
		t.Fatalf("running with download %v, upload %v", c.Download, c.Upload)
	}
	if n := len(seen); n != 1 || seen[0].Download != 3_000_000 {
		t.Fatalf("watchers saw %d changes (%+v), want one with the edit", n, seen)
	}

	broken := "{\n  \"threads\": 2,,\n}\n"
	edit(broken)
	err := s.Apply(Change{"paused", "true"})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), path+" was changed outside Hivecrawl and does not load (line 2, column 17: ") ||
		!strings.HasSuffix(err.Error(), "fix it, or undo the change, and try again; nothing was changed, so the edit is kept") {
		t.Fatalf("set over a broken edit: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != broken {
		t.Fatalf("the broken edit was overwritten: %q", got)
	}
	if s.Get().Paused {
		t.Fatal("the refused change applied")
	}

	edit(`{"threads": 5}`)
	if err := s.Apply(Change{"paused", "true"}); err != nil {
		t.Fatalf("set after the edit was fixed: %v", err)
	}
	if c := onDisk(); c.Threads != 5 || !c.Paused || c.Download != 0 {
		t.Fatalf("file: threads %d, paused %v, download %v; want the fixed edit's 5, paused, no cap", c.Threads, c.Paused, c.Download)
	}

	// A change that fails still takes the edit in, and says so to
	// watchers.
	edit(`{"threads": 6}`)
	if err := s.Apply(Change{"cpu", "200"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("cpu=200: %v", err)
	}
	if c := s.Get(); c.Threads != 6 || c.Paused {
		t.Fatalf("running with threads %d, paused %v; want the edit's 6, not paused", c.Threads, c.Paused)
	}
	if last := seen[len(seen)-1]; last.Threads != 6 {
		t.Fatalf("watchers last saw threads %d, want 6", last.Threads)
	}
}
