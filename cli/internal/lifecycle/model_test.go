//go:build unix

package lifecycle

import (
	"fmt"
	"sort"
	"strings"
)

// verdict is the oracle's answer for one gate in the work tree now.
type verdict int

const (
	// pass: the gate passes.
	pass verdict = iota
	// unsure: the target semantics leave it open (a skipped violation whose
	// line moved a little, a skip decision behind an explicit clean).
	unsure
	// fail: the gate fails.
	fail
)

// job is one gate of an expanded entry point.
type job struct {
	// ID is the gauntlet's job id: check:<entry>:<gate> or review:<entry>:<gate>.
	ID   string
	Gate string
	// Review is true for the review gate.
	Review bool
	// Applicable: a changed path (vs the merge base with main, untracked
	// included, excludes left out) lies in the entry point, which exists.
	Applicable bool
	Verdict    verdict
	// Marked: a check whose marker is in the work tree, failing when
	// judged without a baseline (see mayFail).
	Marked bool
}

// facts are what git says about the work tree, computed by the harness
// before the oracle judges a step.
type facts struct {
	Branch string
	Head   string
	// Changed holds the paths that differ from the merge base of main and
	// HEAD in the work tree, untracked files included (deleted ones too).
	Changed map[string]bool
	// Added holds, per file, the line numbers (in the work tree) the diff
	// from that merge base adds; every line of an untracked file.
	Added map[string]map[int]bool
	// HeadConfigBroken: the configuration committed at HEAD does not load.
	HeadConfigBroken bool
	// BaseMarked holds, per file of the merge base of main and HEAD, the
	// check markers it holds there: what a check's run on the base prints.
	BaseMarked map[string]map[string]bool
}

// brokenCheckFile is the check file a "config break" step breaks, and
// brokenLine what it appends: a field error.
const (
	brokenCheckFile = ".gauntlet/checks/test.yml"
	brokenLine      = "timeout: -5\n"
)

// configBroken reports whether the work tree's configuration fails to load.
func (m *model) configBroken() bool { return strings.Contains(m.files[brokenCheckFile], brokenLine) }

// configGate names the configuration when it is what fails.
const configGate = "the configuration"

// markers of the check gates: a gate fails when a file of its working
// directory holds its marker.
const (
	markLint   = "LINTFAIL"
	markTest   = "TESTFAIL"
	markDocs   = "DOCSFAIL"
	markSleep  = "SLEEPME"
	markReview = "REVIEWME-"
)

// skip is a review violation the agent marked skipped.
type skip struct {
	Branch, File, Token string
	Line                int
	// Cleans is the number of explicit cleans before the skip.
	Cleans int
}

// lockKind is what the model knows of the lock file.
type lockKind string

// Lock files a step can leave: none, respected ones (a live run could own
// them) and stale ones (no live run can: they must be taken over).
const (
	lockNone     lockKind = ""
	lockLive     lockKind = "live"      // ours, this host, a live pid
	lockForeign  lockKind = "foreign"   // another host, recent
	lockEmpty    lockKind = "empty"     // empty file, recent
	lockTS       lockKind = "ts"        // the TypeScript tool's plain pid, recent
	lockDead     lockKind = "dead"      // ours, this host, a dead pid
	lockOld      lockKind = "old"       // another host, two days old
	lockOldEmpty lockKind = "old-empty" // empty, two days old
	lockKilled   lockKind = "killed"    // left by a run killed with SIGKILL
)

// respected reports whether a live run may hold the lock: lock_exists is
// then a legitimate answer and the file must stay as it is.
func (k lockKind) respected() bool {
	return k == lockLive || k == lockForeign || k == lockEmpty || k == lockTS
}

// name is the kind for messages ("none" when there is no lock).
func (k lockKind) name() string {
	if k == lockNone {
		return "none"
	}
	return string(k)
}

// stale reports whether no live run can hold the lock.
func (k lockKind) stale() bool {
	return k == lockDead || k == lockOld || k == lockOldEmpty || k == lockKilled
}

// model is the oracle's view of the world: the user's files, git, and the
// lifecycle counters that say when an approve or a block is legitimate.
// Counters err on the lenient side: a property is reported only when the
// target semantics leave no doubt.
type model struct {
	cfg projectConfig
	// files are the user's files outside the log directory (the whole
	// repository but .git/ and the log directory).
	files map[string]string
	// logFiles are files the user put inside the log directory.
	logFiles map[string]string
	branch   string
	branches []string
	// session is the current agent session id; sessions counts them.
	session  string
	sessions int
	// credit: the last hook answer of this session was a block, so the next
	// stop with the loop flag may be approved as stop_hook_active.
	credit map[string]bool
	// budget is an upper bound of the work-tree runs of this episode.
	budget int
	// limitHit: the episode ended with retry_limit_exceeded, at limitHead in
	// limitSession ("" when a CLI run hit it).
	limitHit     bool
	limitHead    string
	limitSession string
	// reset is what began this episode ("" for the sequence's start).
	reset string
	// fullPass: a full run passed since the last clean (the interval may
	// run); failedSince: a work-tree run failed after it.
	fullPass    bool
	failedSince bool
	skips       []skip
	cleans      int
	lock        lockKind
	lockContent string
}

// newModel is the model of a fresh sandbox.
func newModel(cfg projectConfig, files map[string]string) *model {
	return &model{cfg: cfg, files: files, logFiles: map[string]string{}, branch: "work",
		branches: []string{"main", "work"}, session: sessionID(1), sessions: 1, credit: map[string]bool{}}
}

// sessionID is the n-th session id, shaped like Claude Code's.
func sessionID(n int) string { return fmt.Sprintf("0d46d0c0-7415-46af-ae96-%012d", n) }

// budgetSpent reports whether a retry_limit_exceeded from a run that ends
// now is legitimate: with this run counted, max_retries+1 runs of the
// episode have run.
func (m *model) budgetSpent() bool { return m.budget+1 >= m.cfg.MaxRetries+1 }

// intervalLegit reports whether interval_not_elapsed is legitimate: an
// interval is set, a full run passed since the last clean and no work-tree
// run failed after it (the sequences last far less than the interval).
func (m *model) intervalLegit() bool { return m.cfg.Interval > 0 && m.fullPass && !m.failedSince }

// Causes of a fresh retry budget.
const (
	resetPass     = "passed"
	resetWarnings = "passed_with_warnings"
	resetClean    = "clean"
	resetBranch   = "branch-change"
	resetCommit   = "new-commit"
	resetSession  = "new-session"
)

// resetEpisode starts a fresh retry budget for cause.
func (m *model) resetEpisode(cause string) {
	m.budget, m.limitHit, m.limitHead, m.limitSession, m.reset = 0, false, "", "", cause
}

// resetSuffix names, in a signature, the cause of the episode's fresh
// budget when it is one a retry limit may wrongly survive.
func (m *model) resetSuffix() string {
	switch m.reset {
	case resetWarnings, resetCommit, resetSession, resetBranch:
		return "-after-" + m.reset
	}
	return ""
}

// episodeStart says what began the episode, for messages.
func (m *model) episodeStart() string {
	if m.reset == "" {
		return "with the sequence"
	}
	return "with " + m.reset
}

// under lists the model's files below dir, sorted.
func (m *model) under(dir string) []string {
	var out []string
	for _, p := range sortedKeys(m.files) {
		if strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	return out
}

// anyHolds reports whether a file of files holds marker.
func (m *model) anyHolds(files []string, marker string) bool {
	for _, f := range files {
		if strings.Contains(m.files[f], marker) {
			return true
		}
	}
	return false
}

// changedUnder reports whether a changed path lies below dir (not below
// exclude, when set).
func changedUnder(f facts, dir, exclude string) bool {
	for p := range f.Changed {
		if strings.HasPrefix(p, dir+"/") && (exclude == "" || !strings.HasPrefix(p, exclude+"/")) {
			return true
		}
	}
	return false
}

// subdirs lists the sub-directories of parent holding a file, sorted.
func (m *model) subdirs(parent string) []string {
	seen := map[string]bool{}
	for _, p := range m.under(parent) {
		rest := strings.TrimPrefix(p, parent+"/")
		if d, _, ok := strings.Cut(rest, "/"); ok {
			seen[d] = true
		}
	}
	out := sortedKeys(seen)
	sort.Strings(out)
	return out
}

// jobs lists every gate of every entry point that exists in the work tree,
// whether it applies to the changes and what it answers: the configuration
// of projectConfig.configYAML.
func (m *model) jobs(f facts) []job {
	var out []job
	checkVerdict := func(files []string, marker string) verdict {
		if !m.anyHolds(files, marker) {
			return pass
		}
		if !m.cfg.Baseline {
			return fail
		}
		// With a baseline, the failure blocks when one of its error lines
		// (a file holding the marker) is not printed on the merge base;
		// otherwise it is pre-existing and passes.
		for _, p := range files {
			if strings.Contains(m.files[p], marker) && !f.BaseMarked[p][marker] {
				return fail
			}
		}
		return pass
	}
	check := func(id, gate string, applicable bool, files []string, marker string) job {
		return job{ID: id, Gate: gate, Applicable: applicable, Verdict: checkVerdict(files, marker), Marked: m.anyHolds(files, marker)}
	}
	if src := m.under("src"); len(src) > 0 {
		app := changedUnder(f, "src", "src/vendor")
		out = append(out, check("check:src:lint", "lint", app, src, markLint),
			job{ID: "review:src:quality", Gate: "quality", Review: true, Applicable: app, Verdict: m.reviewVerdict(f, src)})
	}
	for _, wc := range []struct{ parent, gate, marker string }{{"lib", "test", markTest}, {"pkg", "lint", markLint}} {
		for _, d := range m.subdirs(wc.parent) {
			dir := wc.parent + "/" + d
			out = append(out, check("check:"+dir+":"+wc.gate, wc.gate, changedUnder(f, dir, ""), m.under(dir), wc.marker))
		}
	}
	if _, ok := m.files["docs/guide.md"]; ok {
		out = append(out, check("check:docs/guide.md:docs", "docs", f.Changed["docs/guide.md"], []string{"docs/guide.md"}, markDocs))
	}
	if pa := m.under("pkg_a"); len(pa) > 0 {
		out = append(out, check("check:pkg_a:lint", "lint", changedUnder(f, "pkg_a", ""), pa, markLint))
	}
	return out
}

// reviewVerdict judges the review gate of src: a REVIEWME marker on a line
// the change adds fails it, unless the agent skipped that violation on this
// branch (same file and marker, the line moved by at most one).
func (m *model) reviewVerdict(f facts, files []string) verdict {
	v := pass
	for _, file := range files {
		if strings.HasPrefix(file, "src/vendor/") {
			continue
		}
		for i, line := range strings.Split(m.files[file], "\n") {
			for _, tok := range markerRE.FindAllString(line, -1) {
				switch m.skipState(file, tok, i+1) {
				case pass:
				case unsure:
					v = max(v, unsure)
				default:
					if f.Added[file][i+1] {
						return fail
					}
					v = max(v, unsure)
				}
			}
		}
	}
	return v
}

// skipState says whether the violation of marker tok at file:line is
// skipped (pass), surely not skipped (fail), or unsure: skipped on another
// branch, before an explicit clean, or at a line a little further away.
func (m *model) skipState(file, tok string, line int) verdict {
	st := fail
	for _, s := range m.skips {
		if s.File != file || s.Token != tok {
			continue
		}
		d := abs(s.Line - line)
		if s.Branch == m.branch && d <= 1 && s.Cleans == m.cleans {
			return pass
		}
		if d <= 5 {
			st = unsure
		}
	}
	return st
}

// selection narrows the jobs to a command's scope: "all", "checks" or
// "reviews", and one gate name ("" for all).
type selection struct {
	scope string
	gate  string
}

func (s selection) has(j job) bool {
	if s.scope == "checks" && j.Review || s.scope == "reviews" && !j.Review {
		return false
	}
	return s.gate == "" || s.gate == j.Gate
}

// failing lists the applicable jobs of sel that surely fail. A
// configuration broken in the work tree while HEAD's loads fails (the change
// broke it); broken at HEAD too, it is the user's: nothing fails.
func (m *model) failing(f facts, sel selection) []string {
	if m.configBroken() {
		if f.HeadConfigBroken {
			return nil
		}
		return []string{configGate}
	}
	var out []string
	for _, j := range m.jobs(f) {
		if sel.has(j) && j.Applicable && j.Verdict == fail {
			out = append(out, j.ID)
		}
	}
	return out
}

// mayFail lists the jobs of sel, applicable or not, that fail or may fail:
// a block for one of them is something the agent can fix. On the base
// branch itself a verification run judges a failure against the base of
// the run it verifies (docs/baselines.md), not against the
// merge base, which work committed onto main since has moved to HEAD: a
// failure the agent committed there is not pre-existing to it. The model
// does not keep that base, so on main a marked check may fail.
func (m *model) mayFail(f facts, sel selection) []string {
	if m.configBroken() {
		return []string{configGate}
	}
	onBase := m.cfg.Baseline && f.Branch == "main"
	var out []string
	for _, j := range m.jobs(f) {
		if sel.has(j) && (j.Verdict != pass || onBase && j.Marked) {
			out = append(out, j.ID)
		}
	}
	return out
}
