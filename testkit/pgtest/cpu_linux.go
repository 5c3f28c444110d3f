package pgtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// userHZ is the unit of the times in /proc/PID/stat: 100 a second on
// every architecture Linux runs Go on.
const userHZ = 100

// CPU returns the CPU time (user + system) the server has used so far:
// its postmaster, the backends that ended (counted into the postmaster
// when it reaped them) and the live ones. For benchmarks that report the
// database's share beside their own; read from /proc, in 10 ms steps.
func (s *Server) CPU() (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("PostgreSQL server's CPU time: %w", err)
	}
	pm, err := strconv.Atoi(string(bytes.TrimSpace(bytes.SplitN(b, []byte("\n"), 2)[0])))
	if err != nil {
		return 0, fmt.Errorf("PostgreSQL server's CPU time: postmaster.pid: %w", err)
	}
	_, ticks, err := procTicks(pm, true)
	if err != nil {
		return 0, fmt.Errorf("PostgreSQL server's CPU time: %w", err)
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("PostgreSQL server's CPU time: %w", err)
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == pm {
			continue
		}
		if ppid, t, err := procTicks(pid, false); err == nil && ppid == pm {
			ticks += t
		}
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// procTicks reads process pid's parent and its user and system time in
// ticks, with its reaped children's when children is set.
func procTicks(pid int, children bool) (ppid int, ticks int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3, the state
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	ppid, err = strconv.Atoi(string(f[1]))
	if err != nil {
		return 0, 0, err
	}
	n := 2 // utime, stime: fields 14 and 15
	if children {
		n = 4 // and cutime, cstime
	}
	for _, x := range f[11 : 11+n] {
		v, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return 0, 0, err
		}
		ticks += v
	}
	return ppid, ticks, nil
}
