package governor

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/process"
)

// SystemSampler reads the machine's and this process's CPU and memory with
// gopsutil. Each Sample covers the time since the previous one. It keeps
// its own previous readings rather than gopsutil's package-wide "since last
// call" state, so other callers in the process cannot skew it.
type SystemSampler struct {
	proc *process.Process

	mu       sync.Mutex // guards the previous readings
	lastMach cpu.TimesStat
	lastProc float64 // process user+system seconds
	lastWall float64 // machine total seconds across all cores
}

var _ Sampler = (*SystemSampler)(nil)

// NewSystemSampler returns a sampler for the current process.
func NewSystemSampler(ctx context.Context) (*SystemSampler, error) {
	p, err := process.NewProcessWithContext(ctx, int32(os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("open own process for sampling: %w", err)
	}
	s := &SystemSampler{proc: p}
	// Prime the previous readings so the first Sample covers the first
	// interval rather than the whole uptime.
	if _, err := s.Sample(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// machineTotal and machineIdle split the machine's CPU seconds (all cores).
// On Linux, guest time is already inside user time.
func machineTotal(t cpu.TimesStat) float64 {
	return t.User + t.System + t.Idle + t.Nice + t.Iowait + t.Irq + t.Softirq + t.Steal
}

func machineIdle(t cpu.TimesStat) float64 { return t.Idle + t.Iowait }

// Sample implements Sampler.
func (s *SystemSampler) Sample(ctx context.Context) (Reading, error) {
	times, err := cpu.TimesWithContext(ctx, false)
	if err != nil || len(times) == 0 {
		return Reading{}, fmt.Errorf("read machine CPU: %v", err)
	}
	pt, err := s.proc.TimesWithContext(ctx)
	if err != nil {
		return Reading{}, fmt.Errorf("read process CPU: %w", err)
	}
	mem, err := s.proc.MemoryInfoWithContext(ctx)
	if err != nil {
		return Reading{}, fmt.Errorf("read process memory: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := times[0]
	procSecs := pt.User + pt.System
	r := Reading{RSS: int64(mem.RSS)}
	dTotal := machineTotal(m) - machineTotal(s.lastMach)
	if dTotal > 0 && s.lastWall > 0 {
		busy := dTotal - (machineIdle(m) - machineIdle(s.lastMach))
		r.TotalCPU = clampPercent(100 * busy / dTotal)
		r.ProcessCPU = clampPercent(100 * (procSecs - s.lastProc) / dTotal)
	}
	s.lastMach, s.lastProc, s.lastWall = m, procSecs, machineTotal(m)
	return r, nil
}

func clampPercent(v float64) float64 { return min(max(v, 0), 100) }
