//go:build !unix

package sqlite

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
