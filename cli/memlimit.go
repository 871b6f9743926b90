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

// limitMemory sets softMemoryLimit, unless GOMEMLIMIT sets another.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}
