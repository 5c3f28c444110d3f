package governor

import (
	"context"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

// UPower reads the OnBattery property of UPower (org.freedesktop.UPower)
// on the system bus (DBUS_SYSTEM_BUS_ADDRESS, or the system's). It
// connects at the first reading and again after an error. Safe for
// concurrent use.
type UPower struct {
	mu   sync.Mutex
	conn *dbus.Conn
}

// SystemPower returns the platform's power source: UPower on Linux.
func SystemPower() Power { return &UPower{} }

// OnBattery reports UPower's OnBattery.
func (u *UPower) OnBattery(ctx context.Context) (bool, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.conn == nil {
		// Not dbus.WithContext(ctx): the connection would close when
		// this reading's context ends.
		c, err := dbus.ConnectSystemBus()
		if err != nil {
			return false, fmt.Errorf("system bus: %w", err)
		}
		u.conn = c
	}
	var v dbus.Variant
	err := u.conn.Object("org.freedesktop.UPower", "/org/freedesktop/UPower").
		CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, "org.freedesktop.UPower", "OnBattery").Store(&v)
	if err != nil {
		u.conn.Close()
		u.conn = nil
		return false, fmt.Errorf("UPower: %w", err)
	}
	on, ok := v.Value().(bool)
	if !ok {
		return false, fmt.Errorf("UPower: OnBattery is a %s, want a boolean", v.Signature())
	}
	return on, nil
}

// Close closes the bus connection.
func (u *UPower) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.conn == nil {
		return nil
	}
	err := u.conn.Close()
	u.conn = nil
	return err
}
