//go:build unix

package benchmarks

import (
	"os"
	"syscall"
)

// peakRSS is the peak resident set size getrusage reports for the finished
// process ps (kilobytes on Linux), 0 when it reports none.
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
