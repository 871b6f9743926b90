package check

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// ReadFindings reads what one run of job's command reported: its output
// (out's spans of log) in the check's format (recognised from cmd when it
// names none) and the JUnit files it names that were written since began.
// root is the root of the tree it ran in, dir its absolute working
// directory. read is false when there is nothing worth keeping: a passing
// check whose output is plain text.
func ReadFindings(job gate.Job, cmd, root, dir string, out Outcome, log io.ReaderAt, began time.Time) (r findings.Result, read bool) {
	failed := out.Status == gate.StatusFail
	format := job.Check.Format
	if format == findings.FormatAuto {
		format = findings.Recognize(cmd)
	}
	if !failed && format == findings.FormatText && job.Check.JUnit == "" {
		return findings.Result{}, false
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		rel = "."
	}
	spec := findings.Spec{Format: format, Command: cmd, Dir: filepath.ToSlash(rel), Roots: []string{root}, Failed: failed}
	junit, jerr := findings.JUnitFiles(dir, job.Check.JUnit, began)
	spec.JUnit = junit
	r = findings.Parse(spec, out.OutputReader(log))
	if jerr != nil && r.Problem == "" {
		r.Problem = jerr.Error()
	}
	addStops(&r, cmd, out)
	return r, true
}

// crashSignals are the signals that end a program abruptly, by their
// numbers on Linux and the BSDs: SIGILL, SIGTRAP, SIGABRT, SIGBUS (7 and
// 10), SIGFPE, SIGKILL, SIGSEGV.
var crashSignals = map[int]string{4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGBUS", 11: "SIGSEGV"}

// addStops adds to r what the command's run says of itself that its
// output cannot: a chain whose failed part kept its later parts from
// running, and a run a crash signal ended when no parser saw the stop.
func addStops(r *findings.Result, cmd string, out Outcome) {
	if len(out.Unreached) > 0 {
		rest := strings.Join(out.Unreached, " && ")
		r.Stops = append(r.Stops, findings.Stop{Unit: "`" + rest + "`", Tool: findings.ToolChain, Kind: findings.StopChain, Rest: rest, Failed: out.FailedPart,
			Reason: fmt.Sprintf("`%s` failed, so what comes after it in the command never ran", out.FailedPart)})
	}
	if sig, ok := crashSignals[out.ExitCode-128]; ok && out.Status == gate.StatusFail && len(r.Stops) == 0 {
		r.Stops = append(r.Stops, findings.Stop{Unit: "`" + cmd + "`", Tool: findings.ToolSignal, Kind: findings.StopCrash,
			Reason: fmt.Sprintf("it was killed by %s (exit code %d): what it would have run after that never ran", sig, out.ExitCode)})
	}
}

// maxLoggedFindings bounds the findings WriteFindings lists.
const maxLoggedFindings = 100

// FindingsHeader opens the list of findings in a failed check's log.
const FindingsHeader = findings.LogHeader

// WriteFindings appends to a failed check's log what its output reported
// (findings.Result.Judge, the account its block reason gives too), one
// line each: what to fix first (marked [new] when compared with the base),
// then what the base has too, then the units that did not run all their
// tests; for people reading the log (a structured output such as go test
// -json is hard to read as printed).
func WriteFindings(w io.Writer, r *findings.Result) {
	if r == nil {
		return
	}
	j := r.Judge()
	if len(j.Fix) == 0 && len(j.Old) == 0 && len(r.Stops) == 0 && r.Problem == "" {
		return
	}
	if j.Compared {
		fmt.Fprintf(w, "\n%s\nRead as %s: %d new, %d on the base too.\n", FindingsHeader, r.Format, len(j.Fix), len(j.Old))
	} else {
		fmt.Fprintf(w, "\n%s\nRead as %s: %d to fix.\n", FindingsHeader, r.Format, len(j.Fix))
	}
	listed := 0
	for _, list := range [][]findings.Finding{j.Fix, j.Old} {
		for i, f := range list {
			if listed == maxLoggedFindings {
				fmt.Fprintf(w, "  … and %d more\n", len(list)-i)
				break
			}
			listed++
			mark := ""
			switch f.Baseline {
			case findings.BaselineNew:
				mark = "[new] "
			case findings.BaselineUnchanged:
				mark = "[on the base too] "
			}
			fmt.Fprintf(w, "  %s%s\n", mark, f.Title())
		}
	}
	for _, s := range r.Stops {
		fmt.Fprintf(w, "  Not all tests ran: %s: %s\n", s.Unit, s.Reason)
	}
	if r.Problem != "" {
		fmt.Fprintf(w, "  %s\n", r.Problem)
	}
}
