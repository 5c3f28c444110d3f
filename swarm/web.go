package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/atomicfile"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/p2p/emulate"
	"github.com/hivecrawl/hivecrawl/swarm/fixture"
)

// WebOptions configure ServeWeb.
type WebOptions struct {
	// Hosts is the number of web hosts; Seed and Demo shape them
	// (fixture.DemoSites).
	Hosts int                 `json:"hosts"`
	Seed  uint64              `json:"seed"`
	Demo  fixture.DemoOptions `json:"demo"`
	// Layout is a latency layout file (p2p/emulate); every answer is
	// delayed by the emulated round trip between the requester's IP and
	// the host's. Empty = no delay.
	Layout string `json:"layout,omitempty"`
	// IPBase, when set, serves host k at IPBase+(k+1) ("203.0.113."),
	// not on loopback: the NAT lab's web.
	IPBase string `json:"ip_base,omitempty"`
	// PerAddr serves that many hosts at each address (hosts 0..PerAddr-1
	// at the first, each on a port of its own), as shared hosting does;
	// 0 or 1 gives every host its own address.
	PerAddr int `json:"per_addr,omitempty"`
	// Info is where ServeWeb writes a WebInfo once it serves.
	Info string `json:"info"`
}

// WebInfo is what ServeWeb writes to WebOptions.Info: the control API's
// base URL (fixture.Web.Handler) and the serving process.
type WebInfo struct {
	Control string `json:"control"`
	PID     int    `json:"pid"`
}

// ServeWeb serves a demo web on 127.0.1.x addresses until ctx ends (the
// body of `hivecrawl fixture-web`).
func ServeWeb(ctx context.Context, o WebOptions, log *slog.Logger) error {
	var layout *emulate.Layout
	if o.Layout != "" {
		l, err := emulate.LoadLayout(o.Layout)
		if err != nil {
			return fmt.Errorf("serve web: %w", err)
		}
		layout = l
	}
	var ipOf atomic.Pointer[map[string]string] // site name → host IP, set once serving
	opts := fixture.Options{SeparateAddrs: true}
	per := max(o.PerAddr, 1)
	switch {
	case o.IPBase != "":
		opts.IP = func(k int) string { return fmt.Sprintf("%s%d", o.IPBase, k/per+1) }
	case per > 1:
		opts.IP = func(k int) string { return HostIP(k / per) }
	}
	if layout != nil {
		opts.Delay = func(remote, name string) time.Duration {
			m := ipOf.Load()
			if m == nil {
				return 0
			}
			return layout.Delay(remote, (*m)[name])
		}
	}
	w, err := fixture.New(fixture.DemoSites(o.Hosts, o.Seed, o.Demo), opts)
	if err != nil {
		return fmt.Errorf("serve web: %w", err)
	}
	defer w.Close()
	m := map[string]string{}
	for _, h := range w.Hosts() {
		ip, _, _ := net.SplitHostPort(h.Addr)
		m[h.Name] = ip
		if layout != nil {
			if _, ok := layout.Nodes[ip]; !ok {
				log.Warn("Host not in the latency layout: answered without delay", "host", h.Name, "ip", ip)
			}
		}
	}
	ipOf.Store(&m)

	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("serve web control API: %w", err)
	}
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	info := WebInfo{Control: "http://" + ln.Addr().String(), PID: os.Getpid()}
	if err := writeJSONFile(o.Info, info); err != nil {
		srv.Close()
		<-served
		return fmt.Errorf("serve web: %w", err)
	}
	log.Info("Web serving", "hosts", o.Hosts, "control", info.Control)
	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("serve web control API: %w", err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	<-served
	return nil
}

// writeJSONFile writes v to path atomically.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// readJSONFile decodes path into v.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// WebProc is the web process seen from the parent.
type WebProc struct {
	*Proc
	info  string
	Info  WebInfo
	Hosts []fixture.HostInfo
}

// waitWeb waits for the web process to write its info file and list its
// hosts.
func (w *WebProc) wait(ctx context.Context, c *http.Client) error {
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		if !w.Running() {
			return false, fmt.Errorf("web exited: %v (see its log)", w.Err())
		}
		var info WebInfo
		if err := readJSONFile(w.info, &info); err != nil {
			return false, nil
		}
		if info.PID != w.PID() {
			return false, nil
		}
		w.Info = info
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("wait for the web: %w", err)
	}
	if err := getJSON(ctx, c, w.Info.Control+fixture.ControlHosts, "", &w.Hosts); err != nil {
		return fmt.Errorf("list web hosts: %w", err)
	}
	return nil
}

// Stats returns every host's counters by site name.
func (w *WebProc) Stats(ctx context.Context, c *http.Client) (map[string]fixture.Stats, error) {
	var out map[string]fixture.Stats
	if err := getJSON(ctx, c, w.Info.Control+fixture.ControlStats, "", &out); err != nil {
		return nil, fmt.Errorf("web stats: %w", err)
	}
	return out, nil
}

// MaxInFlightByIP returns the most requests each address of the web
// answered at once.
func (w *WebProc) MaxInFlightByIP(ctx context.Context, c *http.Client) (map[string]int64, error) {
	var out map[string]int64
	if err := getJSON(ctx, c, w.Info.Control+fixture.ControlByIP, "", &out); err != nil {
		return nil, fmt.Errorf("web in flight by address: %w", err)
	}
	return out, nil
}

// getJSON fetches u, with the local API token when one is given, and
// decodes its JSON body into v.
func getJSON(ctx context.Context, c *http.Client, u, token string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set(loopback.TokenHeader, token)
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// poll calls cond every period until it returns true or an error, or ctx
// ends.
func poll(ctx context.Context, period time.Duration, cond func() (bool, error)) error {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}
