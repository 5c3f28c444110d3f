package governor

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// pageOutCode asks the kernel to reclaim the resident pages of the
// executable's read-only mappings (its code, function tables and
// read-only data) with madvise(MADV_PAGEOUT), returning how many bytes of
// mappings it advised. Those pages are clean copies of the file: nothing
// is lost, and a page the client uses again is read back from the page
// cache (or the disk) at its next use. An idle client touches only the
// little code its heartbeats run, so most of its executable need not stay
// in memory. Processes of one executable share its pages, and the
// kernel pages out only pages no other process maps. Kernels before 5.4
// do not know the advice; then nothing happens.
func pageOutCode() int64 {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0
	}
	var advised int64
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		start, end, ok := readOnlyMapping(sc.Text(), exe)
		if !ok {
			continue
		}
		// MADV_RANDOM first: a page fault then maps the one page used
		// instead of the 64 KB around it (the kernel's fault-around), so
		// what comes back is what the client runs.
		unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_RANDOM)
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_PAGEOUT); errno != 0 {
			return advised
		}
		advised += int64(end - start)
	}
	return advised
}

// readOnlyMapping parses one line of /proc/self/maps and reports the
// address range of a private mapping of file exe that cannot be written
// (written pages of a private mapping are the process's own).
func readOnlyMapping(line, exe string) (start, end uintptr, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || f[5] != exe || len(f[1]) != 4 || f[1][1] == 'w' || f[1][3] != 'p' {
		return 0, 0, false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	if !found {
		return 0, 0, false
	}
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, false
	}
	return uintptr(s), uintptr(e), true
}
