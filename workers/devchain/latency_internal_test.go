package devchain

import (
	"testing"
	"time"
)

// Every draw of a component's delay stays within its profile's range: the production profile's
// nominal times give or take the jitter, the instant profile's 50-300ms, readiness at once.
func TestEachComponentsDelayIsDrawnWithinItsProfilesRange(t *testing.T) {
	t.Parallel()
	prod := Config{Profile: ProfileProduction}.WithDefaults()
	inst := DefaultConfig()
	custom := Config{Profile: ProfileProduction, KMSDelay: 10 * time.Second, Jitter: 0.5, ReadinessDelay: time.Second}.WithDefaults()
	cases := []struct {
		name   string
		draw   func() time.Duration
		lo, hi time.Duration
	}{
		{"production KMS", prod.kmsDelay, 3200 * time.Millisecond, 4800 * time.Millisecond},
		{"production coprocessor", prod.coprocessorDelay, 1600 * time.Millisecond, 2400 * time.Millisecond},
		{"production readiness", prod.readinessDelay, 1600 * time.Millisecond, 2400 * time.Millisecond},
		{"instant KMS", inst.kmsDelay, 50 * time.Millisecond, 300 * time.Millisecond},
		{"instant coprocessor", inst.coprocessorDelay, 50 * time.Millisecond, 300 * time.Millisecond},
		{"instant readiness", inst.readinessDelay, 0, 0},
		{"kms_delay 10s, jitter 0.5", custom.kmsDelay, 5 * time.Second, 15 * time.Second},
		{"readiness_delay 1s, jitter 0.5", custom.readinessDelay, 500 * time.Millisecond, 1500 * time.Millisecond},
	}
	for _, c := range cases {
		seen := map[time.Duration]bool{}
		for range 2000 {
			d := c.draw()
			if d < c.lo || d > c.hi {
				t.Fatalf("%s: drew %v, want %v..%v", c.name, d, c.lo, c.hi)
			}
			seen[d] = true
		}
		if c.lo != c.hi && len(seen) < 100 {
			t.Errorf("%s: only %d distinct delays in 2000 draws: no jitter", c.name, len(seen))
		}
	}
}
