package runner

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// checkLogRE matches a check log name: <sanitized check id>.<run>.log.
var checkLogRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(` + string(gate.KindCheck) + `_.+)\.(\d+)\.log$`) })

// previousFailingChecks returns the sanitized ids of the checks whose latest
// log in logDir ended in failure or error.
func previousFailingChecks(logDir string) map[string]bool {
	entries, err := os.ReadDir(logDir)
	if err != nil {
		return nil
	}
	latest := map[string]int{}
	names := map[string]string{}
	for _, e := range entries {
		m := checkLogRE().FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		if n > latest[m[1]] {
			latest[m[1]], names[m[1]] = n, e.Name()
		}
	}
	failing := map[string]bool{}
	for id, name := range names {
		if s := check.LastResult(filepath.Join(logDir, name)); s == string(gate.StatusFail) || s == string(gate.StatusError) {
			failing[id] = true
		}
	}
	return failing
}
