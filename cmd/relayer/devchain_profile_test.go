package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestDevchainRefusesABadProfileOrDelayNamingItsFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "fast"}, `--profile: must be instant or production, got "fast"`},
		{[]string{"--kms-delay", "-1s"}, "--kms-delay: must be a duration"},
		{[]string{"--coprocessor-delay", "2h"}, "--coprocessor-delay: must be a duration"},
		{[]string{"--readiness-delay", "-5s"}, "--readiness-delay: must be a duration"},
		{[]string{"--jitter", "1"}, "--jitter must be more than 0 and less than 1"},
		{[]string{"--jitter", "0"}, "--jitter must be more than 0 and less than 1"},
	} {
		_, stderr, code := runCLI(t, append([]string{"devchain", "--http", "", "--ws", ""}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("devchain %v: exit %d, %q; want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
}

func TestDevchainRunsTheProductionProfileAndSaysItsDelays(t *testing.T) {
	const want = "production (KMS nodes 4.8s-7.2s, coprocessors 1.6s-2.4s, readiness 1.6s-2.4s)"
	dc, _ := startDevchain(t, regexp.MustCompile(regexp.QuoteMeta(want)), "--http", "127.0.0.1:0", "--ws", "", "--profile", "production", "--kms-delay", "6s")
	if !strings.Contains(dc.stdout.String(), "latency profile") {
		t.Errorf("the profile is not labelled:\n%s", dc.stdout.String())
	}
	dc.stop(t)
}
