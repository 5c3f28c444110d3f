package governor

import "context"

// Sampler reads the machine's load. SystemSampler wraps gopsutil; tests use
// scripted readings.
type Sampler interface {
	Sample(ctx context.Context) (Reading, error)
}

// Reading is one sample, covering the time since the previous one.
type Reading struct {
	// TotalCPU is the whole machine's busy share, 0–100 % of all cores.
	TotalCPU float64
	// ProcessCPU is this process's share of the whole machine, 0–100 %.
	ProcessCPU float64
	// RSS is this process's resident memory in bytes.
	RSS int64
}

// OtherCPU is the load of every program but this one.
func (r Reading) OtherCPU() float64 { return max(r.TotalCPU-r.ProcessCPU, 0) }
