package review

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// slotName is a review slot file found in the log directory.
type slotName struct {
	logdir.Name
	// job is the review job the file belongs to.
	job  string
	path string
}

// json reports whether the file is the slot's JSON (else its log).
func (n slotName) json() bool { return n.Kind == logdir.KindSlotJSON }

// slotNames are the review slot files among names, the files of logDir,
// of the jobs jn can tell.
func slotNames(logDir string, names []logdir.Name, jn *logdir.JobNames) []slotName {
	var slots []slotName
	for _, n := range names {
		if n.Kind != logdir.KindSlotLog && n.Kind != logdir.KindSlotJSON {
			continue
		}
		if job, ok := jn.JobOf(n); ok {
			slots = append(slots, slotName{Name: n, job: job, path: n.Path(logDir)})
		}
	}
	return slots
}

// newer reports whether a comes before b, newest first: a higher run, or
// the same run and a is JSON while b is not.
func newer(a, b slotName) bool {
	if a.Run != b.Run {
		return a.Run > b.Run
	}
	return a.json() && !b.json()
}

// slotFiles groups the slot files of runs before before (0: any run) by
// job id and slot index, each group newest first; keep, when not
// nil, selects the jobs.
func slotFiles(slots []slotName, before int, keep func(job string) bool) map[string]map[int][]slotName {
	groups := map[string]map[int][]slotName{}
	for _, s := range slots {
		if (before > 0 && s.Run >= before) || (keep != nil && !keep(s.job)) {
			continue
		}
		byIndex := groups[s.job]
		if byIndex == nil {
			byIndex = map[int][]slotName{}
			groups[s.job] = byIndex
		}
		byIndex[s.Slot] = append(byIndex[s.Slot], s)
	}
	for _, byIndex := range groups {
		for _, files := range byIndex {
			slices.SortStableFunc(files, func(a, b slotName) int {
				switch {
				case newer(a, b):
					return -1
				case newer(b, a):
					return 1
				}
				return strings.Compare(a.path, b.path)
			})
		}
	}
	return groups
}

// latestVerdicts returns, per job id and slot index, the record of
// the newest run in which the slot reached a verdict (pass, fail or
// skipped_prior_pass), reading the files of runs before before (0: any run)
// newest first. A run in which the slot errored (a JSON with status error,
// a log that shows an error or no verdict) is passed over: it neither wipes
// the violations still to verify nor the agent's skips, nor is a crashed
// reviewer's streamed output taken for an answer. A run's JSON, when
// readable, is its record (its log is not consulted); an unreadable file
// adds a warning and the search goes on.
func latestVerdicts(slots []slotName, before int, keep func(job string) bool) (map[string]map[int]record, []string) {
	out := map[string]map[int]record{}
	var warnings []string
	for job, byIndex := range slotFiles(slots, before, keep) {
		for index, files := range byIndex {
			jsonRun := -1
			for _, n := range files {
				if !n.json() && n.Run == jsonRun {
					continue
				}
				r, err := readRecord(n)
				if err != nil {
					warnings = append(warnings, fmt.Sprintf("ignoring unreadable review log: %v", err))
					continue
				}
				if n.json() {
					jsonRun = n.Run
				}
				if !r.verdict() {
					continue
				}
				if out[job] == nil {
					out[job] = map[int]record{}
				}
				out[job][index] = r
				break
			}
		}
	}
	return out, warnings
}

// record is what one slot left in one run.
type record struct {
	slotName
	// adapter is the adapter the JSON names, else the file name's.
	adapter string
	// status is pass, fail, error or skipped_prior_pass ("" when a legacy
	// log does not say).
	status gate.Status
	// violations as stored, skipped ones included.
	violations []gate.Violation
	// passIteration of a skipped_prior_pass slot.
	passIteration int
}

// verdict reports whether the slot reached a verdict in r's run: pass,
// fail or skipped_prior_pass (not an error, nor a log that does not say).
func (r record) verdict() bool {
	switch r.status {
	case gate.StatusPass, gate.StatusFail, gate.StatusSkippedPriorPass:
		return true
	}
	return false
}

// passed reports whether the slot passed (or was skipped for a prior pass).
func (r record) passed() bool {
	return r.status == gate.StatusPass || r.status == gate.StatusSkippedPriorPass
}

// readRecord reads a slot file: the JSON, or a log in the upstream format.
func readRecord(n slotName) (record, error) {
	r := record{slotName: n, adapter: n.Adapter}
	if n.json() {
		f, err := readSlotFile(n.path)
		if err != nil {
			return r, err
		}
		r.status, r.violations, r.passIteration = f.Status, f.Violations, f.PassIteration
		if f.Adapter != "" {
			r.adapter = f.Adapter
		}
		return r, nil
	}
	data, err := fsread.File(n.path, maxLogRead)
	if err != nil {
		return r, err // an *fs.PathError naming the file
	}
	r.status, r.violations = parseLegacyLog(string(data))
	if r.status == "" && len(r.violations) > 0 {
		// A legacy log listing violations without a status line failed.
		r.status = gate.StatusFail
	}
	return r, nil
}

// stampRE matches the `[<time>] ` that starts a log line.
var stampRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[\d{4}-[^\]]*\] `) })

// slotResultRE matches the `Review result (<adapter>@<i>): <status> - `
// line that ends a slot's attempt.
var slotResultRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Review result \([^)]*@\d+\): (\w+) - `) })

// slotErrorRE matches the TypeScript tool's `Error running <adapter>@<i>: `.
var slotErrorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Error running [^@\s]+@\d+: `) })

// logViolationRE matches `<n>. <file>:<line> - <issue>` of a Parsed Result.
var logViolationRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\s+(.+?):(\d+|NaN|\?)\s+-\s+(.+)$`) })

// Log markers written by this package and by the TypeScript tool.
const (
	markParsedResult = "--- Parsed Result"
	markReviewOutput = "--- Review Output"
	markStatusPass   = "Status: PASS"
	markStatusFail   = "Status: FAIL"
	markStatusSkip   = "Status: " + string(gate.StatusSkippedPriorPass)
	markResultPass   = "Result: pass"
	markFix          = "Fix: "
	// markBelowThreshold opens the log line of each new violation the
	// rerun threshold left out of a verification run's verdict.
	markBelowThreshold = "Below the rerun threshold, not verified: "
	markSlotError      = "Error: "
	separatorLine      = "---------------------"
)

// parseLegacyLog reads the status and violations of a slot log without a
// JSON file: the `--- Parsed Result` section, else an object embedded in the
// review output. A log that shows the slot erred (`Review result (...):
// error`, or the TypeScript tool's `Error running <adapter>@<i>: `) is an
// error, whatever the reviewer's streamed output holds.
func parseLegacyLog(text string) (gate.Status, []gate.Violation) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(stampRE().ReplaceAllString(l, ""), "\r")
		t := strings.TrimSpace(lines[i])
		if m := slotResultRE().FindStringSubmatch(t); m != nil && m[1] == string(gate.StatusError) {
			return gate.StatusError, nil
		}
		if slotErrorRE().MatchString(t) {
			return gate.StatusError, nil
		}
	}
	var status gate.Status
	var vs []gate.Violation
	inParsed := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == markStatusSkip:
			return gate.StatusSkippedPriorPass, nil
		case t == markStatusPass, strings.HasPrefix(t, markResultPass):
			status = gate.StatusPass
		case t == markStatusFail && status == "":
			status = gate.StatusFail
		case strings.HasPrefix(t, markParsedResult):
			inParsed = true
			continue
		case t == separatorLine:
			inParsed = false
		}
		if !inParsed {
			continue
		}
		if m := logViolationRE().FindStringSubmatch(t); m != nil {
			v := gate.Violation{File: m[1], Line: m[2], Issue: m[3], Status: gate.ViolationNew}
			if n, ok := parse.LineNumber(m[2]); ok {
				v.Line = n
			}
			vs = append(vs, v)
		} else if strings.HasPrefix(t, markFix) && len(vs) > 0 {
			vs[len(vs)-1].Fix = strings.TrimPrefix(t, markFix)
		}
	}
	if status == gate.StatusPass {
		return status, nil
	}
	if len(vs) == 0 {
		// An object embedded in the review output, as the reviewer wrote it.
		body := strings.Join(lines, "\n")
		if i := strings.Index(body, markReviewOutput); i >= 0 {
			body = body[i:]
		}
		if ex, err := parse.Extract(body); err == nil {
			if rv, err := parse.Decode(ex.Object); err == nil {
				if rv.Status == parse.StatusPass {
					return gate.StatusPass, nil
				}
				status = gate.StatusFail
				vs = parse.CheckViolations(rv.Violations).Kept
			}
		}
	}
	return status, vs
}

// PendingSlots returns the review slots that earlier runs left failing,
// found as the TypeScript tool finds them, except that runs in which a slot erred
// are passed over: for every review slot among names (the files of logDir)
// whose job keep accepts, the record of the newest run with a verdict (see
// latestVerdicts; the JSON preferred over the log of the same run) is
// read; slots that passed contribute nothing; violations the agent marked
// "skipped" are dropped; a missing status reads as "new", an unknown one is
// treated as "new" with a warning. A slot that answered "fail" without
// violations is pending with an empty list. It also returns one warning
// per unreadable file (one line each, without a "Warning:" prefix). The
// map is keyed by job id (the files named by jn), then slot index; it is
// never nil.
func PendingSlots(logDir string, names []logdir.Name, jn *logdir.JobNames, keep func(job string) bool) (map[string]map[int][]gate.Violation, []string) {
	out := map[string]map[int][]gate.Violation{}
	records, warnings := latestVerdicts(slotNames(logDir, names, jn), 0, keep)
	for job, byIndex := range records {
		for index, r := range byIndex {
			vs, failed, ws := pending(r)
			warnings = append(warnings, ws...)
			if !failed {
				continue
			}
			if out[job] == nil {
				out[job] = map[int][]gate.Violation{}
			}
			out[job][index] = vs
		}
	}
	return out, warnings
}

// pending returns the violations of r still to be verified (new and
// fixed), whether the slot has anything pending (a failure without
// violations has), and a warning per unknown status.
func pending(r record) ([]gate.Violation, bool, []string) {
	if r.status != gate.StatusFail && r.status != "" {
		return nil, false, nil
	}
	if r.status == gate.StatusFail && len(r.violations) == 0 {
		return nil, true, nil
	}
	var out []gate.Violation
	var warnings []string
	for _, v := range r.violations {
		switch strings.ToLower(strings.TrimSpace(v.Status)) {
		case gate.ViolationSkipped:
			continue
		case "", gate.ViolationNew:
			v.Status = gate.ViolationNew
		case gate.ViolationFixed:
			v.Status = gate.ViolationFixed
		default:
			warnings = append(warnings, fmt.Sprintf("%s: violation %s:%s has unknown status %q; treated as %q",
				r.path, v.File, parse.LineText(v.Line), v.Status, gate.ViolationNew))
			v.Status = gate.ViolationNew
		}
		out = append(out, v)
	}
	return out, len(out) > 0, warnings
}

// Judged returns the review jobs among the files names of logDir (named by
// jn) that judged the work tree of run: at least one slot answered pass or
// fail in that very run, so the gate saw the change scope it was given
// then. A slot skipped for a prior pass, one that erred, and a gate that
// passed on an empty diff (it writes no file) did not judge it.
func Judged(logDir string, names []logdir.Name, jn *logdir.JobNames, run int) map[string]bool {
	out := map[string]bool{}
	if run < 1 {
		return out
	}
	records, _ := latestVerdicts(slotNames(logDir, names, jn), run+1, nil)
	for job, byIndex := range records {
		for _, r := range byIndex {
			if r.Run == run && (r.status == gate.StatusPass || r.status == gate.StatusFail) {
				out[job] = true
			}
		}
	}
	return out
}
