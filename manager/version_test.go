package manager

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/semver"
	"github.com/hivecrawl/hivecrawl/proto/entry"
	"github.com/hivecrawl/hivecrawl/proto/lease"
	"github.com/hivecrawl/hivecrawl/proto/profile"
)

// TestMinClientVersionRefusesClaims: with a minimum client version, a
// claim stating an older version, or none, is refused with the reason
// and the update hint, and so is an entry request; a claim at the
// minimum is granted. The claim's refusal binds whatever a client said
// on entering.
func TestMinClientVersionRefusesClaims(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	m := newManagerWith(t, t.TempDir(), clk, func(o *Options) {
		o.Admission.MinClientVersion, o.Admission.UpdateHint = "0.3.0", "see https://hivecrawl.example/download"
	})
	if p, err := profile.Read(m.ProfilePath()); err != nil || p.MinClientVersion != "0.3.0" {
		t.Fatalf("profile's minimum client version %v, %v; want 0.3.0", p, err)
	}
	q, tk, env, ph := firstTask(ctx, t, m)
	claim := func(version string) (lease.Answer, error) {
		return lease.Send(ctx, ph, m.ID(), lease.Request{Op: lease.Claim, Task: env, Proof: q.proof(tk.ID), TaskID: tk.ID, Epoch: tk.Lease.Epoch, Version: version})
	}
	for _, old := range []string{"0.2.9", "0.3.0-rc.1", "", "dev"} {
		a, err := claim(old)
		if !errors.Is(err, lease.ErrOver) {
			t.Fatalf("claim stating %q: %+v, %v; want refused", old, a, err)
		}
		if !strings.Contains(a.Outdated, "0.3.0") || !strings.Contains(a.Outdated, "hivecrawl.example/download") {
			t.Errorf("claim stating %q refused with %q, want the minimum and the update hint", old, a.Outdated)
		}
	}
	a, err := entry.Ask(ctx, ph, m.ID(), entry.Request{Op: entry.OpRenew, Version: "0.2.0"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Outdated == "" || len(a.Certs) > 0 {
		t.Errorf("entry answer to 0.2.0: %+v, want outdated and no certificate", a)
	}
	if a, err := claim("0.3.0"); err != nil || !a.Granted || a.Outdated != "" {
		t.Fatalf("claim stating 0.3.0: %+v, %v; want granted", a, err)
	}
}

// TestNewRefusesMalformedMinClientVersion: a minimum that is no version
// stops the manager at start, saying what a good one looks like.
func TestNewRefusesMalformedMinClientVersion(t *testing.T) {
	for _, bad := range []string{"1.2", "latest", "v", "1.2.3.4", "01.0.0"} {
		t.Run(bad, func(t *testing.T) {
			_, err := New(context.Background(), Options{Dir: t.TempDir(), Listen: []string{"/ip4/127.0.0.1/tcp/0"}, Logger: quiet, Admission: AdmissionOptions{MinClientVersion: bad}})
			if !errors.Is(err, semver.ErrMalformed) || !strings.Contains(err.Error(), "such as 0.2.0") {
				t.Fatalf("New with minimum %q: %v; want a malformed-version error with an example", bad, err)
			}
		})
	}
}
