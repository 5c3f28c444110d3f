package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/hivecrawl/hivecrawl/crawler"
	"github.com/hivecrawl/hivecrawl/crawler/export"
	"github.com/hivecrawl/hivecrawl/task"
)

func init() {
	register(command{name: "crawl", summary: "crawl one site here and write its text as JSON lines or WARC",
		args: "URL [flags]", help: crawlHelp, flags: flagsOf(crawlFlags), run: runCrawl})
}

const crawlHelp = `Crawls URL's host (links to other hosts are listed, not followed), politely:
robots.txt first, one connection, a wait between requests. Writes one JSON
line per page with its extracted text and a summary line, or a WARC file
with one text/plain conversion record per page and a JSON metadata record
with the summary.

This is your own crawl, not the swarm's: --user-agent names it to the
sites you crawl (default: Hivecrawl with its version and contact URL), and
robots.txt is obeyed for the product token it starts with, so the rules
you follow are those the site wrote for the name you send. Name your own
crawler, never another one: sites let known crawlers in on their word.`

func runCrawl(ctx context.Context, args []string) int {
	fi, err := os.Stderr.Stat()
	progress := err == nil && fi.Mode()&os.ModeCharDevice != 0
	return crawlMain(ctx, args, os.Stdout, os.Stderr, progress)
}

// crawlOptions are the parsed flags of `hivecrawl crawl`.
type crawlOptions struct {
	seed          *url.URL
	task          *task.Task
	depth         int
	maxPages      int
	delay         time.Duration
	delaySet      bool
	userAgent     string
	filters       []string
	out           string
	format        string
	allowLoopback bool
	verbose       bool
}

// crawlMain runs the command with its output streams passed in, so tests
// can run it in-process. progress draws a status line on stderr.
func crawlMain(ctx context.Context, args []string, stdout, stderr io.Writer, progress bool) int {
	o, code, done := parseCrawlFlags(args, stdout, stderr)
	if done {
		return code
	}
	if err := crawl(ctx, o, stdout, stderr, progress); err != nil {
		fmt.Fprintln(stderr, "hivecrawl crawl:", oneLine(err.Error()))
		return 1
	}
	return 0
}

// filterList is a repeatable --filter flag.
type filterList []string

func (f *filterList) String() string { return strings.Join(*f, " ") }

func (f *filterList) Set(s string) error {
	if _, err := regexp.Compile(s); err != nil {
		return fmt.Errorf("bad regular expression: %v", err)
	}
	*f = append(*f, s)
	return nil
}

// crawlFlags declares crawl's flags into o.
func crawlFlags(o *crawlOptions) *flag.FlagSet {
	fs := newFlagSet("crawl")
	fs.IntVar(&o.depth, "depth", 3, "follow links up to `N` hops from URL")
	fs.IntVar(&o.maxPages, "max-pages", 1000, "fetch at most `N` pages")
	fs.DurationVar(&o.delay, "delay", crawler.DefaultDelay, "politeness wait `D` between requests (robots.txt Crawl-delay may raise it)")
	fs.StringVar(&o.userAgent, "user-agent", crawler.UserAgent(version, crawler.ContactURL), "User-Agent `S` naming your crawl; robots.txt rules for its first word (product token) are obeyed")
	fs.Var((*filterList)(&o.filters), "filter", "crawl only URLs matching `REGEX` (repeatable: any match)")
	fs.StringVar(&o.out, "out", "-", "write to `PATH` (- for stdout; a .gz WARC is compressed)")
	fs.StringVar(&o.format, "format", "jsonl", "output `format`: jsonl or warc")
	fs.BoolVar(&o.allowLoopback, "allow-loopback", false, "test only: allow crawling loopback addresses (local fixtures)")
	fs.BoolVar(&o.verbose, "v", false, "log each page to stderr")
	return fs
}

// parseCrawlFlags accepts flags before and after the URL. done is true
// when the command ends here with exit status code: after its help, or
// after a mistake it reported in one line.
func parseCrawlFlags(args []string, stdout, stderr io.Writer) (o *crawlOptions, code int, done bool) {
	o = &crawlOptions{}
	fs := crawlFlags(o)
	var rest []string
	for {
		if code, done := parseFlags(fs, args, stdout, stderr); done {
			return nil, code, true
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if err := o.check(fs, rest); err != nil {
		fmt.Fprintf(stderr, "hivecrawl crawl: %s (see 'hivecrawl crawl -h')\n", oneLine(err.Error()))
		return nil, 2, true
	}
	return o, 0, false
}

// check validates the parsed flags and the URL and makes the task.
func (o *crawlOptions) check(fs *flag.FlagSet, rest []string) error {
	fs.Visit(func(f *flag.Flag) { o.delaySet = o.delaySet || f.Name == "delay" })

	switch {
	case len(rest) == 0:
		return errors.New("missing URL to crawl")
	case len(rest) > 1:
		return fmt.Errorf("one URL only, got %d arguments", len(rest))
	case o.format != "jsonl" && o.format != "warc":
		return fmt.Errorf("unknown format %q: use jsonl or warc", o.format)
	case o.depth < 0 || o.depth > task.MaxDepthLimit:
		return fmt.Errorf("--depth %d outside 0..%d", o.depth, task.MaxDepthLimit)
	case o.maxPages <= 0:
		return errors.New("--max-pages must be at least 1")
	case o.delay < 0:
		return errors.New("--delay must not be negative")
	case !crawler.ValidUserAgent(o.userAgent):
		return errors.New("--user-agent must start with a product token (letters, - and _), such as \"mybot/1.0 (+https://example.org/bot)\", in printable ASCII")
	}
	u, err := url.Parse(rest[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL", rest[0])
	}
	o.seed = u
	o.task = &task.Task{
		ID:       "crawl-" + u.Host,
		Channel:  u.Host,
		Seeds:    []string{u.String()},
		Filters:  o.filters,
		MaxDepth: o.depth,
		MaxPages: o.maxPages,
		Delay:    task.Duration(o.delay),
		Issued:   time.Now(),
	}
	if err := o.task.Validate(); err != nil {
		return err
	}
	return nil
}

// crawl runs the task and writes its output.
func crawl(ctx context.Context, o *crawlOptions, stdout, stderr io.Writer, progress bool) (err error) {
	var w io.Writer = stdout
	if o.out != "-" {
		f, err := os.Create(o.out)
		if err != nil {
			return fmt.Errorf("create output: %w", err)
		}
		defer func() {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("close output: %w", cerr)
			}
		}()
		w = f
	}

	out, err := newCrawlOutput(o, w)
	if err != nil {
		return err
	}
	sink := &progressSink{next: out, w: stderr, on: progress}

	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelDebug
	}
	c := crawler.New(crawler.Config{
		UserAgent:     o.userAgent,
		Delay:         o.delay,
		NoDelay:       o.delaySet && o.delay == 0,
		MaxPages:      o.maxPages,
		AllowLoopback: o.allowLoopback,
		Logger:        slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
	res, runErr := c.Run(ctx, o.task, sink)
	sink.done()
	if res != nil {
		if err := out.summary(res); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := out.close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return runErr
	}
	if res == nil {
		return errors.New("crawler returned no result")
	}
	if res.Stats.PagesFetched == 0 {
		why := res.Stopped
		if why == "" {
			why = "the start page could not be fetched"
		}
		if cause, ok := strings.CutPrefix(why, crawler.StoppedUnreachable+": "); ok {
			why = cause + "; check the URL and this machine's network connection"
		}
		if ip := net.ParseIP(o.seed.Hostname()); !o.allowLoopback && (o.seed.Hostname() == "localhost" ||
			ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())) {
			why += fmt.Sprintf(" (%s is not a public address; --allow-loopback allows loopback, for tests only)", o.seed.Hostname())
		}
		return fmt.Errorf("no pages fetched: %s", why)
	}
	if progress {
		fmt.Fprintf(stderr, "%d pages (%d unchanged), %d errors, %.1f MB in %s; output: %s\n",
			res.Stats.PagesFetched, res.Stats.PagesUnchanged, sink.errors, float64(res.Stats.BytesDown)/1e6,
			time.Duration(res.Stats.Duration).Round(time.Millisecond), o.out)
	}
	return nil
}

// crawlOutput is the chosen output format.
type crawlOutput struct {
	crawler.Sink
	summary func(*task.Result) error
	close   func() error
}

func newCrawlOutput(o *crawlOptions, w io.Writer) (*crawlOutput, error) {
	if o.format == "jsonl" {
		j := export.NewJSONL(w)
		return &crawlOutput{Sink: j, summary: j.Summary, close: j.Close}, nil
	}
	name := ""
	if o.out != "-" {
		name = filepath.Base(o.out)
	}
	ww, err := export.NewWARCWriter(w, export.WARCOptions{
		Compress: strings.HasSuffix(o.out, ".gz"),
		Filename: name,
		Info: [][2]string{
			{"description", "hivecrawl crawl of " + o.seed.String()},
			{"http-header-user-agent", o.userAgent},
			{"robots", "obey"},
		},
	})
	if err != nil {
		return nil, err
	}
	return &crawlOutput{Sink: ww, summary: ww.Summary, close: ww.Close}, nil
}

// progressSink passes pages on and, when on, redraws a status line on
// stderr at most every 100 ms.
type progressSink struct {
	next   crawler.Sink
	w      io.Writer
	on     bool
	pages  int
	errors int
	last   time.Time
}

var _ crawler.Sink = (*progressSink)(nil)

func (s *progressSink) Page(p *task.Page) error {
	s.pages++
	if p.Error != "" {
		s.errors++
	}
	if s.on && time.Since(s.last) > 100*time.Millisecond {
		s.last = time.Now()
		u := p.URL
		if len(u) > 60 {
			u = u[:57] + "..."
		}
		fmt.Fprintf(s.w, "\r\033[K%d pages, %d errors  %s", s.pages, s.errors, u)
	}
	return s.next.Page(p)
}

func (s *progressSink) done() {
	if s.on {
		fmt.Fprint(s.w, "\r\033[K")
	}
}

// oneLine keeps an error message to one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
