//go:build !unix

package storebench

import "time"

// CPUTime is not measured on this system: it reports false.
func CPUTime() (time.Duration, bool) { return 0, false }
