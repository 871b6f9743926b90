//go:build !linux

package procgroup

import "os"

var pid = os.Getpid()

// AdoptStrays does nothing where there is no child subreaper: a
// descendant that leaves its process group is beyond reach there.
func AdoptStrays() error { return nil }

// KillStrays does nothing where AdoptStrays does nothing.
func KillStrays(tag string, group int) {}
