package projections

import (
	"errors"
	"testing"
	"time"

	"relayer/internal/config"
)

func TestDefaultConfigIsWhatAZeroConfigBecomes(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := DefaultConfig(); got != s.Config() {
		t.Fatalf("DefaultConfig %+v, a zero Config becomes %+v", got, s.Config())
	}
}

func TestValidateNamesEveryProblemByItsSetting(t *testing.T) {
	err := Config{ReadinessTimeout: -1, ResponseTimeout: -time.Second, DrainWindow: 1500 * time.Millisecond, DurationAlpha: 2}.Validate()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *ConfigError, got %v", err)
	}
	fields := config.Fields(ce.Problems)
	want := []string{"readiness", "response", "drain_window", "duration_alpha"}
	if len(fields) != len(want) {
		t.Fatalf("problems %v, want one at each of %v", ce.Problems, want)
	}
	for i := range want {
		if fields[i] != want[i] {
			t.Fatalf("problems %v, want one at each of %v", ce.Problems, want)
		}
	}
}
