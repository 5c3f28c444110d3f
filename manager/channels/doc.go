// Package channels is the manager's channel database (design.md §2, §6): a
// bbolt file holding every channel (a web host, crawled whole or in pieces)
// with its seeds, filters, depth, expected pages, the pages known from the
// last crawls (digests and validators, which become the next task's
// Pageseen and conditional GETs, bounded per task whatever the host's size,
// see known.go; a page missed by three crawls in a row is forgotten), the
// digests of inter-site URLs already
// known, its estimated change interval and priority group, the URLs its
// site pushed for the next round (IndexNow, pushed.go), and the tasks
// issued for it.
//
// Channels are numbered densely in the order they were added (Channel.Index)
// so the recrawl strategy (sched/recrawl) can refer to them by index; a
// channel is never deleted. The strategy's own state is stored here too
// (PutMeta/GetMeta), so a restarted manager resumes where it stopped.
//
// Every change is one bbolt transaction: a manager killed at any point
// loses neither a channel nor a recorded result. Seeds and inter-site URLs
// are outside input and are parsed strictly (ParseSeed).
//
// Caveat: a channel's known pages are kept in its record, which is
// rewritten on each feedback; that suits hosts of up to some 10⁵ pages
// (paper 000 caps Pageseen at about 400 kB), not larger.
package channels
