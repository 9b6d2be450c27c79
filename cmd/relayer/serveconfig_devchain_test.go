//go:build !nodevchain

package main

import (
	"testing"
	"time"

	"relayer/workers/devchain"
)

// These tests read the development chain's configuration (devchain.Config), which the build
// without the development chain (-tags nodevchain) does not have.

func TestTheDevelopmentChainsLatencyProfileIsASettingCheckedByItsField(t *testing.T) {
	s, _, err := loadServeConfig(configSources{env: []string{"RELAYER_DEVCHAIN_PROFILE=production", "RELAYER_DEVCHAIN_KMS_DELAY=6s"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.DevChainConfig.WithDefaults(); c.Profile != devchain.ProfileProduction || c.KMSDelay != 6*time.Second || c.CoprocessorDelay != 2*time.Second {
		t.Fatalf("devchain config %+v", c)
	}
	ps, _ := configProblems(t, configSources{env: []string{"RELAYER_DEVCHAIN_PROFILE=fast", "RELAYER_DEVCHAIN_JITTER=2"}})
	for _, path := range []string{"devchain.profile", "devchain.jitter"} {
		if len(problemAt(ps, path)) == 0 {
			t.Errorf("no problem at %s in %v", path, ps)
		}
	}
	ps, _ = configProblems(t, configSources{env: []string{"RELAYER_CHAIN_RPC_URL=http://127.0.0.1:1", "RELAYER_DEVCHAIN_PROFILE=production"}})
	if len(problemAt(ps, "devchain.profile")) == 0 {
		t.Errorf("devchain.profile with an external chain: no problem in %v", ps)
	}
}
