package storage

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/p2p/envelope"
	"github.com/hivecrawl/hivecrawl/task"
)

// TestOnlyTheLeaseHolderUploads: a peer that never held a task's lease
// (it was never given the task, or another crawler claimed it) is refused,
// however genuine the signed task it presents; its pages reach neither the
// WARC files nor the index, and it earns nothing. The holder's upload is
// stored.
func TestOnlyTheLeaseHolderUploads(t *testing.T) {
	r := newRig(t)
	c, err := r.db.Get(r.channel)
	if err != nil {
		t.Fatal(err)
	}
	tk := c.Tasks(1, channels.PagePlan{})[0]
	spec, _ := tk.Encode()
	rec := channels.Task{ID: tk.ID, Channel: c.ID, Round: 1, Issued: r.clock, Deadline: r.clock.Add(time.Hour), Spec: spec, Host: "site.example"}
	if err := r.db.Issue(c.ID, 1, []channels.Task{rec}, r.clock); err != nil {
		t.Fatal(err)
	}
	lt := channels.LeaseTimes{Hold: time.Minute, StartWithin: time.Hour, Skew: time.Minute}
	g, ok, err := r.db.Grant(tk.ID, r.clock, lt)
	if err != nil || !ok {
		t.Fatalf("grant: %v %v", ok, err)
	}
	tk.Lease = task.Lease{Host: g.Host, Epoch: g.Epoch, Expires: g.StartBy}
	env, err := envelope.Seal(tk, r.key)
	if err != nil {
		t.Fatal(err)
	}
	holder, hh := r.client(t)
	cheat, _ := r.client(t)
	if _, err := r.db.Claim(tk.ID, g.Epoch, hh.ID().String(), r.clock, lt); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	invented := make([]*task.Page, 0, 50)
	for i := range 50 {
		invented = append(invented, page("http://site.example/invented-"+strings.Repeat("x", i), "made up"))
	}
	if _, err := cheat.Upload(ctx, delivery(t, tk.ID, env, invented, nil)); err == nil || !strings.Contains(err.Error(), "does not hold") {
		t.Fatalf("upload from a peer without the lease = %v, want a refusal", err)
	}
	if tot, _ := r.st.Totals(); tot.Records != 0 || tot.Uploads != 0 || tot.Refused != 1 {
		t.Fatalf("after the refused upload: %+v", tot)
	}
	if files, _ := filepath.Glob(filepath.Join(WARCDir(r.dir), "*.warc.gz")); len(files) > 0 {
		_, targets := warcRecords(t, r.dir)
		for _, u := range targets {
			if strings.Contains(u, "invented") {
				t.Fatalf("a refused upload's page reached the WARC output: %s", u)
			}
		}
	}
	if _, err := holder.Upload(ctx, delivery(t, tk.ID, env, []*task.Page{page("http://site.example/", "home")}, nil)); err != nil {
		t.Fatalf("the holder's upload: %v", err)
	}
	if tot, _ := r.st.Totals(); tot.Records != 1 || tot.Uploads != 1 {
		t.Fatalf("after the holder's upload: %+v", tot)
	}
}

// TestOptedOutUploadRefused: the lease holder of a task whose site opted
// out while it crawled uploads what it fetched: refused for good, and
// nothing of it is stored or indexed.
func TestOptedOutUploadRefused(t *testing.T) {
	r := newRig(t)
	c, err := r.db.Get(r.channel)
	if err != nil {
		t.Fatal(err)
	}
	tk := c.Tasks(1, channels.PagePlan{})[0]
	spec, _ := tk.Encode()
	rec := channels.Task{ID: tk.ID, Channel: c.ID, Round: 1, Issued: r.clock, Deadline: r.clock.Add(time.Hour), Spec: spec, Host: "site.example"}
	if err := r.db.Issue(c.ID, 1, []channels.Task{rec}, r.clock); err != nil {
		t.Fatal(err)
	}
	lt := channels.LeaseTimes{Hold: time.Minute, StartWithin: time.Hour, Skew: time.Minute}
	g, ok, err := r.db.Grant(tk.ID, r.clock, lt)
	if err != nil || !ok {
		t.Fatalf("grant: %v %v", ok, err)
	}
	tk.Lease = task.Lease{Host: g.Host, Epoch: g.Epoch, Expires: g.StartBy}
	env, err := envelope.Seal(tk, r.key)
	if err != nil {
		t.Fatal(err)
	}
	holder, hh := r.client(t)
	if _, err := r.db.Claim(tk.ID, g.Epoch, hh.ID().String(), r.clock, lt); err != nil {
		t.Fatal(err)
	}
	if _, err := r.db.AddOptOut("site.example", channels.OptOutByOperator, r.clock); err != nil {
		t.Fatal(err)
	}
	_, err = holder.Upload(context.Background(), delivery(t, tk.ID, env, []*task.Page{page("http://site.example/", "home")}, nil))
	if err == nil || !strings.Contains(err.Error(), "opted out") {
		t.Fatalf("upload after the opt-out = %v, want a refusal naming the opt-out", err)
	}
	if tot, _ := r.st.Totals(); tot.Records != 0 || tot.Uploads != 0 {
		t.Fatalf("after the refused upload: %+v", tot)
	}
}
