//go:build linux

package netlab

import (
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

func TestSite(t *testing.T) {
	var name string
	t.Run("serve", func(t *testing.T) {
		u := Site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "from the namespace") }))
		if !strings.HasPrefix(u, "http://198.51.100.") {
			t.Fatalf("site at %s, want a TEST-NET-2 address", u)
		}
		resp, err := http.Get(u + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "from the namespace" {
			t.Fatalf("GET %s = %q", u, body)
		}
		out, _ := exec.Command("ip", "netns", "list").Output()
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "hcnl-") {
				name = strings.Fields(l)[0]
			}
		}
	})
	if name == "" {
		t.Skip("no namespace was made")
	}
	out, _ := exec.Command("ip", "netns", "list").Output()
	if strings.Contains(string(out), name) {
		t.Fatalf("namespace %s outlived its test:\n%s", name, out)
	}
}
