package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
	"github.com/hivecrawl/hivecrawl/ui/localapi"
)

// LoginURL asks the client described by info for a one-time URL that opens
// the page signed in, at the page named by next ("dashboard", "settings",
// "credits", "solo"; "" = dashboard). The tray and `hivecrawl open` hand it
// to the browser.
func LoginURL(ctx context.Context, info loopback.Info, next string) (string, error) {
	u := info.URL + "/ui/login-code"
	if next != "" {
		u += "?next=" + url.QueryEscape(next)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return "", fmt.Errorf("sign-in link: %w", err)
	}
	req.Header.Set(loopback.TokenHeader, info.Token)
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("ask hivecrawl at %s for a sign-in link: %w", info.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", fmt.Errorf("read sign-in link: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var eb httpjson.ErrorBody
		json.Unmarshal(body, &eb)
		return "", &localapi.APIError{Code: resp.StatusCode, Message: eb.Error}
	}
	var lc LoginCode
	if err := json.Unmarshal(body, &lc); err != nil || lc.URL == "" {
		return "", fmt.Errorf("decode sign-in link: %v", err)
	}
	return lc.URL, nil
}
