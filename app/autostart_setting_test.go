package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// A client without a desktop has no login to start at: turning start at
// login on is refused with what to do instead, and its status says so;
// with the tray in the process the setting is taken.
func TestStartAtLoginNeedsTheDesktop(t *testing.T) {
	for _, tc := range []struct {
		name    string
		desktop bool
		value   string
		refused bool
	}{
		{"headless on", false, "true", true},
		{"headless on as yes", false, " yes", true},
		{"headless off", false, "false", false},
		{"desktop on", true, "true", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			quietConfig(t, home, "")
			c, err := New(context.Background(), Options{Home: home, Mode: ModeLocal, Desktop: tc.desktop, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = c.SetConfig(context.Background(), []localapi.Change{{Key: "start_at_login", Value: tc.value}})
			if tc.refused {
				if !errors.Is(err, localapi.ErrConflict) || !strings.Contains(err.Error(), "systemctl --user enable --now hivecrawl") {
					t.Errorf("turned on headless: %v", err)
				}
				if c.Settings().Get().StartAtLogin {
					t.Error("the refused setting was kept")
				}
			} else if err != nil {
				t.Errorf("set %s: %v", tc.value, err)
			}
			st, _ := c.Status(context.Background())
			if st.Desktop != tc.desktop {
				t.Errorf("status says desktop %v", st.Desktop)
			}
		})
	}
}
