package config

import (
	"errors"
	"os"
	"path/filepath"
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
	if err := s.Apply(Change{"paused", "true"}); err != nil {
		t.Fatal(err)
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
