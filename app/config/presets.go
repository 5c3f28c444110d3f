package config

import (
	"fmt"
	"strings"
)

// A Preset is a named set of the limits, so that a new volunteer picks one
// word instead of a dozen numbers. Setting one (`hivecrawl set
// preset=quiet`, the Settings page, the tray) sets every limit it names;
// the settings it leaves out (quotas, the schedule, the idle limits,
// notifications) stay as they were. A configuration whose limits all
// equal a preset's is that preset; any other is "custom".
type Preset struct {
	Name string
	// Summary says what the preset gives, in a line.
	Summary string
	limits  limits
}

// The presets' names, and the name of limits that match none.
const (
	PresetQuiet    = "quiet"
	PresetStandard = "standard"
	PresetFull     = "full"
	PresetCustom   = "custom"
)

// presets are the named sets, lightest first. Standard is the limits a
// new volunteer starts with (Default).
var presets = []Preset{
	{PresetQuiet, "unnoticed: one site at a time, 10 % CPU, 256 KB/s down, 64 KB/s up, 256 MB memory, 16 connections, 1 GB on disk",
		limits{cpu: 10, busy: 15, down: 256e3, up: 64e3, mem: 256e6, disk: 1e9, conns: 16, threads: 1, queue: 3}},
	{PresetStandard, "the defaults: three sites at a time, half the CPU, no bandwidth cap, 5 GB on disk",
		Default().limits()},
	{PresetFull, "a computer left on to crawl: eight sites at a time, 90 % CPU, no bandwidth or memory cap, 20 GB on disk",
		limits{cpu: 90, busy: 50, disk: 20e9, threads: 8, queue: 16}},
}

// Presets returns the named sets of limits, lightest first.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// Preset returns the name of the preset c's limits equal, or PresetCustom.
func (c Config) Preset() string {
	for _, p := range presets {
		if c.limits() == p.limits {
			return p.Name
		}
	}
	return PresetCustom
}

// limits are the settings a preset sets (0 = no cap, as in Config).
type limits struct {
	cpu, busy                  Percent
	down, up, mem, disk        Bytes
	conns, threads, queue, ovl int
}

func (c Config) limits() limits {
	return limits{c.CPU, c.BusyThreshold, c.Download, c.Upload, c.Memory, c.DiskMax,
		c.Connections, c.Threads, c.QueueLength, c.Overload}
}

func (c *Config) setLimits(l limits) {
	c.CPU, c.BusyThreshold = l.cpu, l.busy
	c.Download, c.Upload, c.Memory, c.DiskMax = l.down, l.up, l.mem, l.disk
	c.Connections, c.Threads, c.QueueLength, c.Overload = l.conns, l.threads, l.queue, l.ovl
}

// setPreset sets the limits of the preset named v.
func setPreset(c *Config, v string) error {
	name := strings.ToLower(strings.TrimSpace(v))
	for _, p := range presets {
		if p.Name == name {
			c.setLimits(p.limits)
			return nil
		}
	}
	return invalidf("%q is not a preset (%s)", v, presetNames())
}

func presetNames() string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// presetHelp is the preset key's line in Keys.
func presetHelp() string {
	var b strings.Builder
	b.WriteString("a named set of the limits above: ")
	for i, p := range presets {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%s)", p.Name, p.Summary)
	}
	return b.String()
}
