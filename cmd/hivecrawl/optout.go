package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/operator"
)

func init() {
	register(command{name: "optout", summary: "keep the crawler off sites: optout add|remove|list HOST|DOMAIN... (the manager)",
		args: "add|remove|list [flags] [HOST|DOMAIN...]", help: optoutHelp, words: []string{"add", "remove", "list"},
		flags: flagsOf(optoutFlags), run: stdio(optoutMain)})
}

const optoutHelp = `Puts web sites on the opt-out list of the manager running with this
--home, takes them off it, or lists it. A site on the list gets no
request from the network within a minute: the manager ends its tasks,
tells the volunteers crawling it to stop at once, removes its channels,
refuses what they fetched, and no seed, link or IndexNow submission
brings it back. Name a host (www.example.com: that host alone) or a
registrable domain (example.com: it and every host under it), or a URL
on one. Site owners can opt themselves out on the manager's site server
(--directory), proving it with a file on the site.

  add     put the sites on the list (all or none)
  remove  take them off; their channels stay removed until a seed brings
          them back
  list    show the list, with when and by whom each was added`

// optoutOptions are optout's flags.
type optoutOptions struct {
	home *string
}

func optoutFlags(o *optoutOptions) *flag.FlagSet {
	fs := newFlagSet("optout")
	o.home = paths.Flag(fs)
	return fs
}

// optoutMain sends the opt-out list's changes to the local API of the
// manager with the same data directory (an operator's, or solo mode's
// embedded one).
func optoutMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o optoutOptions
	fs := optoutFlags(&o)
	if code, done := parseFlags(fs, reorder(args), stdout, stderr); done {
		return code
	}
	verb, names := fs.Arg(0), fs.Args()[min(1, fs.NArg()):]
	switch {
	case verb == "list" && len(names) == 0:
	case (verb == "add" || verb == "remove") && len(names) > 0:
	default:
		fmt.Fprintln(stderr, "usage: "+commands["optout"].synopsis()+" (see 'hivecrawl optout -h')")
		return 2
	}
	name := "optout " + verb
	dirs, err := paths.Resolve(*o.home)
	if err != nil {
		return fail(stderr, name, err)
	}
	info := filepath.Join(managerDir(dirs), manager.APIFile)
	switch verb {
	case "add":
		var out operator.OptOutResponse
		if err := callManager(ctx, info, http.MethodPost, "/api/optouts", operator.OptOutRequest{Names: names}, &out); err != nil {
			return fail(stderr, name, err)
		}
		for _, r := range out.OptedOut {
			printOptedOut(stdout, r)
		}
	case "remove":
		var out operator.OptInResponse
		if err := callManager(ctx, info, http.MethodPost, "/api/optouts/remove", operator.OptOutRequest{Names: names}, &out); err != nil {
			return fail(stderr, name, err)
		}
		if len(out.Lifted) > 0 {
			fmt.Fprintf(stdout, "Off the opt-out list: %s (their channels come back when a seed names them)\n", strings.Join(out.Lifted, " "))
		}
		if n := len(names) - len(out.Lifted); n > 0 {
			fmt.Fprintf(stdout, "%d of the names were not on the list\n", n)
		}
	case "list":
		var out operator.OptOutList
		if err := callManager(ctx, info, http.MethodGet, "/api/optouts", nil, &out); err != nil {
			return fail(stderr, name, err)
		}
		if len(out.OptOuts) == 0 {
			fmt.Fprintln(stdout, "No site has opted out.")
		}
		for _, o := range out.OptOuts {
			what := "host"
			if o.Domain {
				what = "domain"
			}
			fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\n", o.Name, what, o.At.UTC().Format("2006-01-02 15:04 UTC"), o.By)
		}
	}
	return 0
}

// printOptedOut says what opting one site out did.
func printOptedOut(w io.Writer, r operator.OptedOut) {
	what := r.Name
	if r.Domain {
		what += " and every host under it"
	}
	if r.Known {
		fmt.Fprintf(w, "Opted out already: %s\n", what)
		return
	}
	fmt.Fprintf(w, "Opted out %s: %d channels removed, %d running crawls told to stop\n", what, len(r.Channels), len(r.Stopped))
}

// callManager is askManager, with what to do when no manager runs.
func callManager(ctx context.Context, infoPath, method, path string, body, out any) error {
	err := askManager(ctx, infoPath, method, path, body, out)
	if errors.Is(err, loopback.ErrNotRunning) {
		return errors.New("no manager is running with this data directory: start it with 'hivecrawl manager', or name its --home")
	}
	return err
}

// askManager sends a request with body (JSON; nil for none) to the
// local API of the manager whose API info is at infoPath and decodes its
// answer into out (loopback.ErrNotRunning when none is running).
func askManager(ctx context.Context, infoPath, method, path string, body, out any) error {
	info, err := loopback.ReadInfo(infoPath)
	if err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, info.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(loopback.TokenHeader, info.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("reach the manager at %s: %w (is it still running?)", info.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("read the manager's answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		switch {
		case json.Unmarshal(b, &e) == nil && e.Error != "" && res.StatusCode == http.StatusBadRequest:
			return errors.New(e.Error)
		case e.Error != "":
			return fmt.Errorf("the manager answered %s: %s", res.Status, e.Error)
		}
		return fmt.Errorf("the manager answered %s: %s", res.Status, bytes.TrimSpace(b))
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("the manager's answer: %w", err)
	}
	return nil
}
