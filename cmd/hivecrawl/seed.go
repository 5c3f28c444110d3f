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
	"os"
	"path/filepath"
	"time"

	"github.com/hivecrawl/hivecrawl/app/paths"
	"github.com/hivecrawl/hivecrawl/manager"
	"github.com/hivecrawl/hivecrawl/manager/channels"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

func init() {
	register(command{name: "seed", summary: "add seed URLs: seed add URL... --manager",
		args: "add [flags] URL...", words: []string{"add"}, flags: flagsOf(seedFlags), run: runSeed})
}

// seedOptions are seed's flags.
type seedOptions struct {
	home *string
}

func seedFlags(o *seedOptions) *flag.FlagSet {
	fs := newFlagSet("seed")
	fs.Bool("manager", false, "add to the manager running with the same --home (also solo mode's, so the flag may be left out)")
	o.home = paths.Flag(fs)
	return fs
}

func runSeed(ctx context.Context, args []string) int {
	var o seedOptions
	fs := seedFlags(&o)
	if code, done := parseFlags(fs, reorder(args), os.Stdout, os.Stderr); done {
		return code
	}
	if fs.NArg() < 2 || fs.Arg(0) != "add" {
		fs.Usage()
		return 2
	}
	urls := fs.Args()[1:]
	for _, u := range urls {
		if _, _, err := channels.ParseSeed(u); err != nil {
			fmt.Fprintln(os.Stderr, "hivecrawl seed add:", err)
			return 2
		}
	}
	dirs, err := paths.Resolve(*o.home)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl seed add:", err)
		return 1
	}
	resp, err := postSeeds(ctx, filepath.Join(managerDir(dirs), manager.APIFile), urls)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hivecrawl seed add:", err)
		return 1
	}
	fmt.Printf("%d seed URLs sent, %d new channels", len(urls), len(resp.Created))
	for _, c := range resp.Created {
		fmt.Printf(" %s", c)
	}
	fmt.Println()
	return 0
}

// postSeeds sends urls to the manager whose API info is at infoPath.
func postSeeds(ctx context.Context, infoPath string, urls []string) (*manager.SeedsResponse, error) {
	info, err := localapi.ReadInfo(infoPath)
	if errors.Is(err, localapi.ErrNotRunning) {
		return nil, fmt.Errorf("no manager is running with this data directory (%s is missing): start it with 'hivecrawl manager'", infoPath)
	}
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(manager.SeedsRequest{URLs: urls})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, info.URL+"/api/seeds", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(localapi.TokenHeader, info.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reach the manager at %s: %w (is it still running?)", info.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("read the manager's answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the manager answered %s: %s", res.Status, bytes.TrimSpace(b))
	}
	var out manager.SeedsResponse
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("the manager's answer: %w", err)
	}
	return &out, nil
}
