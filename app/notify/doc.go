// Package notify shows the contributor desktop notifications worth their
// attention: the first contribution accepted, a daily summary (opt-in),
// credit milestones, and problems that need them (a transfer quota reached,
// a settings file that could not be used, no download for an hour while
// crawling, which means the network is out of reach).
//
// Rules is the pure core: it turns a stream of statuses into messages, each
// kind switchable (config.Notifications) and rate-limited, with its memory
// (State) kept on disk so a restart neither repeats nor forgets. Notifier
// runs Rules against the local API, as the tray does, and hands messages to
// a Sender; Desktop sends them with github.com/gen2brain/beeep (on Linux
// the org.freedesktop.Notifications D-Bus interface).
//
// Caveats: the status gives no credit earned today, so the daily summary
// reports pages and bytes; milestones count confirmed credit only, which
// local mode's unsigned receipts never are.
package notify
