package localapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/hivecrawl/hivecrawl/internal/httpjson"
	"github.com/hivecrawl/hivecrawl/internal/loopback"
)

// Client talks to a running client's local API. The CLI uses it and so will
// the tray.
type Client struct {
	info loopback.Info
	hc   *http.Client
}

// NewClient returns a client for the API described by info.
func NewClient(info loopback.Info) *Client {
	return &Client{info: info, hc: &http.Client{
		Timeout:   15 * time.Second,
		Transport: &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 3 * time.Second}).DialContext},
	}}
}

// Dial reads the info file at path and returns a client for it; a missing
// file is ErrNotRunning.
func Dial(path string) (*Client, error) {
	info, err := loopback.ReadInfo(path)
	if err != nil {
		return nil, err
	}
	return NewClient(info), nil
}

// URL is the server's base address.
func (c *Client) URL() string { return c.info.URL }

// Health reports whether the client answers, without the token.
func (c *Client) Health(ctx context.Context) error {
	var h Health
	return c.do(ctx, http.MethodGet, "/api/health", nil, "", &h)
}

// Status returns the client's status.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var st Status
	err := c.do(ctx, http.MethodGet, "/api/status", nil, "", &st)
	return st, err
}

// Config returns the configuration as JSON.
func (c *Client) Config(ctx context.Context) (json.RawMessage, error) {
	var raw json.RawMessage
	err := c.do(ctx, http.MethodGet, "/api/config", nil, "", &raw)
	return raw, err
}

// SetConfig applies changes (all or none) and returns the new configuration.
func (c *Client) SetConfig(ctx context.Context, changes ...Change) (json.RawMessage, error) {
	vals := url.Values{}
	for _, ch := range changes {
		vals.Add(ch.Key, ch.Value)
	}
	var raw json.RawMessage
	err := c.do(ctx, http.MethodPost, "/api/config", []byte(vals.Encode()), "application/x-www-form-urlencoded", &raw)
	return raw, err
}

// Pause pauses crawling and returns the new status.
func (c *Client) Pause(ctx context.Context) (Status, error) {
	var st Status
	err := c.do(ctx, http.MethodPost, "/api/pause", nil, "", &st)
	return st, err
}

// Finish starts no new task, lets the running ones end, then pauses; it
// returns the status at once, finishing.
func (c *Client) Finish(ctx context.Context) (Status, error) {
	var st Status
	err := c.do(ctx, http.MethodPost, "/api/finish", nil, "", &st)
	return st, err
}

// Resume ends the explicit pause and any snooze and returns the new status.
func (c *Client) Resume(ctx context.Context) (Status, error) {
	var st Status
	err := c.do(ctx, http.MethodPost, "/api/resume", nil, "", &st)
	return st, err
}

// Snooze pauses for d ("1h", "tomorrow") and returns when crawling resumes.
func (c *Client) Snooze(ctx context.Context, d string) (time.Time, error) {
	var res SnoozeResult
	err := c.do(ctx, http.MethodPost, "/api/snooze?d="+url.QueryEscape(d), nil, "", &res)
	return res.Until, err
}

// SoloChannels lists solo mode's channels.
func (c *Client) SoloChannels(ctx context.Context) ([]SoloChannel, error) {
	var chs []SoloChannel
	err := c.do(ctx, http.MethodGet, "/api/solo/channels", nil, "", &chs)
	return chs, err
}

// AddSeeds adds seed URLs in solo mode, all or none.
func (c *Client) AddSeeds(ctx context.Context, urls []string) (SeedsAdded, error) {
	body, _ := json.Marshal(struct {
		URLs []string `json:"urls"`
	}{urls})
	var res SeedsAdded
	err := c.do(ctx, http.MethodPost, "/api/solo/seeds", body, "application/json", &res)
	return res, err
}

// ChannelAction applies one of the Channel* actions to a solo channel.
func (c *Client) ChannelAction(ctx context.Context, channel, action string) (SoloChannel, error) {
	var ch SoloChannel
	err := c.do(ctx, http.MethodPost, "/api/solo/channels/"+url.PathEscape(channel)+"/"+url.PathEscape(action), nil, "", &ch)
	return ch, err
}

// SetChannel applies settings to a solo channel, all or none.
func (c *Client) SetChannel(ctx context.Context, channel string, set ChannelSettings) (SoloChannel, error) {
	body, _ := json.Marshal(set)
	var ch SoloChannel
	err := c.do(ctx, http.MethodPost, "/api/solo/channels/"+url.PathEscape(channel)+"/settings", body, "application/json", &ch)
	return ch, err
}

// SoloSearch finds up to n pages solo mode stored that match query.
func (c *Client) SoloSearch(ctx context.Context, query string, n int) (SearchResults, error) {
	var res SearchResults
	err := c.do(ctx, http.MethodGet, "/api/solo/search?q="+url.QueryEscape(query)+"&n="+strconv.Itoa(n), nil, "", &res)
	return res, err
}

func (c *Client) do(ctx context.Context, method, path string, body []byte, ctype string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.info.URL+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("local API request: %w", err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set(loopback.TokenHeader, c.info.Token)
	resp, err := c.hc.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return loopback.ErrNotRunning
		}
		return fmt.Errorf("reach hivecrawl at %s: %w", c.info.URL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("read local API answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var eb httpjson.ErrorBody
		if json.Unmarshal(data, &eb) != nil || eb.Error == "" {
			eb.Error = http.StatusText(resp.StatusCode)
		}
		return &APIError{Code: resp.StatusCode, Message: eb.Error}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode local API answer: %w", err)
	}
	return nil
}
