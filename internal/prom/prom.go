// Package prom holds what the manager's and the client's Prometheus
// endpoints share: a registry of their own with the Go runtime's and the
// process's collectors, and the HTTP handler that serves it in the text
// exposition format.
//
// Each program builds its own registry (never the global default), so
// several managers or clients in one process, as in tests and solo mode,
// do not collide. The handler keeps serving what it could gather when one
// collector fails, and logs the failure.
package prom

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewRegistry returns a registry holding the Go runtime's and the
// process's collectors, and cs.
func NewRegistry(cs ...prometheus.Collector) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(cs...)
	return reg
}

// Handler serves reg's metrics; failures to gather are logged at warning
// level and the metrics gathered are served.
func Handler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      errorLog{log},
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// errorLog is promhttp's logger over slog.
type errorLog struct{ log *slog.Logger }

// Println logs a failure to gather or serve metrics.
func (l errorLog) Println(v ...any) {
	l.log.Warn("Metrics not gathered", "err", strings.TrimSuffix(fmt.Sprintln(v...), "\n"))
}
