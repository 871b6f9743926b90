//go:build unix

package lifecycle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
)

// violation is one broken property: Sig names its class ("<property
// letter>:<what>"), stable across runs so that rapid can shrink a sequence
// to the same class; Detail says what happened.
type violation struct {
	Sig, Detail string
}

func (v violation) String() string { return v.Sig + ": " + v.Detail }

// hookCall is one stop-hook input: its session, its loop flag as sent
// ("false", "true" for the JSON boolean, "str-true" for the string "true")
// and where it says the agent is (Where: "" the project's root; "sub" a
// sub-directory; "out" a directory outside the project; "-env" added when
// CLAUDE_PROJECT_DIR names the project).
type hookCall struct {
	Session string
	Active  string
	Where   string
}

// lost reports whether the hook cannot know the project: its directory is
// outside it and nothing names the project.
func (h hookCall) lost() bool { return h.Where == "out" }

// loopFlag reports whether the input says the stop follows a block.
func (h hookCall) loopFlag() bool { return h.Active == "true" || h.Active == "str-true" }

// input is the Claude Code Stop hook input (the shape of
// shared/fixtures/claude-code/*.json) for cwd.
func (h hookCall) input(cwd string) string {
	var active any = false
	switch h.Active {
	case "true":
		active = true
	case "str-true":
		active = "true"
	}
	data, _ := json.Marshal(map[string]any{
		"session_id":             h.Session,
		"transcript_path":        "/home/dev/.claude/projects/-home-dev-project/" + h.Session + ".jsonl",
		"cwd":                    cwd,
		"prompt_id":              "9d5bfb8b-9aa5-490f-b6df-f59bb7c3ea24",
		"permission_mode":        "default",
		"effort":                 map[string]string{"level": "medium"},
		"hook_event_name":        "Stop",
		"stop_hook_active":       active,
		"last_assistant_message": "All done.",
		"background_tasks":       []any{},
		"session_crons":          []any{},
	})
	return string(data) + "\n"
}

// answer is the decoded line of a stop hook.
type answer struct {
	Decision string `json:"decision"`
	Status   string `json:"status"`
	Message  string `json:"message"`
	// SystemMessage is what the agent's host shows the person.
	SystemMessage string `json:"systemMessage"`
	Reason        string `json:"reason"`
	StopReason    string `json:"stopReason"`
	// FailedJobs are the jobs the run's console log reports failed or in
	// error (filled in by the harness for blocks).
	FailedJobs []string `json:"-"`
}

// resultLineRE matches a console line reporting a job that did not pass.
var resultLineRE = regexp.MustCompile(`(?m)^\[(?:FAIL|ERROR)\]\s+(\S+)`)

// failedJobs lists the jobs a console output reports failed or in error.
func failedJobs(console string) []string {
	var out []string
	for _, m := range resultLineRE.FindAllStringSubmatch(console, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// failLogRE matches a failed check's result line and the Log: line under it.
var failLogRE = regexp.MustCompile(`(?m)^\[(?:FAIL|ERROR)\]\s+(check:\S+).*\n\s+Log: (\S+)`)

// checkFailLogs reports a failed check whose Log: line points to a log that
// shows a passing run (the check scripts print "<MARKER> in:" when they
// fail and "<gate> ok" when they pass): the agent could not see what to
// fix (property e). read reads a log file.
func checkFailLogs(console string, read func(string) (string, bool)) []violation {
	var vs []violation
	for _, m := range failLogRE.FindAllStringSubmatch(console, -1) {
		log, ok := read(strings.Trim(m[2], "'\""))
		if ok && !strings.Contains(log, "FAIL in") && strings.Contains(log, " ok\n") {
			vs = append(vs, violation{"e:fail-log-shows-pass", fmt.Sprintf("%s failed but its log %s shows a passing run:\n%s", m[1], m[2], log)})
		}
	}
	return vs
}

// gateSuffix names the gates of job ids ("-docs", "-lint+quality"), so that
// signatures tell apart which gate a violation is about.
func gateSuffix(ids []string) string {
	var gates []string
	for _, id := range ids {
		g := id
		if parts := strings.Split(id, ":"); len(parts) == 3 {
			g = parts[2]
		}
		if g == configGate {
			g = "config"
		}
		if !slices.Contains(gates, g) {
			gates = append(gates, g)
		}
	}
	slices.Sort(gates)
	if len(gates) == 0 {
		return ""
	}
	return "-" + strings.Join(gates, "+")
}

// sigGates are the gate names a signature's gate list holds.
var sigGates = []string{"lint", "test", "docs", "vet", "unit", "junit", "quality", "config"}

// sigClass is a signature with its list of gates made "*"
// ("b:hook-passed-lint+vet" is "b:hook-passed-*"): the class a known
// signature stands for, so that a violation about other gates is not
// taken for a new one (the gates are in its details).
func sigClass(sig string) string {
	parts := strings.Split(sig, "-")
	for i, p := range parts {
		if !slices.ContainsFunc(strings.Split(p, "+"), func(n string) bool { return !slices.Contains(sigGates, n) }) {
			parts[i] = "*"
		}
	}
	return strings.Join(parts, "-")
}

// Statuses the oracle names.
const (
	stPassed    = string(runner.StatusPassed)
	stWarnings  = string(runner.StatusPassedWithWarnings)
	stNoGates   = string(runner.StatusNoApplicableGates)
	stNoChanges = string(runner.StatusNoChanges)
	stFailed    = string(runner.StatusFailed)
	stRetry     = string(runner.StatusRetryLimitExceeded)
	stLock      = string(runner.StatusLockExists)
	stInterval  = string(runner.StatusIntervalNotElapsed)
	stActive    = string(runner.StatusStopHookActive)
	stError     = string(runner.StatusError)
	stDisabled  = string(runner.StatusStopHookDisabled)
	stInfra     = string(runner.StatusInfrastructureError)
	stNoConfig  = string(runner.StatusNoConfig)
	stInvalid   = string(runner.StatusInvalidInput)
	// stInterrupted is a CLI run that said it was interrupted.
	stInterrupted = "interrupted"
)

// passing are the statuses of a run that found nothing to fix.
var passing = []string{stPassed, stWarnings, stNoGates, stNoChanges}

// checkHookOutput decodes a hook's stdout: exactly one line holding one JSON
// object with a known status, "block" exactly for "failed" with the
// instructions, exit 0 (property e).
func checkHookOutput(r result) (answer, []violation) {
	var vs []violation
	if r.code != 0 || r.signal != 0 {
		vs = append(vs, violation{"e:hook-exit", fmt.Sprintf("stop-hook exited %d (signal %v)", r.code, r.signal)})
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.stdout == "" || !strings.HasSuffix(r.stdout, "\n") || len(lines) != 1 {
		vs = append(vs, violation{"e:hook-lines", fmt.Sprintf("stop-hook stdout is not exactly one line: %q", r.stdout)})
		return answer{}, vs
	}
	var a answer
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	if err := dec.Decode(&a); err != nil || dec.More() {
		vs = append(vs, violation{"e:hook-json", fmt.Sprintf("stop-hook stdout is not one JSON object: %q", lines[0])})
		return answer{}, vs
	}
	known := slices.Contains(runner.AllStatuses, runner.GauntletStatus(a.Status))
	switch {
	case !known:
		vs = append(vs, violation{"e:hook-status", fmt.Sprintf("unknown status %q", a.Status)})
	case a.Decision != "approve" && a.Decision != "block":
		vs = append(vs, violation{"e:hook-decision", fmt.Sprintf("decision %q", a.Decision)})
	case (a.Decision == "block") != (a.Status == stFailed):
		vs = append(vs, violation{"e:hook-decision", fmt.Sprintf("decision %q with status %q", a.Decision, a.Status)})
	case a.Decision == "block" && (a.Reason == "" || a.StopReason == ""):
		vs = append(vs, violation{"e:hook-instructions", "a block without reason or stopReason"})
	}
	return a, vs
}

// checkHookAnswer judges a hook's decision against the oracle (properties b
// and c, and that the human is told). m is the model as the run found it
// (after the resets its start implies), f the facts of the work tree.
func checkHookAnswer(m *model, f facts, call hookCall, a answer) []violation {
	if call.lost() && a.Decision != "block" {
		return nil // nothing names the project: it cannot be found
	}
	g := m.hookGates(f)
	vs := checkToldConfig(m, f, a)
	credit := m.credit[call.Session]
	if a.Decision == "block" {
		if call.loopFlag() && credit && !g.VerifyOnContinue {
			vs = append(vs, violation{"c:hook-block-after-block", fmt.Sprintf("blocked the stop that follows a block (stop_hook_active %s)", call.Active)})
		}
		if fails := m.mayFail(f, g, selection{scope: "all"}); len(fails) == 0 {
			vs = append(vs, violation{"c:hook-block-nothing-fails" + gateSuffix(a.FailedJobs) + m.faultSuffix() + m.shellTags(f, a.FailedJobs, true, true),
				fmt.Sprintf("blocked while no gate fails in the work tree (the run reports %s)", strings.Join(a.FailedJobs, ", "))})
		}
		return vs
	}
	fails := m.failing(f, g, selection{scope: "all"})
	if m.configCredit[call.Session] && call.loopFlag() && g.VerifyOnContinue && m.configBroken() && !f.HeadConfigBroken {
		// Right after the broken configuration's block, the trusted gates
		// run in its stead: what they fail is what fails.
		fails = m.failingGates(f, g, selection{scope: "all"})
	}
	soft, cause := m.unverified(f, g)
	if len(fails) == 0 && len(soft) == 0 {
		return vs
	}
	if len(fails) > 0 && !toldHidden(f, a) {
		if v, bad := m.illegitimate(f, g, call, a, fails); bad {
			return append(vs, v)
		}
	}
	ids := append(slices.Clone(fails), soft...)
	if toldUnverified(a, ids) {
		return vs
	}
	sig := "b:untold-" + a.Status
	if len(fails) == 0 && !slices.Contains(terminal, a.Status) {
		sig = "b:unverified-" + cause + m.shellTags(f, soft, false, slices.Contains(passing, a.Status))
	}
	if strings.HasSuffix(call.Where, "-env") && a.Status == stNoConfig {
		sig = "b:hook-no_config-project-dir"
	}
	return append(vs, violation{sig, fmt.Sprintf("approved %q while %s fail(s) (not surely in the changes: %s), and its systemMessage does not say what was not verified: %q",
		a.Status, strings.Join(ids, ", "), strings.Join(soft, ", "), a.SystemMessage)})
}

// illegitimate judges an approve with status a.Status while the
// applicable gates fails fail: legitimate only for a termination
// condition that really holds (it must then say what was not verified).
func (m *model) illegitimate(f facts, g gates, call hookCall, a answer, fails []string) (violation, bool) {
	why := fmt.Sprintf("approved %q while %s fail(s)", a.Status, strings.Join(fails, ", "))
	suffix := gateSuffix(fails) + m.weakened(f, a.Status) + m.shellTags(f, fails, false, slices.Contains(passing, a.Status))
	if slices.ContainsFunc(fails, func(id string) bool { return strings.HasPrefix(id, "review:") }) {
		suffix += m.faultSuffix()
	}
	credit := m.configCredit[call.Session]
	switch a.Status {
	case stActive:
		// The client's loop flag ends the loop when stops are not verified
		// (whoever blocked before: the approve tells what it did not run).
		// A configuration the change broke has no retry budget to end a
		// loop: the stop after its own block (that very block, not a
		// gate's) is allowed even when verified.
		broken := len(fails) == 1 && fails[0] == configGate
		if call.loopFlag() && (!g.VerifyOnContinue || credit && broken) {
			return violation{}, false
		}
		return violation{"b:hook-stop_hook_active" + suffix, why + fmt.Sprintf(" (loop flag %s, previous answer the configuration's block: %v, verify_on_continue: %v)", call.Active, credit, g.VerifyOnContinue)}, true
	case stRetry:
		if m.sessionSpent(call.Session, g) {
			return violation{}, false
		}
		return violation{"b:retry_limit_exceeded" + m.resetSuffix() + m.weakened(f, a.Status), why + fmt.Sprintf(" after %d run(s) of its own session in this episode at most (max_retries %d; episode began %s; %d infrastructure error(s) not counted)", m.spent[call.Session], g.MaxRetries, m.episodeStart(), m.infraRuns)}, true
	case stLock:
		if m.lock.respected() {
			return violation{}, false
		}
		return violation{"b:hook-lock_exists-" + m.lock.name(), why + fmt.Sprintf(" (lock: %q)", m.lock)}, true
	case stInterval:
		if m.intervalLegit(g) {
			return violation{}, false
		}
		return violation{"b:interval_not_elapsed" + m.weakened(f, a.Status), why + fmt.Sprintf(" (interval %d; full pass since the last clean: %v, failure since: %v)", g.Interval, m.fullPass, m.failedSince)}, true
	case stDisabled:
		if m.globalDisabled || !g.Enabled {
			return violation{}, false
		}
	case stInfra:
		// A reviewer's fault, or a link planted in the gauntlet's store
		// that a gate's step refuses.
		if m.fault != "" || len(m.storeLinks) > 0 {
			return violation{}, false
		}
	case stError:
		// No record, and HEAD's configuration, the one to trust, does
		// not load: there are no trusted gates to run (docs/stop-hook.md,
		// the error row); the approve must say what was not verified.
		if _, known := m.hookFiles(f); !known {
			return violation{}, false
		}
		// A link planted in the gauntlet's store is refused, and the
		// stop approves telling why.
		if len(m.storeLinks) > 0 {
			return violation{}, false
		}
	}
	if strings.HasSuffix(call.Where, "-env") && a.Status == stNoConfig {
		return violation{"b:hook-no_config-project-dir", why + " (CLAUDE_PROJECT_DIR names the project)"}, true
	}
	return violation{"b:hook-" + a.Status + suffix, why}, true
}

// hiddenChange reports whether a changed file is one git ignores (the
// agent's shell wrote an ignore rule for it): change detection honors the
// rules, so a run by hand, or a pass taken from the result cache, judges
// the tree without it; only the stop hook's answer must tell the person
// (toldHidden).
func hiddenChange(f facts) bool {
	for p := range f.Changed {
		if f.Ignored[p] {
			return true
		}
	}
	return false
}

// toldHidden reports whether an approve tells of ignore rules changed
// while a changed file is one git ignores, naming it: the agent hid it
// from change detection, and the answer may let it stop when it says so
// and names each hidden changed file (or a directory holding it), or says
// its list is short (it must still say what was not verified).
func toldHidden(f facts, a answer) bool {
	msg := a.SystemMessage
	if !strings.Contains(msg, "The ignore rules changed since an earlier stop") || !hiddenChange(f) {
		return false
	}
	if strings.Contains(msg, "the list may be short") || strings.Contains(msg, " more)") {
		return true
	}
	for p := range f.Changed {
		if f.Ignored[p] && !namesPath(msg, p) {
			return false
		}
	}
	return true
}

// namesPath reports whether msg names the path p, or a directory holding
// it (ending in "/"), as an item of a list.
func namesPath(msg, p string) bool {
	for d := p; ; {
		if strings.Contains(msg, d+")") || strings.Contains(msg, d+", ") || strings.Contains(msg, d+" and ") {
			return true
		}
		i := strings.LastIndex(strings.TrimSuffix(d, "/"), "/")
		if i < 0 {
			return false
		}
		d = d[:i+1]
	}
}

// terminal are the statuses of the termination conditions an approve may
// legitimately hold while a gate fails (telling what was not verified).
var terminal = []string{stActive, stRetry, stLock, stInterval, stDisabled, stInfra}

// faultSuffix tags a signature with the reviewer's fault.
func (m *model) faultSuffix() string {
	if m.fault == "" {
		return ""
	}
	return "-reviewer-" + m.fault
}

// toldWords are what a systemMessage says when something was not
// verified (matched case-insensitively).
var toldWords = []string{"not verified", "unverified", "not been verified", "not be verified", "did not verify", "could not verify",
	"cannot verify", "without verifying", "not checked", "unchecked", "cannot check", "could not check", "not run", "not re-run",
	"pending", "still fail"}

// preExistingRE matches, in a lowercased message, the sentence naming the
// checks that fail on the base branch too.
var preExistingRE = regexp.MustCompile(`not caused by this change, here for information: .*? on the base branch too\.`)

// toldUnverified reports whether an approve's systemMessage says what was
// not verified: in words, or by naming a failing gate. A hook disabled by a
// configuration file must name the file.
func toldUnverified(a answer, ids []string) bool {
	// A gate named as pre-existing is said not to be the change's: that
	// tells nothing unverified.
	msg := preExistingRE.ReplaceAllString(strings.ToLower(a.SystemMessage), "")
	if a.Status == stDisabled && !strings.Contains(msg, "config.yml") {
		return false
	}
	for _, id := range ids {
		if strings.Contains(msg, strings.ToLower(id)) {
			return true
		}
	}
	msg = withoutPaths(msg)
	for _, w := range toldWords {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// withoutPaths is msg without its words that hold a path (a temporary
// directory may hold any word a check looks for).
func withoutPaths(msg string) string {
	var words []string
	for _, w := range strings.Fields(msg) {
		if !strings.Contains(w, "/") {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// checkToldConfig checks that a hook answer says when the work tree's
// configuration is not the one it must run (edited, weakened, deleted, or
// not trusted yet): its systemMessage names trust.
func checkToldConfig(m *model, f facts, a answer) []violation {
	if a.Status == stInvalid || !m.configDiffers(f) || strings.Contains(withoutPaths(strings.ToLower(a.SystemMessage)), "trust") {
		return nil
	}
	return []violation{{"b:untold-config-differs", fmt.Sprintf("answered %q while the work tree's configuration is not the one in force (%s), and its systemMessage does not say so: %q",
		a.Status, m.configDiff(f), a.SystemMessage)}}
}

// checkToldTrust checks that every answer of the agent session whose stop
// first saw the trusted configuration change (trust run after a stop made
// the verdict book) says so: the agent may have run trust itself. It
// updates what the model knows of the book.
func (m *model) checkToldTrust(call hookCall, a answer) []violation {
	if call.lost() || a.Status == stInvalid {
		return nil
	}
	if m.trustFresh {
		m.trustFresh, m.toldTrust, m.trustSession = false, true, call.Session
	}
	if slices.Contains(passing, a.Status) || a.Status == stFailed {
		m.booked = true
	}
	if !m.toldTrust || call.Session != m.trustSession ||
		strings.Contains(a.SystemMessage, "changed since an earlier stop") {
		return nil
	}
	return []violation{{"b:untold-trust-changed", fmt.Sprintf("answered %q in the session that saw the trusted configuration change, and its systemMessage does not say so: %q",
		a.Status, a.SystemMessage)}}
}

// configDiff names the .gauntlet/ files the work tree changed from the
// configuration in force.
func (m *model) configDiff(f facts) string {
	files, _ := m.hookFiles(f)
	work := gauntletOf(m.files)
	var out []string
	for _, p := range sortedKeys(files) {
		if c, ok := work[p]; !ok {
			out = append(out, p+" deleted")
		} else if c != files[p] {
			out = append(out, p+" changed")
		}
	}
	for _, p := range sortedKeys(work) {
		if _, ok := files[p]; !ok {
			out = append(out, p+" added")
		}
	}
	if len(out) == 0 {
		return "no record, no commit"
	}
	return strings.Join(out, ", ")
}

// runCall is one run, check, review, detect or clean command.
type runCall struct {
	Cmd         string
	Gate        string
	Commit      string
	Base        string
	Uncommitted bool
	// NoCache is --no-cache.
	NoCache bool
}

// args are the command line.
func (r runCall) args() []string {
	args := []string{r.Cmd}
	if r.Gate != "" {
		args = append(args, "-g", r.Gate)
	}
	if r.Base != "" {
		args = append(args, "-b", r.Base)
	}
	if r.Commit != "" {
		args = append(args, "-c", r.Commit)
	}
	if r.Uncommitted {
		args = append(args, "-u")
	}
	if r.NoCache {
		args = append(args, "--no-cache")
	}
	return args
}

// full reports a run of every gate on the whole change set.
func (r runCall) full() bool {
	return r.Cmd == "run" && r.Gate == "" && r.Commit == "" && r.Base == "" && !r.Uncommitted
}

// scoped reports whether the changes are the default ones (no -b, -c, -u):
// only then does the oracle know which gates apply.
func (r runCall) scoped() bool { return r.Commit == "" && r.Base == "" && !r.Uncommitted }

// selection is the gates the command runs.
func (r runCall) selection() selection {
	s := selection{scope: "all", gate: r.Gate}
	switch r.Cmd {
	case "check":
		s.scope = "checks"
	case "review":
		s.scope = "reviews"
	}
	return s
}

// cliStatus reads the status of a run, check or review from its output.
func cliStatus(stderr string) string {
	lines := strings.Split(stderr, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "Status: Passed":
			return stPassed
		case l == "Status: Passed with warnings":
			return stWarnings
		case l == "Status: Failed":
			return stFailed
		case l == "Status: Retry limit exceeded" || strings.HasPrefix(l, "Retry limit exceeded"):
			return stRetry
		case l == runner.LineNoApplicableGates:
			return stNoGates
		case l == runner.LineNoChanges:
			return stNoChanges
		case strings.Contains(l, "already in progress"):
			return stLock
		case strings.Contains(strings.ToLower(l), "interrupted"):
			return stInterrupted
		}
	}
	return stError
}

// checkRunStatus judges a run, check or review against the oracle
// (properties b and c, and d for a stale lock it refused).
func checkRunStatus(m *model, f facts, r runCall, status string, failed []string) []violation {
	var vs []violation
	sel := r.selection()
	g := m.workGates()
	if r.scoped() {
		if fails := m.failing(f, g, sel); len(fails) > 0 && slices.Contains(passing, status) && !hiddenChange(f) {
			vs = append(vs, violation{"b:" + r.Cmd + "-" + status + gateSuffix(fails) + m.shellTags(f, fails, false, true), fmt.Sprintf("%s ended %q while %s fail(s)", strings.Join(r.args(), " "), status, strings.Join(fails, ", "))})
		}
		if status == stFailed && len(m.mayFail(f, g, sel)) == 0 {
			vs = append(vs, violation{"c:" + r.Cmd + "-failed-nothing-fails" + gateSuffix(failed) + m.faultSuffix() + m.shellTags(f, failed, true, true), fmt.Sprintf("%s failed while no gate of it fails in the work tree (it reports %s)", strings.Join(r.args(), " "), strings.Join(failed, ", "))})
		}
	}
	if status == stRetry && r.Commit == "" && !m.budgetSpent(g) {
		vs = append(vs, violation{"b:retry_limit_exceeded" + m.resetSuffix(), fmt.Sprintf("%s ended retry_limit_exceeded after %d run(s) of this episode at most (max_retries %d; episode began %s; %d infrastructure error(s) not counted)", strings.Join(r.args(), " "), m.budget, g.MaxRetries, m.episodeStart(), m.infraRuns)})
	}
	if status == stLock && !m.lock.respected() {
		vs = append(vs, violation{"d:lock-refused", fmt.Sprintf("%s refused to run for a lock no live run holds (%q)", strings.Join(r.args(), " "), m.lock)})
	}
	return vs
}

// cachedRE matches a console line of a pass taken from the result cache.
var cachedRE = regexp.MustCompile(`(?m)^\[PASS\]\s+(\S+) \(cached, `)

// checkCachedPasses checks the passes a run took from the result cache
// (console is its console output): a cached pass is only ever taken for
// the exact input that passed, so it is never reported for a gate that
// fails in the work tree now (property b). Checks always run on the work
// tree; reviews are judged for the default change scope only (reviews
// true), the one whose diff the oracle knows.
func checkCachedPasses(m *model, f facts, g gates, console string, reviews bool) []violation {
	var vs []violation
	if m.configBroken() || hiddenChange(f) {
		return nil
	}
	jobs := map[string]job{}
	for _, j := range m.jobs(f, g) {
		jobs[j.ID] = j
	}
	for _, c := range cachedRE.FindAllStringSubmatch(console, -1) {
		j, ok := jobs[c[1]]
		if !ok || j.Verdict != fail || (j.Review && !reviews) {
			continue
		}
		vs = append(vs, violation{"b:cached-pass" + gateSuffix([]string{j.ID}) + m.shellTags(f, []string{j.ID}, false, true),
			fmt.Sprintf("%s was reported passed from the result cache, but it fails in the work tree", j.ID)})
	}
	return vs
}

// checkUserFiles compares the user's files with the disk (property a): tree
// is the repository outside .git/ and the log directory, logFiles reads a
// file of the log directory.
func checkUserFiles(m *model, tree map[string]string, readLog func(string) (string, bool)) []violation {
	var vs []violation
	for _, p := range sortedKeys(m.files) {
		got, ok := tree[p]
		switch {
		case !ok:
			vs = append(vs, violation{"a:user-file-gone", p + " was deleted or moved"})
		case got != m.files[p]:
			vs = append(vs, violation{"a:user-file-changed", fmt.Sprintf("%s changed: %q, want %q", p, got, m.files[p])})
		}
	}
	for _, p := range sortedKeys(tree) {
		if _, ok := m.files[p]; !ok {
			vs = append(vs, violation{"a:file-outside-log-dir", p + " appeared outside the log directory"})
		}
	}
	for _, p := range sortedKeys(m.logFiles) {
		got, ok := readLog(p)
		switch {
		case !ok:
			vs = append(vs, violation{"a:log-dir-user-file-gone", p + " (the user's, in the log directory) was deleted or moved"})
		case got != m.logFiles[p]:
			vs = append(vs, violation{"a:log-dir-user-file-changed", fmt.Sprintf("%s changed: %q", p, got)})
		}
	}
	return vs
}

// checkStoreLinks compares the person's directories that links planted
// in the gauntlet's store point to with what they held (property a):
// read lists one directory's regular files.
func checkStoreLinks(m *model, read func(dir string) (map[string]string, error)) []violation {
	var vs []violation
	for _, dir := range sortedKeys(m.storeLinks) {
		got, err := read(dir)
		if err != nil || !maps.Equal(got, m.storeLinks[dir]) {
			vs = append(vs, violation{"a:written-through-store-link", fmt.Sprintf("%s, which a link in .git/agent-gauntlet points to, now holds %v (%v), want %v", dir, sortedKeys(got), err, sortedKeys(m.storeLinks[dir]))})
		}
	}
	return vs
}

// checkGitState compares the user's git state (HEAD, refs, index, stash)
// before and after a command (property a).
func checkGitState(before, after string) []violation {
	if before == after {
		return nil
	}
	return []violation{{"a:git-state-changed", fmt.Sprintf("the user's git state changed:\n--- before\n%s\n--- after\n%s", before, after)}}
}

// checkLock judges the lock file after a command (property d): content is
// nil when there is none; ran says the command took the lock (it ran gates
// or cleaned).
func checkLock(m *model, content *string, ran bool) []violation {
	switch {
	case m.lock == lockNone && content != nil:
		return []violation{{"d:lock-left", fmt.Sprintf("lock file left after the command exited: %q", *content)}}
	case m.lock.respected() && content == nil:
		return []violation{{"d:respected-lock-removed", fmt.Sprintf("a %s lock that a live run may hold was removed", m.lock)}}
	case m.lock.respected() && *content != m.lockContent:
		return []violation{{"d:respected-lock-changed", fmt.Sprintf("a %s lock that a live run may hold was rewritten: %q", m.lock, *content)}}
	case m.lock.stale() && ran && content != nil:
		return []violation{{"d:lock-left", fmt.Sprintf("the %s lock was taken over but left behind: %q", m.lock, *content)}}
	}
	return nil
}

// checkState parses .execution_state (property e).
func checkState(data []byte, exists bool) []violation {
	if !exists {
		return nil
	}
	var st struct {
		LastRunCompletedAt string `json:"last_run_completed_at"`
		Branch             string `json:"branch"`
		Commit             string `json:"commit"`
		WorkingTreeRef     string `json:"working_tree_ref"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return []violation{{"e:state-unparseable", fmt.Sprintf(".execution_state: %v: %q", err, data)}}
	}
	if _, err := time.Parse(time.RFC3339, st.LastRunCompletedAt); err != nil {
		return []violation{{"e:state-unparseable", fmt.Sprintf(".execution_state last_run_completed_at: %v", err)}}
	}
	return nil
}

// checkNoDump reports a Go panic or goroutine dump in a command's output
// (property e).
func checkNoDump(what, out string) []violation {
	for _, bad := range []string{"panic:", "goroutine ", "runtime error", "SIGQUIT: quit"} {
		if strings.Contains(out, bad) {
			return []violation{{"e:go-dump", fmt.Sprintf("%s holds %q", what, bad)}}
		}
	}
	return nil
}

// checkReviewer reports calls the stand-in reviewer refused (property e).
func checkReviewer(errs []byte) []violation {
	if len(bytes.TrimSpace(errs)) == 0 {
		return nil
	}
	return []violation{{"e:reviewer-flags", string(errs)}}
}
