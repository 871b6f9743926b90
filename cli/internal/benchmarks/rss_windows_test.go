//go:build windows

package benchmarks

import "os"

// peakRSS is 0: a finished process's state carries no memory figures on
// Windows, so maxrss-KiB is not measured there.
func peakRSS(*os.ProcessState) int64 { return 0 }
