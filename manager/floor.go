package manager

import (
	"fmt"

	"github.com/hivecrawl/hivecrawl/internal/floor"
	"github.com/hivecrawl/hivecrawl/internal/netguard"
)

// allow is what the test-only switches let through beyond public
// addresses.
func (o *Options) allow() netguard.Allow {
	return netguard.Allowing(o.AllowLoopback, o.AllowTestNets)
}

// checkFloor refuses a policy the volunteers' clients would refuse
// (internal/floor): a wait below floor.MinDelay, a User-Agent or
// robots.txt token of another crawler. A manager that started with one
// would hand out tasks that no volunteer crawls. Under the test-only
// switches, whose fixtures are local, the wait has no floor.
func (o *Options) checkFloor() error {
	min := floor.MinDelay
	if o.AllowLoopback || o.AllowTestNets {
		min = 0
	}
	if err := floor.Delay(o.Politeness.Delay, min); err != nil {
		return fmt.Errorf("volunteers would refuse every task: %w; choose a politeness wait (--delay) of at least %v", err, floor.MinDelay)
	}
	for _, ua := range []string{o.Politeness.Policy.UserAgent, o.Politeness.Policy.Token} {
		if err := floor.UserAgent(ua); err != nil {
			return fmt.Errorf("volunteers would refuse every task: %w; name your own network and its contact page (--user-agent \"Examplenet/1.0 (+https://example.org/bot)\")", err)
		}
	}
	return nil
}
