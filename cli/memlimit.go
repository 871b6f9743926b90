package cli

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit is the heap the garbage collector keeps the process
// within while what is live allows (runtime/debug.SetMemoryLimit). What
// the gauntlet holds is bounded (findings.MaxBytes of a check's output,
// held by the parsers of test runners' formats, is the most), but the
// collector's default lets the heap grow to twice what is live: a check
// printing 100 MB of `go test -v` output took the process to 112 MB of
// RSS without the limit, 77 MB with it.
const softMemoryLimit = 64 << 20

// hookGCPercent is the collector's GOGC in a hook process. A stop with
// nothing new allocates about 6 MB in its short life and, at the default of
// 100, runs two collections (GODEBUG=gctrace=1) that cost about a tenth of
// its user CPU time (BENCHMARKS.md); at 400 it runs none. The heap of a hook
// that runs the gates may then grow to five times what is live, within
// softMemoryLimit.
const hookGCPercent = 400

// limitMemory sets softMemoryLimit, unless GOMEMLIMIT sets another, and,
// for a hook, hookGCPercent, unless GOGC sets another.
func limitMemory(hook bool) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	if hook && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(hookGCPercent)
	}
}
