package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/operator"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func init() {
	register(command{name: "seed", summary: "add sites by seed URLs: seed add URL... (solo mode's client, else the manager)",
		args: "add [flags] URL...", help: seedHelp, words: []string{"add"}, flags: flagsOf(seedFlags), run: stdio(seedMain)})
}

const seedHelp = `Adds sites to crawl, one seed URL each, with the same checks and answers
as 'hivecrawl channels add': a client running in solo mode with this
--home takes them; otherwise the manager running with this --home does
(--manager goes to the manager directly). Nothing is added unless every
URL passes: an http or https URL of a public web site.`

// seedOptions are seed's flags.
type seedOptions struct {
	home    *string
	manager bool
}

func seedFlags(o *seedOptions) *flag.FlagSet {
	fs := newFlagSet("seed")
	fs.BoolVar(&o.manager, "manager", false, "add to the manager running with the same --home (an operator's, or solo mode's embedded one), not through the client")
	o.home = paths.Flag(fs)
	return fs
}

// seedMain adds sites the one way 'hivecrawl channels add' does, through
// the client's local API in solo mode, and otherwise through the local
// API of the manager with the same data directory, whose check
// (manager.AddSites) is the same.
func seedMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o seedOptions
	fs := seedFlags(&o)
	if code, done := parseFlags(fs, reorder(args), stdout, stderr); done {
		return code
	}
	if fs.NArg() < 2 || fs.Arg(0) != "add" {
		fmt.Fprintln(stderr, "usage: "+commands["seed"].synopsis()+" (see 'hivecrawl seed -h')")
		return 2
	}
	urls := fs.Args()[1:]
	dirs, err := paths.Resolve(*o.home)
	if err != nil {
		return fail(stderr, "seed add", err)
	}
	var notSolo error // the client's answer outside solo mode
	if !o.manager {
		res, err := addThroughClient(ctx, dirs.APIFile(), urls)
		switch {
		case err == nil:
			printAdded(stdout, res)
			return 0
		case isNotSolo(err):
			notSolo = err
		case !errors.Is(err, loopback.ErrNotRunning):
			return fail(stderr, "seed add", err)
		}
	}
	res, err := postSeeds(ctx, filepath.Join(managerDir(dirs), manager.APIFile), urls)
	if errors.Is(err, loopback.ErrNotRunning) {
		switch {
		case notSolo != nil:
			var ae *localapi.APIError
			errors.As(notSolo, &ae)
			err = fmt.Errorf("%s; no manager runs with this data directory: run this on the manager's machine", ae.Message)
		case o.manager:
			err = errors.New("no manager is running with this data directory: start it with 'hivecrawl manager'")
		default:
			err = errors.New("neither a client in solo mode nor a manager is running with this data directory: start one ('hivecrawl run' runs solo mode, 'hivecrawl manager' a network's manager), then try again")
		}
	}
	if err != nil {
		return fail(stderr, "seed add", err)
	}
	printAdded(stdout, res)
	return 0
}

// addThroughClient adds urls through the client's local API (solo mode).
func addThroughClient(ctx context.Context, apiFile string, urls []string) (localapi.SeedsAdded, error) {
	c, err := localapi.Dial(apiFile)
	if err != nil {
		return localapi.SeedsAdded{}, err
	}
	return c.AddSeeds(ctx, urls)
}

// isNotSolo reports whether err is a client's answer outside solo mode.
func isNotSolo(err error) bool {
	var ae *localapi.APIError
	return errors.As(err, &ae) && ae.Code == http.StatusConflict
}

// printAdded says what adding sites did, the same for every way of adding.
func printAdded(w io.Writer, res localapi.SeedsAdded) {
	fmt.Fprintf(w, "%d seed URLs added, %d new channels", res.Added, len(res.Created))
	for _, c := range res.Created {
		fmt.Fprintf(w, " %s", c)
	}
	fmt.Fprintln(w)
	if len(res.Known) > 0 {
		fmt.Fprintf(w, "Already seeds, nothing changed: %s\n", strings.Join(res.Known, " "))
	}
	if len(res.OptedOut) > 0 {
		fmt.Fprintf(w, "Not added, their sites opted out ('hivecrawl optout list'): %s\n", strings.Join(res.OptedOut, " "))
	}
	if res.Paused != "" {
		fmt.Fprintf(w, "Hivecrawl is paused (%s): the crawl starts when crawling resumes.\n", res.Paused)
	}
}

// postSeeds sends urls to the manager whose API info is at infoPath
// (ErrNotRunning when none is running).
func postSeeds(ctx context.Context, infoPath string, urls []string) (localapi.SeedsAdded, error) {
	var out operator.SeedsResponse
	if err := askManager(ctx, infoPath, http.MethodPost, "/api/seeds", operator.SeedsRequest{URLs: urls}, &out); err != nil {
		return localapi.SeedsAdded{}, err
	}
	return localapi.SeedsAdded{Created: out.Created, Known: out.Known, OptedOut: out.OptedOut, Added: len(urls) - len(out.Known) - len(out.OptedOut)}, nil
}
