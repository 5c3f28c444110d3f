//go:build !linux

package swarm

import (
	"context"
	"errors"
	"net"
)

// natLab stands for the NAT lab, which needs Linux's network namespaces.
type natLab struct{ Internet string }

func (*natLab) Close() error { return nil }

func (s *Swarm) buildLab(context.Context) error {
	return errors.New("the NAT lab needs Linux network namespaces")
}

func (s *Swarm) webPlace() place         { return place{} }
func (s *Swarm) managerPlace() place     { return place{ip: "127.0.0.1"} }
func (s *Swarm) clientPlace(i int) place { return place{ip: ClientIP(i)} }
func (s *Swarm) hostIP(k int) string     { return HostIP(k) }
func (s *Swarm) natOf(int) string        { return "" }

func dialIn(string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return nil
}

// LinksError fails: there is no NAT lab to judge links in.
func (s *Swarm) LinksError(context.Context) error {
	return errors.New("the NAT lab needs Linux network namespaces")
}
