package swarm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Sentinel errors of Stop and Kill.
var (
	// ErrNotRunning is returned when a process that is not running is
	// asked to stop.
	ErrNotRunning = errors.New("process not running")
	// ErrKilled is returned by Stop when the process did not end in time
	// and was killed.
	ErrKilled = errors.New("killed: did not stop in time")
)

// Proc is one child process that can be started, stopped, killed and
// started again with the same arguments. Its output goes to a log file
// (appended across restarts). Safe for concurrent use.
type Proc struct {
	// Name labels the process in errors and logs ("client-3").
	Name string
	bin  string
	log  string
	// wrap prefixes the command line (ip netns exec NS: the NAT lab).
	wrap []string

	mu   sync.Mutex // guards the fields below
	args []string
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	err  error         // cmd.Wait's result, valid after done
	runs int
}

// NewProc returns a process that runs bin with args, logging to logPath.
// It is not started.
func NewProc(name, bin, logPath string, args ...string) *Proc {
	return &Proc{Name: name, bin: bin, log: logPath, args: args}
}

// SetArgs replaces the arguments of the next start.
func (p *Proc) SetArgs(args ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.args = args
}

// Start starts the process; it is an error if it is already running.
func (p *Proc) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !closed(p.done) {
		return fmt.Errorf("start %s: already running as pid %d", p.Name, p.cmd.Process.Pid)
	}
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	line := append(append(slices.Clone(p.wrap), p.bin), p.args...)
	fmt.Fprintf(f, "=== %s start %d: %v\n", time.Now().UTC().Format(time.RFC3339), p.runs+1, line)
	cmd := exec.Command(line[0], line[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done, p.err = cmd, done, nil
	p.runs++
	// The waiter is owned by the process: it ends when the process exits,
	// which Stop and Kill bring about.
	go func() {
		err := cmd.Wait()
		f.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// PID returns the process ID of the current or last run (0 if never
// started).
func (p *Proc) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Running reports whether the process is running.
func (p *Proc) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil && !closed(p.done)
}

// Runs returns how many times the process was started.
func (p *Proc) Runs() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs
}

// Err returns the exit error of the last run once it has exited.
func (p *Proc) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *Proc) current() (*exec.Cmd, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd, p.done
}

// Stop asks the process to end (SIGTERM, which hivecrawl handles like
// Ctrl-C) and waits for it; when ctx ends first it is killed (ErrKilled).
// Otherwise it returns the exit error, nil for a clean exit.
func (p *Proc) Stop(ctx context.Context) error {
	cmd, done := p.current()
	if cmd == nil || closed(done) {
		return fmt.Errorf("stop %s: %w", p.Name, ErrNotRunning)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop %s: %w", p.Name, err)
	}
	select {
	case <-done:
		if err := p.Err(); err != nil {
			return fmt.Errorf("stop %s: %w", p.Name, err)
		}
		return nil
	case <-ctx.Done():
		p.Kill()
		return fmt.Errorf("stop %s: %w", p.Name, ErrKilled)
	}
}

// Kill ends the process with SIGKILL, without notice, and waits for it.
func (p *Proc) Kill() error {
	cmd, done := p.current()
	if cmd == nil || closed(done) {
		return fmt.Errorf("kill %s: %w", p.Name, ErrNotRunning)
	}
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill %s: %w", p.Name, err)
	}
	<-done
	return nil
}
