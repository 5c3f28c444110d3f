// Package paths finds the volunteer client's configuration and data
// directories, so every subcommand of one instance agrees on them and two
// instances can be kept apart.
//
// By default the configuration lives in os.UserConfigDir()/hivecrawl (which
// honours XDG_CONFIG_HOME on Linux) and the data in the platform's data
// directory: XDG_DATA_HOME or ~/.local/share on Unix, ~/Library/Application
// Support on macOS, %LocalAppData% on Windows, each with a "hivecrawl"
// subdirectory. The event log goes in the state directory: XDG_STATE_HOME or
// ~/.local/state on Unix, ~/Library/Logs on macOS, %LocalAppData% on
// Windows, with the same subdirectory. A --home DIR flag overrides all
// three: configuration in DIR/config, data in DIR/data, the log in
// DIR/state.
//
// Caveat: Resolve only computes names; call Dirs.Ensure before writing.
package paths

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// App is the name of the per-user subdirectory.
const App = "hivecrawl"

// File names inside the directories.
const (
	// ConfigName is the configuration file in the config directory.
	ConfigName = "config.json"
	// APIName is the local API's address and token, written by the running
	// client (mode 0600) and read by the CLI and the tray.
	APIName = "api.json"
	// QueueName is the bbolt task queue in the data directory.
	QueueName = "queue.db"
	// LedgerName is the bbolt credits ledger in the data directory.
	LedgerName = "ledger.db"
	// UsageName is the governor's transfer counters in the data directory.
	UsageName = "usage.json"
	// PeerKeyName is the peer's private key (its overlay identity) in the
	// data directory.
	PeerKeyName = "peer.key"
	// PeerBookPattern names the overlay members the peer remembers
	// (p2p/host.PeerBook) in the data directory, one file per network:
	// %s is the network's manager's peer ID, so a profile for another
	// network never joins through this one's peers.
	PeerBookPattern = "peers-%s.json"
	// WebSessionsName is the dashboard's sign-ins (hashed) in the data
	// directory.
	WebSessionsName = "web-sessions.json"
	// LogName is the event log in the state directory.
	LogName = "hivecrawl.log"
)

// Dirs are one instance's directories.
type Dirs struct {
	Config string // configuration, API token
	Data   string // task queue, spools, ledger, counters
	State  string // the event log
}

// Resolve returns the directories for home, or the per-user defaults when
// home is empty. The result is absolute.
func Resolve(home string) (Dirs, error) {
	if home != "" {
		abs, err := filepath.Abs(home)
		if err != nil {
			return Dirs{}, fmt.Errorf("resolve home %s: %w", home, err)
		}
		return Dirs{Config: filepath.Join(abs, "config"), Data: filepath.Join(abs, "data"), State: filepath.Join(abs, "state")}, nil
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return Dirs{}, fmt.Errorf("find config directory: %w (set --home DIR)", err)
	}
	data, err := dataBase()
	if err != nil {
		return Dirs{}, fmt.Errorf("find data directory: %w (set --home DIR)", err)
	}
	state, err := stateBase()
	if err != nil {
		return Dirs{}, fmt.Errorf("find state directory: %w (set --home DIR)", err)
	}
	return Dirs{Config: filepath.Join(cfg, App), Data: filepath.Join(data, App), State: filepath.Join(state, App)}, nil
}

// Ensure creates both directories (mode 0700) if they are missing.
func (d Dirs) Ensure() error {
	for _, dir := range []string{d.Config, d.Data} {
		if dir == "" {
			return errors.New("ensure directories: empty path")
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create directory %s: %w", dir, err)
		}
	}
	return nil
}

// ConfigFile is the path of the configuration file.
func (d Dirs) ConfigFile() string { return filepath.Join(d.Config, ConfigName) }

// APIFile is the path of the running client's API address and token.
func (d Dirs) APIFile() string { return filepath.Join(d.Config, APIName) }

// QueueFile is the path of the bbolt task queue.
func (d Dirs) QueueFile() string { return filepath.Join(d.Data, QueueName) }

// LedgerFile is the path of the bbolt credits ledger.
func (d Dirs) LedgerFile() string { return filepath.Join(d.Data, LedgerName) }

// UsageFile is the path of the governor's transfer counters.
func (d Dirs) UsageFile() string { return filepath.Join(d.Data, UsageName) }

// PeerKeyFile returns the peer key's path.
func (d Dirs) PeerKeyFile() string { return filepath.Join(d.Data, PeerKeyName) }

// LogFile returns the event log's path; "" when there is no state
// directory.
func (d Dirs) LogFile() string {
	if d.State == "" {
		return ""
	}
	return filepath.Join(d.State, LogName)
}

// WebSessionsFile returns the path of the dashboard's sign-ins.
func (d Dirs) WebSessionsFile() string { return filepath.Join(d.Data, WebSessionsName) }

// Flag registers the --home flag on fs and returns its value's address.
// Every client subcommand calls it so one instance is isolated from another.
func Flag(fs *flag.FlagSet) *string {
	return fs.String("home", "", "keep this instance's config in `DIR`/config, data in DIR/data and log in DIR/state")
}
