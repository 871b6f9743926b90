package check

import (
	"bytes"
	"io"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// resultMarker starts the line a check log ends with: `Result: <status> - <message>`.
// The TypeScript tool writes the same line, so its logs read the same way.
const resultMarker = "\nResult: "

// resultTail is how much of a log's end LastResult reads: whatever a check
// printed, finding its result costs at most this much memory.
const resultTail = 64 << 10

// LastResult returns the status of the last `Result: <status> - ` line near
// the end of the check log at path, before any fix instructions ("" when
// there is none or it cannot be read). It reads at most the last 64 KiB.
func LastResult(path string) string {
	f, err := fsread.Open(path)
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
	// Fix instructions follow the result line; their text is not ours.
	if j := bytes.LastIndex(data, []byte("\n"+FixInstructionsHeader+"\n")); j >= 0 {
		data = data[:j]
	}
	i := bytes.LastIndex(data, []byte(resultMarker))
	if i < 0 {
		return ""
	}
	status, _, _ := strings.Cut(string(data[i+len(resultMarker):]), " ")
	return strings.TrimSpace(status)
}

// Failing returns the ids of the check jobs among names (the files of
// logDir, named by jn) whose latest log failed or erred, for the jobs keep
// accepts.
func Failing(logDir string, names []logdir.Name, jn *logdir.JobNames, keep func(job string) bool) map[string]bool {
	latest := map[string]logdir.Name{}
	for _, n := range names {
		if n.Kind != logdir.KindJobLog {
			continue
		}
		job, ok := jn.JobOf(n)
		if !ok || gate.KindOf(job) != gate.KindCheck || !keep(job) {
			continue
		}
		if cur, ok := latest[job]; !ok || n.Run > cur.Run {
			latest[job] = n
		}
	}
	failing := map[string]bool{}
	for job, n := range latest {
		if r := LastResult(n.Path(logDir)); r == string(gate.StatusFail) || r == string(gate.StatusError) {
			failing[job] = true
		}
	}
	return failing
}
