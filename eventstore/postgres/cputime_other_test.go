//go:build !unix

package postgres

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
