package governor

import (
	"context"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

// systemBus is a connection to the system bus (DBUS_SYSTEM_BUS_ADDRESS,
// or the system's), made at the first reading and again after an error.
type systemBus struct {
	mu   sync.Mutex
	conn *dbus.Conn
}

// boolProperty reads a boolean property.
func (b *systemBus) boolProperty(ctx context.Context, name string, path dbus.ObjectPath, iface, prop string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		// Not dbus.WithContext(ctx): the connection would close when
		// this reading's context ends.
		c, err := dbus.ConnectSystemBus()
		if err != nil {
			return false, fmt.Errorf("system bus: %w", err)
		}
		b.conn = c
	}
	var v dbus.Variant
	err := b.conn.Object(name, path).CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, iface, prop).Store(&v)
	if err != nil {
		b.conn.Close()
		b.conn = nil
		return false, fmt.Errorf("%s: %w", name, err)
	}
	on, ok := v.Value().(bool)
	if !ok {
		return false, fmt.Errorf("%s: %s is a %s, want a boolean", name, prop, v.Signature())
	}
	return on, nil
}

func (b *systemBus) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return nil
	}
	err := b.conn.Close()
	b.conn = nil
	return err
}

// UPower reads the OnBattery property of UPower (org.freedesktop.UPower)
// on the system bus. Safe for concurrent use.
type UPower struct{ bus systemBus }

// SystemPower returns the platform's power source: UPower on Linux.
func SystemPower() Power { return &UPower{} }

// OnBattery reports UPower's OnBattery.
func (u *UPower) OnBattery(ctx context.Context) (bool, error) {
	return u.bus.boolProperty(ctx, "org.freedesktop.UPower", "/org/freedesktop/UPower", "org.freedesktop.UPower", "OnBattery")
}

// Close closes the bus connection.
func (u *UPower) Close() error { return u.bus.close() }

// Logind reads logind's IdleHint (org.freedesktop.login1, the Manager's,
// true once every session is idle) on the system bus. Safe for
// concurrent use.
type Logind struct{ bus systemBus }

// SystemPresence returns the platform's presence source: logind on Linux.
func SystemPresence() Presence { return &Logind{} }

// Idle reports logind's IdleHint.
func (l *Logind) Idle(ctx context.Context) (bool, error) {
	return l.bus.boolProperty(ctx, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "IdleHint")
}

// Close closes the bus connection.
func (l *Logind) Close() error { return l.bus.close() }
