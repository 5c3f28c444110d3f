package swarm

import (
	"testing"

	"github.com/hivecrawl/hivecrawl/app/config"
)

// TestClientsLeaveTheDashboardPort checks that a swarm's clients (the
// demo's volunteers) take free ports for their dashboards, never the
// user's fixed one, and that a swarm's own settings still apply.
func TestClientsLeaveTheDashboardPort(t *testing.T) {
	s := &Swarm{cfg: Config{Client: func(c *config.Config) { c.Threads = 2 }}}
	c := &Client{Proc: &Proc{Name: "client-00"}, s: s, Home: t.TempDir()}
	dirs := homeDirs(c.Home)
	if err := dirs.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := c.configure(); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dirs.ConfigFile())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIPort != 0 {
		t.Errorf("a swarm client's api_port is %d, want 0 (any free port; %d is the user's)", cfg.APIPort, config.DefaultAPIPort)
	}
	if cfg.Threads != 2 {
		t.Errorf("threads = %d, want the swarm's 2", cfg.Threads)
	}
}
