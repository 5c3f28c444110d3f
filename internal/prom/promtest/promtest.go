// Package promtest checks Prometheus metrics endpoints in tests: it gets
// the text over HTTP, runs the real `promtool check metrics` on it
// (Debian's prometheus package) and parses it into samples a test can
// compare.
//
// Without promtool the check is skipped with a log line, or fails when
// the environment variable CI is set; the samples are still compared.
package promtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
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
	resp, err := http.Get(url)
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
