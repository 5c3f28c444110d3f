// Package services runs a program's long-lived parts side by side, as the
// client and the manager both do: each part is named, the first to fail
// stops the others (their context ends), and Wait returns once every part
// has returned, with the first failure named after its part. It is
// golang.org/x/sync/errgroup with names.
package services

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
)

// Group is a set of running parts. Make one with New.
type Group struct {
	g   *errgroup.Group
	ctx context.Context
}

// New returns a group whose parts run under a context derived from ctx,
// which ends when ctx does or a part fails.
func New(ctx context.Context) *Group {
	g, gctx := errgroup.WithContext(ctx)
	return &Group{g: g, ctx: gctx}
}

// Go starts serve as the part name. serve should return when its context
// ends; an error it returns stops the group.
func (g *Group) Go(name string, serve func(context.Context) error) {
	g.g.Go(func() error {
		if err := serve(g.ctx); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
}

// Wait waits for every part and returns the first failure, if any.
func (g *Group) Wait() error { return g.g.Wait() }
