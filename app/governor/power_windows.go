package governor

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows' own calls: GetSystemPowerStatus for the power source, and
// GetLastInputInfo against GetTickCount for the time since the last
// keyboard or mouse input.
var (
	kernel32             = windows.NewLazySystemDLL("kernel32.dll")
	user32               = windows.NewLazySystemDLL("user32.dll")
	getSystemPowerStatus = kernel32.NewProc("GetSystemPowerStatus")
	getTickCount         = kernel32.NewProc("GetTickCount")
	getLastInputInfo     = user32.NewProc("GetLastInputInfo")
)

// systemPowerStatus is SYSTEM_POWER_STATUS.
type systemPowerStatus struct {
	ACLineStatus        byte // 0 offline, 1 online, 255 unknown
	BatteryFlag         byte // 128: no system battery
	BatteryLifePercent  byte
	SystemStatusFlag    byte
	BatteryLifeTime     uint32
	BatteryFullLifeTime uint32
}

// windowsPower reads the power source with GetSystemPowerStatus.
type windowsPower struct{}

// SystemPower returns the platform's power source: GetSystemPowerStatus
// on Windows.
func SystemPower() Power { return windowsPower{} }

// OnBattery reports whether the AC line is offline. An unknown line
// status (255) counts as mains power.
func (windowsPower) OnBattery(context.Context) (bool, error) {
	var st systemPowerStatus
	if ok, _, err := getSystemPowerStatus.Call(uintptr(unsafe.Pointer(&st))); ok == 0 {
		return false, fmt.Errorf("GetSystemPowerStatus: %w", err)
	}
	return st.ACLineStatus == 0, nil
}

// lastInputInfo is LASTINPUTINFO.
type lastInputInfo struct {
	Size uint32
	Time uint32 // GetTickCount at the last input
}

// windowsPresence reads the time since the last input.
type windowsPresence struct{}

// SystemPresence returns the platform's presence source: the time since
// the last input on Windows.
func SystemPresence() Presence { return windowsPresence{} }

// Idle reports whether no input came for IdleAfter. The tick counts are
// 32-bit milliseconds, which wrap every 49.7 days; their difference
// wraps with them.
func (windowsPresence) Idle(context.Context) (bool, error) {
	info := lastInputInfo{Size: uint32(unsafe.Sizeof(lastInputInfo{}))}
	if ok, _, err := getLastInputInfo.Call(uintptr(unsafe.Pointer(&info))); ok == 0 {
		return false, fmt.Errorf("GetLastInputInfo: %w", err)
	}
	now, _, _ := getTickCount.Call()
	return time.Duration(uint32(now)-info.Time)*time.Millisecond >= IdleAfter, nil
}
