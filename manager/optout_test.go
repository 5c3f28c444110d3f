package manager

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hivecrawl/hivecrawl/manager/operator"
)

// TestOptOutAPI: the local API takes opt-outs with the token, all or
// none, lists them with who asked, and lifts them; a seed on an
// opted-out site is answered as such and not added.
func TestOptOutAPI(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := newManager(t, t.TempDir(), &clock{t: time.Now().UTC()})
	go m.api.Serve(ctx)
	if _, err := m.AddSeeds([]string{"http://www.site.example/", "http://other.example/"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method, path, token string
		body                      any
		want                      int
		says                      string
	}{
		{"no token", "POST", "/api/optouts", "", operator.OptOutRequest{Names: []string{"site.example"}}, http.StatusUnauthorized, ""},
		{"list needs the token", "GET", "/api/optouts", "", nil, http.StatusUnauthorized, ""},
		{"no names", "POST", "/api/optouts", m.APIToken(), operator.OptOutRequest{}, http.StatusBadRequest, "names"},
		{"a public suffix refuses all", "POST", "/api/optouts", m.APIToken(), operator.OptOutRequest{Names: []string{"site.example", "co.uk"}}, http.StatusBadRequest, "co.uk is not a web site"},
		{"nothing was added", "GET", "/api/optouts", m.APIToken(), nil, http.StatusOK, `"opt_outs":[]`},
		{"good", "POST", "/api/optouts", m.APIToken(), operator.OptOutRequest{Names: []string{"https://Site.example/about"}}, http.StatusOK, `"name":"site.example","domain":true,"channels":["www.site.example"]`},
		{"listed", "GET", "/api/optouts", m.APIToken(), nil, http.StatusOK, `"name":"site.example","domain":true`},
		{"seed refused", "POST", "/api/seeds", m.APIToken(), operator.SeedsRequest{URLs: []string{"http://shop.site.example/"}}, http.StatusOK, `"opted_out":["http://shop.site.example/"]`},
		{"lifted", "POST", "/api/optouts/remove", m.APIToken(), operator.OptOutRequest{Names: []string{"site.example", "other.example"}}, http.StatusOK, `"lifted":["site.example"]`},
		{"gone from the list", "GET", "/api/optouts", m.APIToken(), nil, http.StatusOK, `"opt_outs":[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := api(t, m, tc.method, tc.path, "", tc.token, tc.body)
			if code != tc.want || !strings.Contains(string(body), tc.says) {
				t.Fatalf("%s %s = %d %s, want %d with %s", tc.method, tc.path, code, body, tc.want, tc.says)
			}
		})
	}
	if list, _ := m.OptOuts(); len(list) != 0 {
		t.Errorf("opt-outs left: %+v", list)
	}
}
