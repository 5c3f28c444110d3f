// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU time per page: on a machine shared with other work it
// says more than elapsed time.
//
// Caveats: it is measured on Unix only (getrusage); elsewhere Process
// returns 0, which callers take as "not measured".
package cputime
