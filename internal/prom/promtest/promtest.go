// Package promtest checks Prometheus metrics endpoints in tests: it gets
// the text over HTTP, runs the real `promtool check metrics` on it
// (Debian's prometheus package) and parses it into samples a test can
// compare; and it checks that docs/operator/metrics.md lists an endpoint's metrics
// and that the Grafana dashboard's expressions parse (`promtool check
// rules`) and use only metrics the endpoint serves.
//
// Without promtool its checks are skipped with a log line, or fail when
// the environment variable CI is set; the rest still runs.
package promtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape gets url (an endpoint's /metrics) with a plain GET, fails t
// unless it answers 200 with the text format, checks the text with
// promtool and returns its samples (see Samples).
func Scrape(t testing.TB, url string) map[string]float64 {
	t.Helper()
	return ScrapeToken(t, url, "")
}

// ScrapeToken is Scrape with "Authorization: Bearer token" ("" = none),
// as Prometheus sends it for a client's local API.
func ScrapeToken(t testing.TB, url, token string) map[string]float64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s = %d %s:\n%s", url, resp.StatusCode, resp.Header.Get("Content-Type"), text)
	}
	Check(t, text)
	return Samples(t, text)
}

// Check pipes text to `promtool check metrics`, which fails on a
// malformed exposition and on names, units and help text against
// Prometheus's conventions.
func Check(t testing.TB, text []byte) {
	t.Helper()
	if _, err := exec.LookPath("promtool"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("promtool not installed (Debian package prometheus): %v", err)
		}
		t.Logf("promtool not installed (Debian package prometheus): its check is skipped; set CI to make this a failure")
		return
	}
	cmd := exec.Command("promtool", "check", "metrics")
	cmd.Stdin = bytes.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// Samples parses the text exposition into samples keyed as the text
// writes them, `name{label="value",...}` with labels in name order; a
// histogram gives its _count and _sum.
func Samples(t testing.TB, text []byte) map[string]float64 {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("parse metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, s := range f.Metric {
			labels := labelText(s.Label)
			switch {
			case s.Counter != nil:
				out[name+labels] = s.Counter.GetValue()
			case s.Gauge != nil:
				out[name+labels] = s.Gauge.GetValue()
			case s.Histogram != nil:
				out[name+"_count"+labels] = float64(s.Histogram.GetSampleCount())
				out[name+"_sum"+labels] = s.Histogram.GetSampleSum()
			case s.Untyped != nil:
				out[name+labels] = s.Untyped.GetValue()
			}
		}
	}
	return out
}

func labelText(ls []*dto.LabelPair) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, 0, len(ls))
	for _, l := range ls {
		parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// Want fails t for every wanted sample whose value differs from got's; a
// key may be a sum of samples joined by "+". A sample missing from got
// fails too.
func Want(t testing.TB, got, wanted map[string]float64) {
	t.Helper()
	for key, v := range wanted {
		sum := 0.0
		for _, k := range strings.Split(key, "+") {
			g, ok := got[k]
			if !ok {
				t.Errorf("no sample %s", k)
			}
			sum += g
		}
		if sum != v {
			t.Errorf("%s = %v, want %v", key, sum, v)
		}
	}
}

// Names returns the metric names among got's samples that start with
// prefix, sorted; a histogram is named once, by its own name.
func Names(got map[string]float64, prefix string) []string {
	seen := map[string]bool{}
	for key := range got {
		name, _, _ := strings.Cut(key, "{")
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		for _, suffix := range []string{"_count", "_sum"} {
			base := strings.TrimSuffix(name, suffix)
			if base != name && hasKey(got, base+"_count") && hasKey(got, base+"_sum") {
				name = base
			}
		}
		seen[name] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

func hasKey(got map[string]float64, name string) bool {
	for key := range got {
		if k, _, _ := strings.Cut(key, "{"); k == name {
			return true
		}
	}
	return false
}

// Dashboard returns the PromQL expressions of the Grafana dashboard whose
// JSON is at path, with Grafana's variables given values Prometheus
// accepts: $__rate_interval 5m, any other variable ".*".
func Dashboard(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("dashboard %s: %v", path, err)
	}
	var exprs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if e, ok := v["expr"].(string); ok {
				e = strings.ReplaceAll(e, "$__rate_interval", "5m")
				exprs = append(exprs, grafanaVar.ReplaceAllString(e, ".*"))
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	return exprs
}

// grafanaVar is a Grafana variable in an expression: $name or ${name}.
var grafanaVar = regexp.MustCompile(`\$\{?[A-Za-z_][A-Za-z0-9_]*\}?`)

// CheckExprs has promtool parse exprs, as recording rules; without
// promtool it is skipped as Check is.
func CheckExprs(t testing.TB, exprs []string) {
	t.Helper()
	if _, err := exec.LookPath("promtool"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("promtool not installed (Debian package prometheus): %v", err)
		}
		t.Logf("promtool not installed (Debian package prometheus): the expressions are not checked; set CI to make this a failure")
		return
	}
	var b strings.Builder
	b.WriteString("groups:\n- name: dashboard\n  rules:\n")
	for i, e := range exprs {
		q, _ := json.Marshal(e) // a JSON string is a YAML double-quoted scalar
		fmt.Fprintf(&b, "  - record: expr_%d\n    expr: %s\n", i, q)
	}
	path := filepath.Join(t.TempDir(), "rules.yml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("promtool", "check", "rules", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s\n%s", err, out, b.String())
	}
}

// Referenced returns the metric names starting with prefix that exprs
// use, sorted; a histogram's _bucket series by the histogram's name.
func Referenced(exprs []string, prefix string) []string {
	re := regexp.MustCompile(regexp.QuoteMeta(prefix) + `[a-zA-Z0-9_]*`)
	seen := map[string]bool{}
	for _, e := range exprs {
		for _, name := range re.FindAllString(e, -1) {
			seen[strings.TrimSuffix(name, "_bucket")] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Documented fails t for every name the documents at paths do not all
// mention, and for every name the Grafana dashboard at dashboard uses
// with prefix that is not among names; names are an endpoint's metrics
// (see Names). The dashboard's expressions are checked with promtool.
func Documented(t testing.TB, names []string, prefix, dashboard string, docs ...string) {
	t.Helper()
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if !strings.Contains(string(b), "`"+n+"`") {
				t.Errorf("%s does not list %s", path, n)
			}
		}
	}
	exprs := Dashboard(t, dashboard)
	CheckExprs(t, exprs)
	used := Referenced(exprs, prefix)
	if len(used) == 0 {
		t.Errorf("%s uses no %s metric", dashboard, prefix)
	}
	for _, n := range used {
		if !slices.Contains(names, n) {
			t.Errorf("%s uses %s, which the endpoint does not serve", dashboard, n)
		}
	}
}
