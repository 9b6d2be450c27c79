//go:build unix

package storebench

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system) the process has used so far. On a shared,
// busy machine it says more about a read path's cost than the wall clock does.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
