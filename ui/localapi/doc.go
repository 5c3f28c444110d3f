// Package localapi is the volunteer client's local HTTP API: the JSON status
// the CLI, the tray and the web page read, and the few state changes they
// make (settings, pause, finish, resume, snooze). A backend that also
// implements Solo gets the solo mode routes: its channels and what to do
// with each (crawl now, pause, resume, remove, settings), adding seeds
// (POST /api/solo/seeds), and the pages crawled, their stored text and a
// search over it.
//
// The server listens on 127.0.0.1 only. It refuses any request whose Host
// header is not localhost, 127.0.0.1 or [::1] (with the server's port), so a
// web page cannot reach it through DNS rebinding, and a path that is not
// UTF-8 text answers 400. Every request but GET /api/health needs the API
// token in an X-Hivecrawl-Token or "Authorization: Bearer" header, compared
// in constant time, reads as well as state changes: the status, settings,
// event log (which names the log file), receipts and crawled text are the
// contributor's own. The exceptions are the routes added with HandlePublic
// (the web page's files and its sign-in exchange) and, for reads only, a
// signed-in page's session (AcceptSession). A request no route matches is
// refused the same way, so a caller without the token learns nothing of
// which routes exist. No CORS headers are ever sent, so another site's
// script cannot send the token header. Responses carry X-Frame-Options
// DENY, nosniff and a strict Content-Security-Policy. Package apitest is
// the attack set that keeps this true for every route.
//
// The running client writes its address and token to api.json in its config
// directory (mode 0600); Dial reads it, so only the same user can read or
// change anything.
//
// The server knows the client only through the Backend interface, and this
// package must not import app (a layering test keeps it so).
package localapi
