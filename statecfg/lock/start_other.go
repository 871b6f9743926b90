//go:build unix && !linux && !darwin

package lock

import "time"

// processStart cannot tell when a process started on this OS (the BSDs,
// Solaris): a lock of a live pid is then stale only by its age or its
// run's deadline.
func processStart(int) (time.Time, bool) { return time.Time{}, false }
