package manager

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// siteServer is an HTTP server for web sites rather than the operator (the
// key directory, IndexNow): unlike the local API it listens where sites
// can reach it, and its timeouts bound what a slow client holds.
type siteServer struct {
	name string
	ln   net.Listener
	srv  *http.Server
}

func newSiteServer(name, addr string, h http.Handler) (*siteServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen on %s: %w", name, addr, err)
	}
	return serverOn(name, ln, h), nil
}

// serverOn is a site server on listener ln.
func serverOn(name string, ln net.Listener, h http.Handler) *siteServer {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
	return &siteServer{name: name, ln: ln, srv: srv}
}

// origin is the server's origin as the listener has it.
func (s *siteServer) origin() string { return "http://" + s.ln.Addr().String() }

func (s *siteServer) serve() error {
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// run serves until ctx ends, a part of the manager's services.Group
// (named s.name); the manager's Close then shuts the server down.
func (s *siteServer) run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return nil
	}
}

// close stops the server, and closes its listener even when it never
// served, so that a manager that failed to start frees its port.
func (s *siteServer) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if cerr := s.ln.Close(); cerr != nil && !errors.Is(cerr, net.ErrClosed) && err == nil {
		err = cerr
	}
	return err
}
