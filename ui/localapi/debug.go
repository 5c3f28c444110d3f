package localapi

import (
	"net/http"
	"net/http/pprof"
)

// debugRoutes serves the Go runtime's profiles under /debug/pprof/, for
// measuring where the client's memory and CPU go (go tool pprof with the
// token header). They reveal nothing of the contributor's data beyond
// function names, but they need the token like every state change:
// a CPU profile costs CPU while it runs.
func (s *Server) debugRoutes() {
	s.mux.Handle("GET /debug/pprof/", s.needToken(http.HandlerFunc(pprof.Index)))
	s.mux.Handle("GET /debug/pprof/profile", s.needToken(http.HandlerFunc(pprof.Profile)))
}
