package localapi

import (
	"net/http"
	"slices"
	"sync"
)

// router is the server's ServeMux. It remembers every pattern, so that the
// guard can tell the few routes that answer without the token from the
// rest, and so that tests can list every route rather than a hand-kept
// copy that a new route could be missing from.
type router struct {
	*http.ServeMux

	mu       sync.RWMutex    // guards patterns and public
	patterns []string        // every pattern, in the order added
	public   map[string]bool // patterns answered without the token
}

func newRouter() *router {
	return &router{ServeMux: http.NewServeMux(), public: make(map[string]bool)}
}

// Handle adds a route that needs the token.
func (m *router) Handle(pattern string, h http.Handler) { m.add(pattern, h, false) }

// HandleFunc adds a route that needs the token.
func (m *router) HandleFunc(pattern string, f func(http.ResponseWriter, *http.Request)) {
	m.add(pattern, http.HandlerFunc(f), false)
}

func (m *router) add(pattern string, h http.Handler, public bool) {
	m.ServeMux.Handle(pattern, h) // panics on a bad or duplicate pattern, as ServeMux does
	m.mu.Lock()
	defer m.mu.Unlock()
	m.patterns = append(m.patterns, pattern)
	if public {
		m.public[pattern] = true
	}
}

// isPublic reports whether r goes to a route that answers without the
// token. A request no route matches (404, 405) is not public.
func (m *router) isPublic(r *http.Request) bool {
	_, pattern := m.ServeMux.Handler(r)
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.public[pattern]
}

// Routes returns every pattern and whether it is public.
func (m *router) routes() (patterns []string, public map[string]bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	pub := make(map[string]bool, len(m.public))
	for p := range m.public {
		pub[p] = true
	}
	return slices.Clone(m.patterns), pub
}
