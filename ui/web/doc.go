// Package web is the volunteer client's local web page: the Dashboard,
// Settings, Credits and Solo mode pages (files in package assets), live
// updates by server-sent events, and the few endpoints the page needs beyond
// the local API (package localapi), on whose server it is mounted.
//
// # Routes
//
//	GET  /                    the page and its files (assets.Web), without token
//	GET  /ui/events           server-sent events: "history" (the last hour of
//	                          samples) once, then "tick" (status and sample)
//	GET  /ui/session          {"signed_in": bool, "token": API token if so}, without token
//	GET  /ui/login?code=C     exchanges a one-time code for the session cookie, without token
//	POST /ui/login-code       a one-time sign-in URL (needs the API token)
//	POST /ui/logout           ends the page's session (needs the API token)
//	GET  /ui/receipts         receipts as JSON (?limit=N, default 200)
//	GET  /ui/receipts.csv     every receipt as CSV, with its signed bytes
//	GET  /ui/credits/days     credits per day (?days=N, default 30)
//
// # Signing in
//
// Only the page's files and the sign-in exchange answer without the API
// token: reading needs it as much as changing does, since the receipts,
// the event log and the crawled text are the contributor's. A signed-in
// page reads with its session cookie (same-origin requests only) and
// changes things with the token in a header. The page gets it this way: the tray (or
// `hivecrawl open`), which can read the token from api.json, asks for a
// one-time code (POST /ui/login-code with the token) and opens the browser
// at /ui/login?code=C. The code is good once, for two minutes; the server
// answers with an HttpOnly, SameSite=Strict session cookie and sends the
// browser on to the dashboard. The session lasts 30 days; with
// Options.SessionFile it outlives restarts (the file keeps its SHA-256),
// so a bookmarked dashboard at the client's fixed address stays signed in. The page's script then reads the token from
// GET /ui/session (which answers only with that cookie, and only to
// same-origin requests) and sends it in the X-Hivecrawl-Token header of its
// fetch calls. Another web site cannot do any of this: the cookie is not
// sent on cross-site requests, no CORS headers are ever sent so it could
// not read the answer anyway, and the local API refuses foreign Host
// headers (DNS rebinding). A page that is not signed in shows nothing of
// the client and says how to sign in.
//
// # Overlay and solo mode
//
// The status's overlay section (localapi.Overlay) feeds the Dashboard's
// peer count and its "Your place in the overlay" panel (overlay.js: the
// CAN space projected on its first two dimensions, this peer's zones
// filled, its neighbours' outlined); without one the client is in local
// mode and the panel says so. The Solo mode page (solo.js) uses the local
// API's /api/solo/ routes (localapi.Solo): it adds seeds with the token,
// lists the embedded manager's channels with their next crawl, and reads a
// page's stored text. In a network or in local mode it explains where
// seeds go instead.
//
// # Caveats
//
// The zone drawing is a projection: neighbours that differ only in the
// third dimension overlap in it (their tooltips give the whole boxes).
package web
