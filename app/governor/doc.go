// Package governor enforces the contributor's limits on the volunteer
// client: low OS priority, shared download and upload token buckets, a CPU
// cap for the client's own process, a pause while other programs keep the
// machine busy, a memory cap, a connection cap, daily and monthly transfer
// quotas, a weekly schedule, a pause on battery, other CPU and bandwidth
// caps while nobody uses the computer, caps on what Hivecrawl keeps on disk
// and the free space it leaves, a pause while too many sites challenge the
// client as a bot, snooze and the explicit pause.
//
// The Governor is the crawler's Limiter (its Down bucket) and Gate: task
// threads call Wait before every request, and it blocks while crawling is
// paused or, when the client is over its CPU cap, during the "off" part of
// each second (duty cycling). Every pause has a reason in words, shown by
// Status.
//
// Once per Interval the governor takes a Reading from its Sampler
// (gopsutil's in production, scripted ones in tests), counts the bytes that
// went through the buckets, and decides. The decision itself (policy.go)
// does no I/O: it follows from the configuration, the time, and the
// readings (CPU, memory, power, presence, disk) and crawl outcomes it was
// given.
//
// Memory: with a memory cap the Go runtime gets a soft limit at 80 % of
// it, and crawling pauses over the cap. Whatever the cap, once the client
// has crawled and uploaded nothing for ReleaseAfter (after start-up or a
// burst of work) the governor returns the heap the runtime holds free to
// the operating system, once per quiet spell.
//
// Caveats: the pause gate only holds back new requests; a page already being
// downloaded finishes (at the bandwidth cap), so a pause takes effect within
// one page. Transfer counts cover bytes metered by the buckets (page bodies
// and uploads), not TCP/TLS overhead. The CPU cap is enforced by withholding
// requests, so CPU spent by one long extraction is only evened out over the
// following seconds.
package governor
