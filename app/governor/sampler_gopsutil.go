package governor

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/process"
)

// SystemSampler reads the machine's and this process's CPU and memory with
// gopsutil. Each Sample covers the time since the previous one.
type SystemSampler struct {
	proc *process.Process
	ncpu float64
}

var _ Sampler = (*SystemSampler)(nil)

// NewSystemSampler returns a sampler for the current process.
func NewSystemSampler(ctx context.Context) (*SystemSampler, error) {
	p, err := process.NewProcessWithContext(ctx, int32(os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("open own process for sampling: %w", err)
	}
	s := &SystemSampler{proc: p, ncpu: float64(runtime.NumCPU())}
	// Prime both "since last call" readings, so the first Sample covers
	// the first interval rather than the whole uptime.
	if _, err := cpu.PercentWithContext(ctx, 0, false); err != nil {
		return nil, fmt.Errorf("read machine CPU: %w", err)
	}
	if _, err := p.PercentWithContext(ctx, 0); err != nil {
		return nil, fmt.Errorf("read process CPU: %w", err)
	}
	return s, nil
}

// Sample implements Sampler.
func (s *SystemSampler) Sample(ctx context.Context) (Reading, error) {
	total, err := cpu.PercentWithContext(ctx, 0, false)
	if err != nil {
		return Reading{}, fmt.Errorf("read machine CPU: %w", err)
	}
	// Process percent is of one core; convert to a share of the machine.
	own, err := s.proc.PercentWithContext(ctx, 0)
	if err != nil {
		return Reading{}, fmt.Errorf("read process CPU: %w", err)
	}
	mem, err := s.proc.MemoryInfoWithContext(ctx)
	if err != nil {
		return Reading{}, fmt.Errorf("read process memory: %w", err)
	}
	r := Reading{ProcessCPU: own / s.ncpu, RSS: int64(mem.RSS)}
	if len(total) > 0 {
		r.TotalCPU = total[0]
	}
	return r, nil
}
