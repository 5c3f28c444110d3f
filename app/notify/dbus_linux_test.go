package notify

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/testkit/dbustest"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// received is one Notify call the test's notification server got.
type received struct {
	app, summary, body string
	hints              map[string]dbus.Variant
}

// notifications is a test org.freedesktop.Notifications server.
type notifications struct {
	mu  sync.Mutex
	got []received
}

func (n *notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, received{app, summary, body, hints})
	return uint32(len(n.got)), nil
}

func (n *notifications) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body"}, nil
}

func (n *notifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "test", "hivecrawl", "1", "1.2", nil
}

func (n *notifications) CloseNotification(id uint32) *dbus.Error { return nil }

func (n *notifications) all() []received {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]received(nil), n.got...)
}

// scripted is a client whose status and switches the test sets, behind a
// real local API server.
type scripted struct {
	mu  sync.Mutex
	st  localapi.Status
	cfg string
}

func (s *scripted) set(st localapi.Status, cfg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st, s.cfg = st, cfg
}
func (s *scripted) Status(context.Context) (localapi.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st, nil
}
func (s *scripted) Config(context.Context) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return json.RawMessage(s.cfg), nil
}
func (s *scripted) SetConfig(context.Context, []localapi.Change) error { return errors.New("no") }
func (s *scripted) Pause(context.Context) error                        { return errors.New("no") }
func (s *scripted) Finish(context.Context) error                       { return errors.New("no") }
func (s *scripted) Resume(context.Context) error                       { return errors.New("no") }
func (s *scripted) Snooze(context.Context, string) (time.Time, error) {
	return time.Time{}, errors.New("no")
}

func TestDesktopNotificationsOverDBus(t *testing.T) {
	addr := dbustest.Bus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv := &notifications{}
	if err := conn.Export(srv, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v %v", reply, err)
	}

	backend := &scripted{}
	api, err := localapi.Listen(backend, localapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { api.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	clock := t0
	stateFile := filepath.Join(t.TempDir(), "notify.json")
	n, err := New(Options{
		API: localapi.NewClient(loopback.Info{URL: api.URL(), Token: api.Token()}), Sender: Desktop{},
		StateFile: stateFile, Now: func() time.Time { return clock },
	})
	if err != nil {
		t.Fatal(err)
	}
	on := `{"notifications":{"first_contribution":true,"milestones":false,"problems":true,"daily_summary":false}}`
	steps := []struct {
		name string
		st   localapi.Status
		cfg  string
		want []string
	}{
		{"nothing yet", pages(0, 0), on, nil},
		{"first pages", pages(8, 8), on, []string{"Your first contribution was accepted"}},
		{"milestones switched off", credits(150), on, nil},
		{"quota", localapi.Status{State: "paused", Pages: localapi.Pages{Total: 8}, Reasons: []string{"Paused: daily transfer quota of 1 GB reached"}}, on,
			[]string{"Hivecrawl paused: transfer quota reached"}},
	}
	seen := 0
	for _, s := range steps {
		backend.set(s.st, s.cfg)
		clock = clock.Add(time.Minute)
		n.Check(ctx)
		got := srv.all()[seen:]
		seen += len(got)
		var titles []string
		for _, g := range got {
			titles = append(titles, g.summary)
			if g.app != "Hivecrawl" || g.body == "" {
				t.Errorf("%s: notification from %q with body %q", s.name, g.app, g.body)
			}
			if _, ok := g.hints["image-data"]; !ok {
				t.Errorf("%s: notification without the icon", s.name)
			}
		}
		if strings.Join(titles, "|") != strings.Join(s.want, "|") {
			t.Errorf("%s: server got %q, want %q", s.name, titles, s.want)
		}
	}
	// The state survives a restart: nothing is told twice.
	n2, err := New(Options{API: localapi.NewClient(loopback.Info{URL: api.URL()}), Sender: Desktop{}, StateFile: stateFile, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Minute)
	n2.Check(ctx)
	if extra := srv.all()[seen:]; len(extra) != 0 {
		t.Errorf("after a restart the server got %+v", extra)
	}
}
