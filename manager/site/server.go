package site

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server is an HTTP server for web sites rather than the operator (the
// key directory, IndexNow): unlike the local API it listens where sites
// can reach it, and its timeouts bound what a slow client holds.
type Server struct {
	name string
	ln   net.Listener
	srv  *http.Server
}

// Listen opens the server name on addr, serving h.
func Listen(name, addr string, h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen on %s: %w", name, addr, err)
	}
	return On(name, ln, h), nil
}

// On is the server name on listener ln, serving h.
func On(name string, ln net.Listener, h http.Handler) *Server {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
	return &Server{name: name, ln: ln, srv: srv}
}

// Name is the server's name in logs and errors.
func (s *Server) Name() string { return s.name }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Origin is the server's origin as the listener has it.
func (s *Server) Origin() string { return "http://" + s.ln.Addr().String() }

// Handler is what the server serves.
func (s *Server) Handler() http.Handler { return s.srv.Handler }

// Serve serves until Close.
func (s *Server) Serve() error {
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Run serves until ctx ends, a part of the manager's services.Group
// (named Name); the manager's Close then shuts the server down.
func (s *Server) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return nil
	}
}

// Close stops the server, and closes its listener even when it never
// served, so that a manager that failed to start frees its port.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if cerr := s.ln.Close(); cerr != nil && !errors.Is(cerr, net.ErrClosed) && err == nil {
		err = cerr
	}
	return err
}
