package cli

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
)

// CacheVersion is the version that keys the result cache: a result
// recorded by one version of agent-gauntlet is never taken by another.
// It is the version --version prints; for a development build ("dev")
// it is the build itself: its
// VCS revision and the size and time of its executable, so that results of
// one development build never pass for another's; "" (no cache) when the
// build cannot be told apart.
var CacheVersion = sync.OnceValue(func() string {
	if v := version(); v != "dev" {
		return v
	}
	id := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				id += " " + s.Value
			}
		}
	}
	// A build that cannot be told apart from others runs without the cache.
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return id + fmt.Sprintf(" %d %d", fi.Size(), fi.ModTime().UnixNano())
})
