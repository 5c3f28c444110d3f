//go:build !unix

package swarm

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
