//go:build linux

package swarm

import "syscall"

// sysProcAttr puts a child in its own process group, so a terminal's
// Ctrl-C reaches only the parent, which then stops the children in order,
// and kills it should the parent die first (a test binary killed at its
// timeout), so that no volunteer or manager outlives its swarm.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
