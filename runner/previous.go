package runner

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// checkLogRE matches a check log name: <sanitized check id>.<run>.log.
var checkLogRE = regexp.MustCompile(`^(` + string(gate.KindCheck) + `_.+)\.(\d+)\.log$`)

// resultTail is how much of a log's end is read to find its Result line.
const resultTail = 64 << 10

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
		m := checkLogRE.FindStringSubmatch(e.Name())
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
		if s := lastResult(filepath.Join(logDir, name)); s == string(gate.StatusFail) || s == string(gate.StatusError) {
			failing[id] = true
		}
	}
	return failing
}

// lastResult returns the status of the last "Result: <status> - " line in
// the tail of the log at p ("" when none).
func lastResult(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > resultTail {
		if _, err := f.Seek(-resultTail, io.SeekEnd); err != nil {
			return ""
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, resultTail))
	if err != nil {
		return ""
	}
	i := bytes.LastIndex(data, []byte("\nResult: "))
	if i < 0 {
		return ""
	}
	rest := string(data[i+len("\nResult: "):])
	status, _, _ := strings.Cut(rest, " ")
	return strings.TrimSpace(status)
}
