package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hivecrawl/hivecrawl/app/config"
	"github.com/hivecrawl/hivecrawl/crawler/taskmgr"
	"github.com/hivecrawl/hivecrawl/internal/services"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// Serve runs the client until ctx ends, then shuts down in order: the
// seeds feeder stops, running pages finish (bounded by Options.Grace), the
// task state is committed and the files are closed. Tasks interrupted stay
// in the queue and run again at the next start.
func (c *Client) Serve(ctx context.Context) error {
	defer c.Close()
	api, err := localapi.Listen(c, localapi.Options{
		Port: c.cfg.Get().APIPort, Fallback: true, InfoFile: c.dirs.APIFile(), Logger: c.log.With("part", "api"),
	})
	if err != nil {
		return err
	}
	if api.FellBack() {
		c.log.Warn("The dashboard's port is taken (by another program, or a second Hivecrawl); using another for this run",
			"port", c.cfg.Get().APIPort, "dashboard", api.URL(), "to_change", "hivecrawl set api_port=PORT")
	}
	c.api.Store(api)
	page := c.webPage(api)
	api.Handle("GET /metrics", c.metricsHandler())
	c.log.Info("Client started", "config", c.dirs.Config, "data", c.dirs.Data, "log", c.events.Path(), "api", api.URL())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	g := services.New(ctx)
	g.Go("task manager", c.mgr.Serve)
	if c.solo != nil {
		g.Go("solo manager", c.solo.Serve)
	}
	if c.net != nil {
		g.Go("overlay", c.net.serve)
		g.Go("receipts", c.settleReceipts)
	}
	if c.feeder != nil {
		g.Go("seeds", c.feeder.Serve)
	}
	g.Go("maintenance", c.maintain)
	g.Go("configuration", c.follow)
	g.Go("local API", api.Serve)
	g.Go("web page", page.Serve)
	g.Go("governor", func(ctx context.Context) error { return c.gov.Serve(ctx, nil) })
	if c.opts.Ready != nil {
		go c.opts.Ready(ctx, c.mode, c.dirs.APIFile())
	}
	var errs []error
	if err := g.Wait(); err != nil {
		errs = append(errs, err)
	}
	if c.net != nil {
		// A handover no neighbour took (they may be leaving too) loses
		// nothing for good: the manager's next round re-executes the
		// tasks, as after a crash. It is worth a warning, not a failed exit.
		if err := c.net.leave(); err != nil {
			c.log.Warn("Tasks not handed over; the manager will re-issue them", "err", err)
		}
	} else if c.opts.Handover != nil {
		if err := c.handover(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := c.Close(); err != nil {
		errs = append(errs, err)
	}
	c.log.Info("Client stopped")
	return errors.Join(errs...)
}

// handover passes unfinished tasks to Options.Handover once the task
// manager has stopped, bounded by Grace.
func (c *Client) handover() error {
	running, queued, err := c.mgr.Handover()
	rs := append(running, queued...)
	if err != nil || len(rs) == 0 {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(c.opts.Grace, taskmgr.DefaultGrace))
	defer cancel()
	if err := c.opts.Handover(ctx, rs); err != nil {
		return fmt.Errorf("hand over %d tasks: %w", len(rs), err)
	}
	c.log.Info("Tasks handed over", "count", len(rs))
	return nil
}

// maintain prunes long-finished tasks from the queue file.
func (c *Client) maintain(ctx context.Context) error {
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		if n, err := c.q.Prune(c.opts.Now().Add(-keepFinished)); err != nil {
			c.log.Warn("Cannot prune finished tasks", "err", err)
		} else if n > 0 {
			c.log.Debug("Pruned finished tasks", "count", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// follow applies configuration changes to the running parts.
func (c *Client) follow(ctx context.Context) error {
	ch, stop := c.cfg.Subscribe()
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case cfg := <-ch:
			c.apply(cfg)
			c.log.Info("Configuration changed", "threads", cfg.Threads, "queue_length", cfg.QueueLength)
		}
	}
}

// apply pushes cfg to the governor, the task manager, the queue and the
// overlay's connection cap. Changes made through the local API call it at
// once, so the answer already shows them; follow calls it for every
// change, which is harmless twice.
func (c *Client) apply(cfg config.Config) {
	c.gov.Apply(cfg)
	c.mgr.SetLimits(threadLimit(cfg), cfg.OverloadThreshold())
	c.q.SetMaxLen(cfg.QueueLength)
	if c.net != nil {
		c.net.h.SetMaxConns(overlayConns(cfg))
	}
}

// threadLimit is CL: the configured task threads, and no more than the
// connection cap, since each task thread holds one connection (paper 002).
func threadLimit(cfg config.Config) int {
	if cfg.Connections > 0 && cfg.Connections < cfg.Threads {
		return cfg.Connections
	}
	return cfg.Threads
}
