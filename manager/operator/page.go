package operator

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"
)

// pageData is what the status page template renders.
type pageData struct {
	Status
	Chart Chart
	// Plots are the throughput plots: pages/s, then tasks/s.
	Plots []Plot
	Map   SwarmMap
	Now   string
}

var pageTemplate = template.Must(template.New("status").Funcs(template.FuncMap{
	"dur":     func(d time.Duration) string { return d.Round(time.Second).String() },
	"reasons": reasons,
	"credits": func(f float64) string { return template.HTMLEscapeString(formatFloat(f)) },
	"name": func(nick, peer string) string {
		if nick != "" {
			return nick
		}
		if len(peer) > 16 {
			return "…" + peer[len(peer)-12:]
		}
		return peer
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Hivecrawl manager</title>
<meta http-equiv="refresh" content="10">
<style>
body{font:14px system-ui,sans-serif;margin:2em;max-width:60em;color:#222}
.swarm{display:flex;gap:2em;align-items:flex-start}.swarm table{margin:0}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}code{font-size:12px}h2{margin-top:1.5em}
</style></head><body>
<h1>Hivecrawl manager</h1>
<p>Peer <code>{{.Peer}}</code> · strategy <b>{{.Strategy}}</b> · profile <code>{{.Profile}}</code> · {{.Now}}</p>
<h2>Tasks</h2>
<table><tr><th>Open</th><th>Succeeded</th><th>Lost</th><th>Cancelled by crawlers</th><th>Sent</th><th>Send failures</th></tr>
<tr><td class="n">{{index .Tasks "open"}}</td><td class="n">{{index .Tasks "done"}}</td><td class="n">{{index .Tasks "failed"}}</td><td class="n">{{index .Tasks "cancelled"}}{{with .Cancelled}} ({{reasons .}}){{end}}</td><td class="n">{{.Sent}}</td><td class="n">{{.SendFailures}}</td></tr></table>
<h2>Throughput</h2>
{{if .Throughput}}<p>What the storage module stored per second, a point a minute over the last hour (Prometheus at <a href="/metrics">/metrics</a> keeps the long view).</p>
{{range .Plots}}<figure><svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" role="img" aria-label="{{.Label}}">
<rect x="0" y="0" width="{{.Width}}" height="{{.Height}}" fill="#fafafa"/>
<polyline fill="none" stroke="#2e86ab" stroke-width="2" points="{{.Points}}"><title>{{.Label}}</title></polyline>
<text x="2" y="14" font-size="10">{{.Max}}/s</text><text x="2" y="{{.Height}}" dy="-4" font-size="10">{{.From}}</text><text x="{{.Width}}" y="{{.Height}}" dx="-60" dy="-4" font-size="10">{{.To}} UTC</text>
</svg><figcaption>{{.Label}}: {{.Last}} latest, {{.Max}} at most</figcaption></figure>{{end}}{{else}}<p>No throughput yet: a point a minute once the manager has run a minute.</p>{{end}}
<h2>The swarm</h2>
{{with .Map}}{{if or .Zones .Hosts}}<p>The CAN space seen along its first two dimensions: each peer's zones in its colour (zones that differ only in the third dimension lie on top of each other), each web host as a dot at its point, joined to the peer that took its latest task (the large dot in the middle of the peer's first zone); a host joined to a zone that does not hold it was passed on by load balancing.</p>
<div class="swarm"><svg xmlns="http://www.w3.org/2000/svg" width="{{.Size}}" height="{{.Size}}" role="img" aria-label="peers' zones and hosts in the CAN space">
<rect x="0" y="0" width="{{.Size}}" height="{{.Size}}" fill="#fafafa" stroke="#999"/>
{{range .Zones}}<rect x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}" fill="{{.Colour}}" fill-opacity="0.15" stroke="{{.Colour}}"><title>peer {{.Peer}}</title></rect>{{end}}
{{range .Hosts}}{{if .Linked}}<line x1="{{printf "%.1f" .X}}" y1="{{printf "%.1f" .Y}}" x2="{{printf "%.1f" .PX}}" y2="{{printf "%.1f" .PY}}" stroke="{{.Colour}}" stroke-opacity="0.6"/>{{end}}<circle cx="{{printf "%.1f" .X}}" cy="{{printf "%.1f" .Y}}" r="3" fill="{{.Colour}}"><title>{{.Channel}}</title></circle>{{end}}
{{range .Peers}}{{if .Placed}}<circle cx="{{printf "%.1f" .X}}" cy="{{printf "%.1f" .Y}}" r="6" fill="{{.Colour}}" stroke="#fff" stroke-width="2"><title>peer {{.Peer}}</title></circle>{{end}}{{end}}
</svg>
<table><tr><th></th><th>Peer</th><th>Zones</th><th>Hosts</th></tr>
{{range .Peers}}<tr><td><svg xmlns="http://www.w3.org/2000/svg" width="12" height="12"><circle cx="6" cy="6" r="5" fill="{{.Colour}}"/></svg></td><td><code>{{.Peer}}</code></td><td class="n">{{.Zones}}</td><td class="n">{{.Hosts}}</td></tr>{{end}}
</table></div>{{else}}<p>No peers in the overlay yet.</p>{{end}}{{end}}
<h2>Channels</h2>
<p>{{.Channels}} channels.</p>
<table><tr><th>Priority group</th><th>Channels</th><th>Recrawl interval</th></tr>
{{range .Groups}}<tr><td>{{.Group}}</td><td class="n">{{.Channels}}</td><td class="n">{{dur .Interval}}</td></tr>{{end}}
</table>
<h2>Intervals over time</h2>
{{with .Chart}}{{if .Lines}}<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" role="img" aria-label="recrawl interval per group over time">
<rect x="0" y="0" width="{{.Width}}" height="{{.Height}}" fill="#fafafa"/>
{{range .Ticks}}<text x="2" y="{{.Y}}" font-size="10">{{.Label}}</text>{{end}}
{{range .Lines}}<polyline fill="none" stroke="{{.Colour}}" stroke-width="2" points="{{.Points}}"><title>{{.Label}}</title></polyline>{{end}}
<text x="40" y="{{.Height}}" dy="-4" font-size="10">{{.From}}</text><text x="{{.Width}}" y="{{.Height}}" dx="-150" dy="-4" font-size="10">{{.To}}</text>
</svg>{{else}}<p>No intervals yet.</p>{{end}}{{end}}
<h2>Swarm and storage</h2>
<table><tr><th>Peers now</th><th>Peers seen</th><th>Uploads</th><th>Duplicates</th><th>Refused</th><th>Pages</th><th>Records</th><th>Bytes</th></tr>
<tr><td class="n">{{.PeersNow}}</td><td class="n">{{.PeersSeen}}</td><td class="n">{{.Stored.Uploads}}</td><td class="n">{{.Stored.Duplicates}}</td><td class="n">{{.Stored.Refused}}</td><td class="n">{{.Stored.Pages}}</td><td class="n">{{.Stored.Records}}</td><td class="n">{{.Stored.Bytes}}</td></tr></table>
<h2>Contributors</h2>
{{if .Contributors}}<table><tr><th>#</th><th>Contributor</th><th>Credits</th><th>Pages</th><th>Receipts</th></tr>
{{range $i, $c := .Contributors}}<tr><td class="n">{{$i}}</td><td>{{name $c.Nickname $c.Peer}}</td><td class="n">{{credits $c.Credits}}</td><td class="n">{{$c.Pages}}</td><td class="n">{{$c.Receipts}}</td></tr>{{end}}
</table>{{else}}<p>No contributions yet.</p>{{end}}
<h2>Hosts pushing back</h2>
{{if .PushBack}}<table><tr><th>Host</th><th>Answers (401, 403, 429, 503, 5xx, timeouts, challenges)</th><th>Strikes in a row</th><th>Rests until</th></tr>
{{range .PushBack}}<tr><td>{{.Host}}</td><td>{{reasons .Answers}}</td><td class="n">{{.Strikes}}</td><td>{{if not .RestUntil.IsZero}}{{.RestUntil.UTC.Format "2006-01-02 15:04:05"}} UTC{{end}}</td></tr>{{end}}
</table>{{else}}<p>No host has refused, failed or challenged a crawler.</p>{{end}}
</body></html>
`))

// reasons lists counts by reason, in the order of the reasons' names:
// "expired 2, refused 1".
func reasons(by map[string]int) string {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s %d", r, by[r]))
	}
	return strings.Join(parts, ", ")
}
