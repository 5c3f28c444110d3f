// Package buckettest starts a real S3-compatible server for tests:
// versitygw (github.com/versity/versitygw) with its posix backend over a
// temporary directory, built from the module proxy with `go install` on
// first use and run as a process on 127.0.0.1 with a port of the
// system's choosing.
//
// The build is cached under the user's cache directory (about a minute
// the first time, a couple of seconds after), and keeps versitygw out of
// this module's go.mod. Tests are skipped when the build is impossible
// (no go command, no module proxy), unless CI is set.
package buckettest
