package config

import "testing"

// TestPresets: a new volunteer runs the standard preset; setting a preset
// makes the configuration that preset, within every range, and keeps the
// settings a preset leaves out; any limit changed after makes it custom.
func TestPresets(t *testing.T) {
	if got := Default().Preset(); got != PresetStandard {
		t.Fatalf("Default().Preset() = %q, want %q", got, PresetStandard)
	}
	for _, p := range Presets() {
		c := Default()
		c.DailyQuota, c.Nickname, c.Idle.On = 500e6, "bee", true
		if err := c.Apply(Change{"preset", p.Name}); err != nil {
			t.Fatalf("preset=%s: %v", p.Name, err)
		}
		if got := c.Preset(); got != p.Name {
			t.Errorf("after preset=%s, Preset() = %q", p.Name, got)
		}
		if c.DailyQuota != 500e6 || c.Nickname != "bee" || !c.Idle.On {
			t.Errorf("preset=%s changed settings it does not name: %+v", p.Name, c)
		}
		if err := c.Apply(Change{"threads", "2"}); err != nil {
			t.Fatal(err)
		}
		if got := c.Preset(); got != PresetCustom {
			t.Errorf("preset=%s then threads=2: Preset() = %q, want %q", p.Name, got, PresetCustom)
		}
	}
	// The presets differ, lightest first, so that each name means one set.
	ps := Presets()
	for i := 1; i < len(ps); i++ {
		a, b := ps[i-1].limits, ps[i].limits
		if a.threads >= b.threads || (a.cpu >= b.cpu && b.cpu != 0) {
			t.Errorf("preset %s is not lighter than %s", ps[i-1].Name, ps[i].Name)
		}
	}
}
