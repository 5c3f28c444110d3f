// Package site is what the manager serves to web sites rather than to
// its operator or its volunteers: the HTTP server they reach (Server),
// the bot page a site owner finds through the User-Agent and the
// signature agent card (Pages), the self-service opt-out, where an owner
// proves a site is theirs by serving a token and opts it out
// (OptOutRoutes), and the IndexNow endpoint, where a site that proved its
// key pushes the URLs it changed (IndexNowHandler). FileClient fetches
// such proofs, from public addresses only.
//
// OpenKept chooses the server's address and keeps it across restarts,
// as volunteers name its origin in every signed request. The manager
// wires the rest (manager/siteweb.go): it mounts the key directory
// (manager/botkeys) beside these pages, and passes what the pages say
// (About) and how an opt-out is recorded.
package site
