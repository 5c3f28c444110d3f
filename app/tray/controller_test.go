package tray

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// backend is an in-memory client behind a real local API server.
type backend struct {
	mu        sync.Mutex
	paused    bool
	snoozed   time.Time
	finishing bool
	cfg       *config.Config // nil = the defaults
}

func (b *backend) Status(context.Context) (localapi.Status, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := localapi.Status{State: "running"}
	if b.paused {
		st.State, st.Reasons = "paused", append(st.Reasons, "Paused by you")
	}
	if b.finishing {
		st.Finishing = true
	}
	if !b.snoozed.IsZero() {
		st.State, st.Reasons = "paused", append(st.Reasons, "Snoozed until "+b.snoozed.Format("15:04"))
	}
	st.Preset = b.config().Preset()
	return st, nil
}
func (b *backend) config() config.Config {
	if b.cfg == nil {
		c := config.Default()
		b.cfg = &c
	}
	return *b.cfg
}
func (b *backend) Config(context.Context) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
func (b *backend) SetConfig(_ context.Context, changes []localapi.Change) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.config()
	for _, ch := range changes {
		if err := c.Apply(config.Change{Key: ch.Key, Value: ch.Value}); err != nil {
			return localapi.Invalid(err)
		}
	}
	b.cfg = &c
	return nil
}
func (b *backend) Pause(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.paused = true
	return nil
}
func (b *backend) Finish(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.finishing = true
	return nil
}
func (b *backend) Resume(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.paused, b.snoozed = false, time.Time{}
	return nil
}
func (b *backend) Snooze(_ context.Context, d string) (time.Time, error) {
	dur, err := time.ParseDuration(d)
	if err != nil {
		return time.Time{}, localapi.Invalid(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.snoozed = time.Now().Add(dur)
	return b.snoozed, nil
}

func apiClient(t *testing.T, b localapi.Backend) *localapi.Client {
	t.Helper()
	srv, err := localapi.Listen(b, localapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return localapi.NewClient(loopback.Info{URL: srv.URL(), Token: srv.Token()})
}

func TestControllerClicks(t *testing.T) {
	b := &backend{}
	var opened []string
	quits := 0
	c := NewController(Options{
		API: apiClient(t, b),
		SignIn: func(_ context.Context, page string) (string, error) {
			return "http://127.0.0.1/ui/login?code=x&next=" + page, nil
		},
		Open: func(u string) error { opened = append(opened, u); return nil },
		Quit: func() { quits++ },
	})
	ctx := context.Background()
	if v := c.Refresh(ctx); v.Held || v.Title != "Idle: waiting for tasks" {
		t.Fatalf("first view %+v", v)
	}
	steps := []struct {
		name      string
		item      Item
		wantHeld  bool
		wantTitle string
	}{
		{"pause", ItemPauseResume, true, "Paused by you"},
		{"resume", ItemPauseResume, false, "Idle: waiting for tasks"},
		{"snooze", ItemSnooze, true, "Snoozed until"},
		{"resume after snooze", ItemPauseResume, false, "Idle: waiting for tasks"},
		{"dashboard", ItemDashboard, false, "Idle: waiting for tasks"},
		{"settings", ItemSettings, false, "Idle: waiting for tasks"},
		{"finish", ItemFinish, false, "Finishing 0 sites, then pausing"},
	}
	for _, s := range steps {
		v, err := c.Click(ctx, s.item)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if v.Held != s.wantHeld || len(v.Title) < len(s.wantTitle) || v.Title[:len(s.wantTitle)] != s.wantTitle {
			t.Errorf("%s: view %+v, want held %v title %q…", s.name, v, s.wantHeld, s.wantTitle)
		}
	}
	if b.paused || !b.snoozed.IsZero() {
		t.Error("backend still held after resume")
	}
	// The Preset submenu sets the limits it names and ticks what they are.
	if v := c.View(); v.Preset != config.PresetStandard {
		t.Errorf("new client's preset %q, want %q", v.Preset, config.PresetStandard)
	}
	for _, p := range []struct {
		item Item
		want string
	}{{ItemPresetQuiet, config.PresetQuiet}, {ItemPresetFull, config.PresetFull}, {ItemPresetStandard, config.PresetStandard}} {
		v, err := c.Click(ctx, p.item)
		if err != nil || v.Preset != p.want || b.config().Preset() != p.want {
			t.Errorf("click preset %s: view preset %q, client's %q, err %v", p.want, v.Preset, b.config().Preset(), err)
		}
	}
	if len(opened) != 2 || opened[0] != "http://127.0.0.1/ui/login?code=x&next=" || opened[1] != "http://127.0.0.1/ui/login?code=x&next=settings" {
		t.Errorf("opened %q", opened)
	}
	if _, err := c.Click(ctx, ItemQuit); err != nil || quits != 1 {
		t.Errorf("quit: %v, %d calls", err, quits)
	}
}

func TestControllerClientGone(t *testing.T) {
	c := NewController(Options{API: localapi.NewClient(loopback.Info{URL: "http://127.0.0.1:1"})})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v := c.Refresh(ctx)
	if v.Icon != "offline" {
		t.Errorf("icon %q with no client, want offline", v.Icon)
	}
	if _, err := c.Click(ctx, ItemPauseResume); err == nil {
		t.Error("pause with no client succeeded")
	}
	if _, err := c.Click(ctx, ItemDashboard); err == nil {
		t.Error("dashboard without a sign-in function succeeded")
	}
}

// When no browser starts, "Open dashboard" tells the sign-in link in a
// notification, in the words `hivecrawl open` prints, instead of showing
// nothing.
func TestControllerTellsTheLinkWithoutABrowser(t *testing.T) {
	for _, tc := range []struct {
		name     string
		openErr  error
		wantBody string
	}{
		{"no desktop", ErrNoBrowser, "No desktop here to open a browser in. Open this link in a browser on this machine within two minutes:\n  http://127.0.0.1/ui/login?code=x&next="},
		{"xdg-open failed", errors.New("xdg-open could not start a browser: no method available"),
			"No browser started (xdg-open could not start a browser: no method available). Open this link in your browser within two minutes:\n  http://127.0.0.1/ui/login?code=x&next="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var told []string
			c := NewController(Options{
				API: apiClient(t, &backend{}),
				SignIn: func(_ context.Context, page string) (string, error) {
					return "http://127.0.0.1/ui/login?code=x&next=" + page, nil
				},
				Open: func(string) error { return tc.openErr },
				Tell: func(_ context.Context, title, body string) error { told = append(told, title+"|"+body); return nil },
			})
			if _, err := c.Click(context.Background(), ItemDashboard); err != nil {
				t.Errorf("click: %v", err)
			}
			if want := NoBrowserTitle + "|" + tc.wantBody; len(told) != 1 || told[0] != want {
				t.Errorf("told %q, want %q", told, want)
			}
		})
	}
	// A notification that cannot be shown either is the click's error.
	c := NewController(Options{
		API:    apiClient(t, &backend{}),
		SignIn: func(context.Context, string) (string, error) { return "http://127.0.0.1/ui/login?code=x", nil },
		Open:   func(string) error { return ErrNoBrowser },
		Tell:   func(context.Context, string, string) error { return errors.New("no notification service") },
	})
	if _, err := c.Click(context.Background(), ItemDashboard); err == nil || !errors.Is(err, ErrNoBrowser) {
		t.Errorf("click without browser or notifications: %v", err)
	}
}
