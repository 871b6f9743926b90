//go:build unix

package lifecycle

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// verdict is the oracle's answer for one gate in the work tree now.
type verdict int

const (
	// pass: the gate passes.
	pass verdict = iota
	// unsure: the target semantics leave it open (a skipped violation whose
	// line moved a little, a skip decision behind an explicit clean, a
	// finding the diff may or may not count as on a changed line).
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
	// MaybeApplicable: Applicable, or a path lies in it that changed since
	// the episode's base (main as a person last left it) or that a run may
	// or may not count as changed (a line-ending rewrite, a nested
	// repository's files).
	MaybeApplicable bool
	// Verdict is the gate's answer judged against the merge base with
	// main; EpisodeVerdict against the merge base with main as a person
	// last left it (they differ when the agent moved main, or committed
	// onto it).
	Verdict, EpisodeVerdict verdict
	// Marked: a check whose marker is in the work tree, failing when
	// judged without a baseline (see mayFail).
	Marked bool
}

// facts are what git and the disk say about the work tree, computed by the
// harness before the oracle judges a step. Changes are judged from the
// bytes on disk, whatever index flags and attributes say.
type facts struct {
	Branch string
	// Head is HEAD's commit, "" while the branch is unborn.
	Head string
	// Changed holds the paths whose bytes differ from the merge base of
	// main and HEAD (untracked and deleted files included); Maybe holds
	// them and the paths that differ only in line endings, that lie in a
	// nested repository, or that differ from the episode's base.
	Changed, Maybe map[string]bool
	// MaybeWhy says why a path of Maybe is not in Changed: "crlf",
	// "nested" or "episode".
	MaybeWhy map[string]string
	// Base and EpisodeBase are the files of the merge base of main and
	// HEAD, and of main as a person last left it and HEAD (nil: no commit).
	Base, EpisodeBase map[string]string
	// HeadConfigBroken: the configuration committed at HEAD does not load.
	HeadConfigBroken bool
	// HeadGauntlet are the .gauntlet/ files committed at HEAD.
	HeadGauntlet map[string]string
	// Ignored are the untracked files git ignores, listed once the agent
	// wrote an ignore rule (model.hid).
	Ignored map[string]bool
}

// brokenCheckFile is the check file a "config break" step breaks, and
// brokenLine what it appends: a field error.
const (
	brokenCheckFile = ".gauntlet/checks/test.yml"
	brokenLine      = "timeout: -5\n"
)

// configBroken reports whether the work tree's configuration fails to load.
func (m *model) configBroken() bool {
	// A check file without a config.yml beside it is no configuration.
	_, configured := m.files[gauntletDir+"/config.yml"]
	return configured && strings.Contains(m.files[brokenCheckFile], brokenLine)
}

// noProject reports whether nothing makes the sandbox a gauntlet project:
// no config.yml in the work tree, no record, and none committed at HEAD
// (or no commit yet). Every command then answers that no
// .gauntlet/config.yml is found, and clean and detect refuse (exit 2).
func (m *model) noProject(f facts) bool {
	_, configured := m.files[gauntletDir+"/config.yml"]
	_, committed := f.HeadGauntlet[gauntletDir+"/config.yml"]
	return !configured && m.trust == trustHead && !committed
}

// configGate names the configuration when it is what fails.
const configGate = "the configuration"

// markers of the check gates: a gate fails when a file of its working
// directory holds its marker (the structured gates: see gateScripts).
const (
	markLint   = "LINTFAIL"
	markTest   = "TESTFAIL"
	markDocs   = "DOCSFAIL"
	markSleep  = "SLEEPME"
	markReview = "REVIEWME-"
	markVet    = "VETFAIL-"
	markUnit   = "UTFAIL-"
	markJUnit  = "JFAIL-"
)

// skip is a review violation the agent marked skipped.
type skip struct {
	Branch, File, Token string
	Line                int
	// Cleans is the number of explicit cleans before the skip.
	Cleans int
	// ID is the id of the entry the agent marked ("" in the TypeScript
	// tool's format).
	ID string
}

// markedBy says whether the review entry mark (a violation marked
// skipped, read from a review file) holds the mark of s: the entry's id
// names it, or, without ids, its file, line and marker.
func (s skip) markedBy(mark skip) bool {
	if s.ID != "" && mark.ID != "" {
		return s.ID == mark.ID
	}
	return s.File == mark.File && s.Line == mark.Line && s.Token == mark.Token
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
	lockReused   lockKind = "reused"    // ours, this host, a pid now of a process started after the lock
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
	return k == lockDead || k == lockReused || k == lockOld || k == lockOldEmpty || k == lockKilled
}

// trustState is how the oracle knows the configuration the stop hook must
// run.
type trustState int

const (
	// trustRecord: a record holds model.trusted.
	trustRecord trustState = iota
	// trustHead: no record yet; the first stop hook records the
	// configuration committed at HEAD (until HEAD exists, the work tree's
	// runs, and the hook says it is not trusted).
	trustHead
	// trustUnknown: the configuration at HEAD did not load when the record
	// was due; what the hook runs is left open.
	trustUnknown
)

// model is the oracle's view of the world: the user's files, git, and the
// lifecycle counters that say when an approve or a block is legitimate.
// Counters err on the lenient side: a property is reported only when the
// target semantics leave no doubt.
type model struct {
	cfg projectConfig
	// files are the user's files outside the log directory (the whole
	// repository but .git/ and the log directory), .gauntlet/ included.
	files map[string]string
	// logFiles are files the user put inside the log directory.
	logFiles map[string]string
	// storeLinks are the person's directories outside the project that a
	// link planted in the gauntlet's store (.git/agent-gauntlet) points
	// to, by directory, with the files each holds: nothing may be written
	// through the link. While one is planted, a refusal (an error the
	// stop tells) is legitimate.
	storeLinks map[string]map[string]string
	branch     string
	branches   []string
	// unborn: no commit yet.
	unborn bool
	// session is the current agent session id; sessions counts them.
	session  string
	sessions int
	// credit: the last hook answer of this session was a block, so the next
	// stop with the loop flag may be approved as stop_hook_active.
	credit map[string]bool
	// configCredit: that block was the work tree's configuration's, which
	// did not load (no gate ran): the one block a stop may be let go
	// after, or (a configuration trusted) the trusted gates run instead.
	configCredit map[string]bool
	// budget is an upper bound of the work-tree runs of this episode that
	// count against the retry limit; infraRuns counts the runs of this
	// episode answered infrastructure_error, which do not.
	budget    int
	infraRuns int
	// spent is, per agent session ("" for runs by hand), an upper bound of
	// its own runs of this episode that count against its own retry
	// budget; limits is, per session, HEAD where it reached its limit: a
	// stop is at the retry limit only when its own session spent its
	// budget, whatever other sessions did.
	spent  map[string]int
	limits map[string]string
	// limitHit: the episode ended with retry_limit_exceeded, at limitHead in
	// limitSession ("" when a CLI run hit it).
	limitHit     bool
	limitHead    string
	limitSession string
	// reset is what began this episode ("" for the sequence's start).
	reset string
	// fullPass: a full run of the gates in force passed since the last
	// clean (the interval may run); failedSince: a work-tree run failed
	// after it.
	fullPass    bool
	failedSince bool
	// ran: a command took the lock to run gates (the gauntlet has records
	// of its own); forgedState: before that, the agent wrote an
	// .execution_state with only the TypeScript tool's fields, dated now
	// (the interval then runs from it).
	ran         bool
	forgedState bool
	// runBranch is the branch of the last run that took the lock ("" before
	// any): a run on another branch archives the pending failures.
	runBranch string
	skips     []skip
	// skipsRead counts the skips a command of the binary could read
	// (those marked before it started): removing the review files drops
	// the others, which the gauntlet never saw.
	skipsRead   int
	cleans      int
	lock        lockKind
	lockContent string
	// trust and trusted: the configuration the stop hook must run.
	trust   trustState
	trusted map[string]string
	// booked: a stop's run has made the verdict book, which keeps the
	// trusted configuration each stop ran with; trustFresh: trust ran
	// since the last stop that saw the book; trustSession: the session of
	// the stop that first saw it, every answer of which must say so
	// (toldTrust: "" before any).
	booked       bool
	trustFresh   bool
	trustSession string
	toldTrust    bool
	// globalDisabled: the global configuration sets stop_hook.enabled
	// false.
	globalDisabled bool
	// fault is the reviewer's fault ("" when it works); spelling how it
	// spells the paths it reports ("" as the diff does).
	fault    string
	spelling string
	// mainMark is main as a person last left it (the sequence's start, a
	// merge): the episode's base, which the agent's own commits onto main
	// and its moves of the ref do not change ("" before any commit).
	mainMark string
	// unbornPass are the files of a pass on main before its first commit
	// (notePassMarked), nil for none; unbornTree a commit of no parent
	// holding that tree (the harness makes it). markTree, when set, is
	// that commit once the first commit recorded another tree: main's
	// verified point is the tree the pass judged, no commit of main, and
	// the episode's base is its files (facts).
	unbornPass           map[string]string
	unbornTree, markTree string
	// pointTold is the commit whose "commits of main up to HEAD" notice a
	// stop first told, "" for none: every later answer of a stop that ran
	// repeats it (an earlier notice), whichever session's stop told it
	// first (checkToldPoint).
	pointTold string
	// refMoved: the agent moved main since.
	refMoved bool
	// anchored: a person's trust record names a start point, start (""
	// for git's empty tree, the start of a record made before the first
	// commit): a stop whose base branch holds HEAD, with no point of its
	// branch seen to pass, judges the work since it (docs/trust.md, "Where
	// the work starts"); an adoption from HEAD anchors nothing.
	// stoppedWithRecord: a stop ran with the record in force, so a
	// re-trust moves the start point to HEAD (else it keeps it).
	anchored          bool
	start             string
	stoppedWithRecord bool
	// pending holds the jobs whose last work-tree run failed or was in
	// error; archived those a run's start archived (a branch change).
	pending  map[string]bool
	archived map[string]bool
	// nested are the directories holding a repository of their own.
	nested []string
	// What the agent's shell did that a signature names when it bears on
	// the gates a violation is about: index flags set on paths (flagged),
	// attribute patterns (attrs), files rewritten with CRLF line endings
	// (crlfed), and the kinds of log-directory files forged since the last
	// run that took the lock (forged: "review", "state", "log").
	flagged map[string]bool
	attrs   []string
	crlfed  map[string]bool
	forged  map[string]bool
	// hid is set once the agent's shell wrote an ignore rule (see
	// harness.ignore): the facts then list the files git ignores.
	hid bool
}

// newModel is the model of a fresh sandbox.
func newModel(cfg projectConfig, files map[string]string) *model {
	m := &model{cfg: cfg, files: files, logFiles: map[string]string{}, storeLinks: map[string]map[string]string{}, branch: "work",
		branches: []string{"main", "work"}, session: sessionID(1), sessions: 1, credit: map[string]bool{}, configCredit: map[string]bool{},
		spent: map[string]int{}, limits: map[string]string{}, pending: map[string]bool{}, trusted: gauntletOf(files), flagged: map[string]bool{}, crlfed: map[string]bool{}, forged: map[string]bool{}}
	if !cfg.Trusted {
		m.trust = trustHead
	}
	m.anchored = cfg.Trusted
	if cfg.NoCommits {
		m.branch, m.branches, m.unborn = "main", []string{"main"}, true
	}
	return m
}

// sessionID is the n-th session id, shaped like Claude Code's.
func sessionID(n int) string { return fmt.Sprintf("0d46d0c0-7415-46af-ae96-%012d", n) }

// workGates are the knobs of the work tree's configuration: what run,
// check and review by hand enforce.
func (m *model) workGates() gates { return readGates(m.files) }

// hookFiles are the .gauntlet/ files the stop hook must run, and whether
// the oracle knows them: the trusted record's; with no record yet, those
// committed at HEAD (the hook records them), or while there is no commit
// the work tree's.
func (m *model) hookFiles(f facts) (map[string]string, bool) {
	switch {
	case m.trust == trustRecord:
		return m.trusted, true
	case m.trust == trustHead && f.Head == "":
		return gauntletOf(m.files), true
	case m.trust == trustHead && headLoads(f):
		return f.HeadGauntlet, true
	}
	return gauntletOf(m.files), false
}

// headLoads reports whether the configuration committed at HEAD exists
// and loads.
func headLoads(f facts) bool {
	_, ok := f.HeadGauntlet[gauntletDir+"/config.yml"]
	return ok && !f.HeadConfigBroken
}

// hookGates are the knobs of the configuration the stop hook must run.
func (m *model) hookGates(f facts) gates {
	files, _ := m.hookFiles(f)
	return readGates(files)
}

// configDiffers reports whether the work tree's configuration is not the
// one the stop hook must run (the hook must say so): it differs from the
// trusted one, or no record exists and there is no commit to trust.
func (m *model) configDiffers(f facts) bool {
	files, known := m.hookFiles(f)
	switch {
	case !known:
		return false
	case m.trust == trustHead && f.Head == "":
		return true
	}
	return !sameGauntlet(files, gauntletOf(m.files))
}

// handUntrusted reports whether a run by hand judges with a configuration
// that is not the trusted one and so writes none of the gauntlet's records
// (runner Options.Untrusted): it differs from the trusted one, unless
// nobody trusted any (no record and no commit: such a run records its
// verdicts, see cli/cmd_trust.go handTrust).
func (m *model) handUntrusted(f facts) bool {
	return m.configDiffers(f) && !(m.trust == trustHead && f.Head == "")
}

// storeReplaced reports whether the gauntlet's store itself is a link to a
// person's directory (storelink .): no record can be written there, so a
// stop adopts HEAD's configuration for itself and records nothing.
func (m *model) storeReplaced() bool {
	for dir := range m.storeLinks {
		if strings.HasSuffix(dir, "/store-_") {
			return true
		}
	}
	return false
}

// recordTrust is what the stop hook's start does to the trusted record:
// with none yet, it records the configuration committed at HEAD. With no
// config.yml committed at HEAD there is nothing to record: the sandbox
// stays without a record (no project, when the work tree has none either:
// noProject).
func (m *model) recordTrust(f facts) {
	if _, committed := f.HeadGauntlet[gauntletDir+"/config.yml"]; m.trust != trustHead || f.Head == "" || !committed {
		return
	}
	if !headLoads(f) {
		m.trust = trustUnknown
		return
	}
	m.trust, m.trusted = trustRecord, f.HeadGauntlet
}

// personTrusts is a person's trust recording the configuration in force
// anew with HEAD at head ("" before the first commit): the start point
// moves to head unless a record a person made before names another and
// no stop ran with it (the commits between were judged by no stop).
func (m *model) personTrusts(head string) {
	if !m.anchored || m.stoppedWithRecord || m.trust != trustRecord {
		m.start = head
	}
	m.anchored, m.stoppedWithRecord = true, false
}

// movedBase is the base a move of main before any run leaves the
// episode with: a person's start point, else main as moved (nothing
// records where the work began).
func (m *model) movedBase(moved string) string {
	if m.anchored {
		return m.start
	}
	return moved
}

// weakened tags signatures about a stop hook that answered status when
// the work tree's configuration enforces less than the one in force in a
// way that leads to that answer ("" when it does not).
func (m *model) weakened(f facts, status string) string {
	files, known := m.hookFiles(f)
	if !known {
		return ""
	}
	w := m.workGates().weakerThan(readGates(files))
	leads := map[string][]string{
		"disabled": {stDisabled}, "retries": {stRetry}, "interval": {stInterval}, "continue": {stActive},
		"command": passing, "local": passing, "dropped": passing,
	}
	if w == "deleted" || slices.Contains(leads[w], status) {
		return "-weakened-" + w
	}
	return ""
}

// budgetSpent reports whether a retry_limit_exceeded from a run that ends
// now is legitimate: with this run counted, max_retries+1 runs of the
// episode have run (max_retries of the configuration g in force).
func (m *model) budgetSpent(g gates) bool { return m.budget+1 >= g.MaxRetries+1 }

// sessionSpent reports whether a stop of session answered
// retry_limit_exceeded is legitimate: with this stop counted, its own
// session's stops ran max_retries+1 times in the episode.
func (m *model) sessionSpent(session string, g gates) bool {
	return m.spent[session]+1 >= g.MaxRetries+1
}

// intervalLegit reports whether interval_not_elapsed is legitimate under
// the configuration g in force: an interval is set, and a full run passed
// since the last clean with no work-tree run failed after it (the
// sequences last far less than the interval), or, before the gauntlet ran
// at all, an .execution_state of the TypeScript tool says a run just
// completed.
func (m *model) intervalLegit(g gates) bool {
	return g.Interval > 0 && (m.fullPass && !m.failedSince || m.forgedState && !m.ran)
}

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
	m.budget, m.infraRuns, m.limitHit, m.limitHead, m.limitSession, m.reset = 0, 0, false, "", "", cause
	if cause != resetCommit && cause != resetSession {
		// A new commit renews only the budget of a session at its limit
		// (begin), another session renews none.
		clear(m.spent)
		clear(m.limits)
	}
}

// resetSuffix names, in a signature, the cause of the episode's fresh
// budget when it is one a retry limit may wrongly survive, and the
// infrastructure errors that must not have counted.
func (m *model) resetSuffix() string {
	s := ""
	switch m.reset {
	case resetWarnings, resetCommit, resetSession, resetBranch:
		s = "-after-" + m.reset
	}
	if m.infraRuns > 0 {
		s += "-after-infra"
	}
	return s
}

// episodeStart says what began the episode, for messages.
func (m *model) episodeStart() string {
	if m.reset == "" {
		return "with the sequence"
	}
	return "with " + m.reset
}

// under lists the model's files below dir, sorted, leaving out the
// insides of nested repositories' .git directories.
func (m *model) under(dir string) []string {
	var out []string
	for _, p := range sortedKeys(m.files) {
		if strings.HasPrefix(p, dir+"/") && !strings.Contains(p, "/.git/") {
			out = append(out, p)
		}
	}
	return out
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

// entry is one expanded entry point: which changed paths make it apply
// (scope), which files its checks see (dir, or files for a file entry
// point), which files its review reads (reviewed).
type entry struct {
	path     string
	key      string
	scope    func(p string) bool
	files    []string
	checks   []string
	reviewed func(p string) bool
}

// globMatch reports whether p matches the glob entry point of cfg.
func (c projectConfig) globMatch(p string) bool {
	if !strings.HasPrefix(p, "web/") || strings.HasPrefix(p, "web/gen/") {
		return false
	}
	return strings.HasSuffix(p, ".ts") || c.Brace && strings.HasSuffix(p, ".tsx")
}

// entries lists the expanded entry points that exist in the work tree
// (projectConfig.configYAML's).
func (m *model) entries() []entry {
	under := func(dir string) func(string) bool {
		return func(p string) bool { return strings.HasPrefix(p, dir+"/") }
	}
	var out []entry
	if src := m.under("src"); len(src) > 0 {
		out = append(out, entry{path: "src", key: "src", checks: []string{"lint"}, files: src,
			scope:    func(p string) bool { return under("src")(p) && !under("src/vendor")(p) },
			reviewed: func(p string) bool { return under("src")(p) && !under("src/vendor")(p) }})
	}
	for _, wc := range []struct{ parent, gate string }{{"lib", "test"}, {"pkg", "lint"}} {
		for _, d := range m.subdirs(wc.parent) {
			dir := wc.parent + "/" + d
			out = append(out, entry{path: dir, key: wc.parent, checks: []string{wc.gate}, files: m.under(dir), scope: under(dir)})
		}
	}
	if _, ok := m.files["docs/guide.md"]; ok {
		out = append(out, entry{path: "docs/guide.md", key: "docs", checks: []string{"docs"}, files: []string{"docs/guide.md"},
			scope: func(p string) bool { return p == "docs/guide.md" }})
	}
	for _, e := range []struct{ dir, gate string }{{"pkg_a", "lint"}, {longDir, "lint"}, {"vet", "vet"}, {"ut", "unit"}, {"jt", "junit"}} {
		if files := m.under(e.dir); len(files) > 0 {
			out = append(out, entry{path: e.dir, key: e.dir, checks: []string{e.gate}, files: files, scope: under(e.dir)})
		}
	}
	if web := m.under("web"); len(web) > 0 {
		out = append(out, entry{path: m.cfg.globPath(), key: "web", checks: []string{"lint"}, files: web,
			scope: m.cfg.globMatch, reviewed: m.cfg.globMatch})
	}
	return out
}

// markers are the check gates' markers.
var markers = map[string]string{"lint": markLint, "test": markTest, "docs": markDocs, "vet": markVet, "unit": markUnit, "junit": markJUnit}

// jobs lists every gate of every entry point that exists in the work tree
// under the configuration g: whether it applies to the changes and what it
// answers.
func (m *model) jobs(f facts, g gates) []job {
	if !g.Present {
		return nil
	}
	var out []job
	for _, e := range m.entries() {
		app, maybe := false, false
		for p := range f.Maybe {
			if e.scope(p) {
				maybe = true
				app = app || f.Changed[p]
			}
		}
		for _, gate := range e.checks {
			if !g.has(e.key, gate) {
				continue
			}
			j := job{ID: "check:" + e.path + ":" + gate, Gate: gate, Applicable: app, MaybeApplicable: maybe,
				Marked: m.anyHolds(e.files, markers[gate])}
			if !g.passes(gate) {
				j.Verdict = m.checkVerdict(gate, e.files, f.Base, g.Baseline)
				j.EpisodeVerdict = m.checkVerdict(gate, e.files, f.EpisodeBase, g.Baseline)
			}
			out = append(out, j)
		}
		if e.reviewed != nil && g.has(e.key, "quality") {
			out = append(out, job{ID: "review:" + e.path + ":quality", Gate: "quality", Review: true, Applicable: app, MaybeApplicable: maybe,
				Verdict: m.reviewVerdict(e, f.Base), EpisodeVerdict: m.reviewVerdict(e, f.EpisodeBase)})
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

// checkVerdict judges check gate gate over files against the base's files
// (with a baseline, a failure the base has too passes).
func (m *model) checkVerdict(gate string, files []string, base map[string]string, baseline bool) verdict {
	marker := markers[gate]
	if !m.anyHolds(files, marker) {
		return pass
	}
	if !baseline {
		return fail
	}
	switch gate {
	case "vet":
		return m.diagnosticVerdict(files, base)
	case "unit", "junit":
		// A failing test is new unless the same test fails on the base.
		for tok := range tokens(m.files, files, marker) {
			if !tokens(base, files, marker)[tok] {
				return fail
			}
		}
		return pass
	}
	// Text: one error line per file holding the marker, naming the file's
	// line 1 wherever the marker stands: a place (docs/baselines.md). New
	// when the base's file does not print it, or when that line reads
	// otherwise than the base's did (blanks dropped): the base's finding
	// flagged a line the change rewrote, the work tree's flags another.
	for _, p := range files {
		if !strings.Contains(m.files[p], marker) {
			continue
		}
		if !strings.Contains(base[p], marker) || firstLine(m.files[p]) != firstLine(base[p]) {
			return fail
		}
	}
	return pass
}

// firstLine is the first line of content, blanks dropped: what a finding
// at its line 1 is known by when the diff moved or rewrote it.
func firstLine(content string) string {
	l, _, _ := strings.Cut(content, "\n")
	return strings.Join(strings.Fields(l), "")
}

// diagnosticVerdict judges go vet-like findings (one per line holding a
// VETFAIL-<n>, known by file and marker) against the base: more of one in
// a file than the base has is new, whatever diff placed the lines; as many
// or fewer, in a file that changed, may sit on a line the diff counts as
// changed (unsure); in an unchanged file they are the base's.
func (m *model) diagnosticVerdict(files []string, base map[string]string) verdict {
	v := pass
	for _, p := range files {
		work := lineCounts(m.files[p], markVet)
		if len(work) == 0 {
			continue
		}
		old := lineCounts(base[p], markVet)
		for tok, n := range work {
			if n > old[tok] {
				return fail
			}
		}
		if m.files[p] != base[p] {
			v = unsure
		}
	}
	return v
}

// tokens lists the markers "<prefix><n>" that files hold in contents.
func tokens(contents map[string]string, files []string, prefix string) map[string]bool {
	out := map[string]bool{}
	for _, p := range files {
		for tok := range lineCounts(contents[p], prefix) {
			out[tok] = true
		}
	}
	return out
}

// lineCounts counts, per marker "<prefix><n>", the lines of content that
// hold it.
func lineCounts(content, prefix string) map[string]int {
	out := map[string]int{}
	for _, l := range strings.Split(content, "\n") {
		if i := strings.Index(l, prefix); i >= 0 {
			j := i + len(prefix)
			for j < len(l) && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			out[l[i:j]]++
		}
	}
	return out
}

// reviewVerdict judges the review gate of entry point e against the base's
// files: a REVIEWME marker fails it when the work tree has more lines
// holding it in a file than the base has (the diff adds at least that many,
// however it places them) and they are more than the lines the agent
// skipped (same file and marker on this branch, the line moved by at most
// one); any other marker not surely skipped is unsure (a verification run
// re-reports an earlier violation still there).
func (m *model) reviewVerdict(e entry, base map[string]string) verdict {
	v := pass
	for _, file := range e.files {
		if !e.reviewed(file) {
			continue
		}
		lines := strings.Split(m.files[file], "\n")
		old := map[string]int{}
		for _, l := range strings.Split(base[file], "\n") {
			for _, tok := range markerRE.FindAllString(l, -1) {
				old[tok]++
			}
		}
		count, open := map[string]int{}, map[string]int{}
		used := map[int]bool{}
		for i, line := range lines {
			for _, tok := range markerRE.FindAllString(line, -1) {
				count[tok]++
				switch m.skipState(file, tok, i+1, used) {
				case pass:
				case unsure:
					v = max(v, unsure)
				default:
					open[tok]++
					v = max(v, unsure)
				}
			}
		}
		for tok, n := range count {
			if added := n - old[tok]; added > 0 && added > n-open[tok] {
				return fail
			}
		}
	}
	return v
}

// skipState says whether the violation of marker tok at file:line is
// skipped (pass), surely not skipped (fail), or unsure: skipped on another
// branch, before an explicit clean, or at a line a little further away.
// One skip covers one violation: a skip an earlier line of the file took
// (used) covers no other, so a second line with the same marker next to
// a skipped one is a violation of its own.
func (m *model) skipState(file, tok string, line int, used map[int]bool) verdict {
	st := fail
	for i, s := range m.skips {
		if s.File != file || s.Token != tok || used[i] {
			continue
		}
		d := abs(s.Line - line)
		if s.Branch == m.branch && d <= 1 && s.Cleans == m.cleans {
			used[i] = true
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

// failing lists the applicable jobs of sel that surely fail under the
// configuration g. A configuration broken in the work tree while HEAD's
// loads fails (the change broke it); broken at HEAD too, it is the user's:
// nothing fails.
func (m *model) failing(f facts, g gates, sel selection) []string {
	if m.configBroken() {
		if f.HeadConfigBroken {
			return nil
		}
		return []string{configGate}
	}
	return m.failingGates(f, g, sel)
}

// failingGates is failing, the work tree's configuration aside: what the
// gates g fail when they run whatever it is.
func (m *model) failingGates(f facts, g gates, sel selection) []string {
	var out []string
	for _, j := range m.jobs(f, g) {
		if sel.has(j) && j.Applicable && j.Verdict == fail {
			out = append(out, j.ID)
		}
	}
	return out
}

// unverified lists the jobs of the configuration g in force that fail now
// without surely applying: in the episode's changes but not in the merge
// base's (the agent committed onto the base branch, or moved it), or
// failing at their last run and failing still (whatever moved). An approve
// while one does must say what was not verified. cause names why.
func (m *model) unverified(f facts, g gates) (ids []string, cause string) {
	if m.configBroken() {
		return nil, ""
	}
	failed := map[string]bool{}
	for _, id := range m.failing(f, g, selection{scope: "all"}) {
		failed[id] = true
	}
	for _, j := range m.jobs(f, g) {
		if failed[j.ID] {
			continue
		}
		fails := j.Verdict == fail || j.EpisodeVerdict == fail
		switch {
		case (m.pending[j.ID] || m.archived[j.ID]) && fails:
			ids, cause = append(ids, j.ID), "pending"
		case j.MaybeApplicable && j.EpisodeVerdict == fail:
			why := m.maybeCause(f, j)
			if why == "nested" {
				continue // left out with a note, or verified: both are right
			}
			ids = append(ids, j.ID)
			if cause == "" {
				cause = why
			}
		}
	}
	return ids, cause
}

// maybeCause names why job j may apply without surely applying, or fails
// against the episode's base only: the bytes of a file changed in line
// endings only ("crlf"), a nested repository's files ("nested"), or
// changes since the episode's base the merge base does not show
// ("ref-moved" when the agent moved main, "on-base" for work committed onto
// main, "episode-base" otherwise).
func (m *model) maybeCause(f facts, j job) string {
	if j.Applicable {
		return m.baseCause(f)
	}
	whys := map[string]bool{}
	for _, e := range m.entries() {
		if !strings.HasSuffix(j.ID, ":"+j.Gate) || !strings.Contains(j.ID, ":"+e.path+":") {
			continue
		}
		for p, why := range f.MaybeWhy {
			if e.scope(p) {
				whys[why] = true
			}
		}
	}
	switch {
	case whys["episode"]:
		return m.baseCause(f)
	case whys["crlf"]:
		return "crlf"
	}
	return "nested"
}

// pointToldRE finds, in an approve's systemMessage, that the stop told the
// person the commits of main up to HEAD were not verified, with HEAD's
// short commit (docs/trust.md, "Where the work starts").
var pointToldRE = regexp.MustCompile(`the commits of main up to HEAD ([0-9a-f]{7,40})\b[^()]*\(from now on, work committed here is judged from HEAD\)`)

// notePointTold takes, when an approve a of the stop hook on main told the
// person that the commits up to HEAD (f.Head) were not verified and that
// work committed there is judged from HEAD on, that HEAD as main as a
// person last left it: the person was told once, and the point recorded
// stands for what they accept (as a trust at that commit would). An
// approve that did not tell it, or told another commit, changes nothing:
// the failures committed before it stay unverified, and each later approve
// must say so.
//
// Only the first telling counts: an earlier notice that repeats it
// (docs/trust.md, "What a stop says once") marks nothing again.
func (m *model) notePointTold(f facts, a answer) {
	if a.Decision != "approve" || f.Branch != "main" || f.Head == "" {
		return
	}
	msg := a.SystemMessage
	if i := strings.Index(msg, "Earlier notice ("); i >= 0 {
		msg = msg[:i]
	}
	if g := pointToldRE.FindStringSubmatch(msg); g != nil && strings.HasPrefix(f.Head, g[1]) {
		m.mainMark, m.refMoved = f.Head, false
		m.markTree = ""
		m.pointTold = g[1]
	}
}

// notePassMarked takes, after a stop on main passed with nothing it did
// not verify and the work tree as HEAD has it, HEAD as main's verified
// point: the binary marks the point a pass of the tree as it is reached
// (runner/internal/run/episode.go, recordEnd), and later stops on main
// judge the work since it. A pass with uncommitted changes marks a tree
// no commit is, which the model does not follow (main's mark stays).
func (m *model) notePassMarked(f facts, a answer) {
	if a.Decision != "approve" || a.Status != stPassed && a.Status != stWarnings || f.Branch != "main" ||
		strings.Contains(a.SystemMessage, "Not verified") {
		return
	}
	if f.Head == "" {
		// Before main's first commit the pass marks the tree it verified:
		// the commit that records that very tree is main's mark (commit).
		m.unbornPass = maps.Clone(m.files)
		return
	}
	if len(f.Changed) == 0 {
		m.mainMark, m.refMoved = f.Head, false
		m.markTree = ""
	}
}

// checkToldPoint checks that every answer of a stop that ran, in any
// session, after a stop first told that the commits of main up to a HEAD
// were not verified, repeats that notice, or counts it among the earlier
// notices `agent-gauntlet status` lists (an answer names five: docs/trust.md,
// "What a stop says once"): the agent's own stop-hook run under a session
// id of its own cannot take it from the session a person watches.
func (m *model) checkToldPoint(call hookCall, a answer) []violation {
	if m.pointTold == "" || call.lost() || !(slices.Contains(passing, a.Status) || a.Status == stFailed) ||
		strings.Contains(a.SystemMessage, "the commits of main up to HEAD "+m.pointTold) ||
		strings.Contains(a.SystemMessage, "more earlier notice(s) are not repeated here: `agent-gauntlet status` lists them all") {
		return nil
	}
	return []violation{{"b:untold-point", fmt.Sprintf("answered %q after a stop told the commits of main up to HEAD %s, and its systemMessage does not repeat it: %q",
		a.Status, m.pointTold, a.SystemMessage)}}
}

// baseCause names why changes since the episode's base are not in the
// merge base's.
func (m *model) baseCause(f facts) string {
	switch {
	case m.refMoved:
		return "ref-moved"
	case f.Branch == "main":
		return "on-base"
	}
	return "episode-base"
}

// mayFail lists the jobs of sel, applicable or not, that fail or may fail
// under the configuration g: a block for one of them is something the
// agent can fix. On the base branch itself a verification run judges a
// failure against the base of the run it verifies (docs/baselines.md), not
// against the merge base, which work committed onto main since has moved
// to HEAD: a failure the agent committed there is not pre-existing to it.
// The model does not keep that base, so on main a marked check may fail.
func (m *model) mayFail(f facts, g gates, sel selection) []string {
	if m.configBroken() {
		return []string{configGate}
	}
	onBase := g.Baseline && f.Branch == "main"
	var out []string
	for _, j := range m.jobs(f, g) {
		if sel.has(j) && (j.Verdict != pass || j.EpisodeVerdict != pass || onBase && j.Marked) {
			out = append(out, j.ID)
		}
	}
	return out
}

// shellTags names, for a signature, what the agent's shell did that bears
// on the jobs ids: an index flag, an attribute or a CRLF rewrite on a path
// in their scope that changed, a nested repository in their scope (for a
// block: what can make a run fail), a log-directory file forged since the
// last run when a run answered (review files for reviews only). "" when
// nothing does.
func (m *model) shellTags(f facts, ids []string, block, runs bool) string {
	tags := map[string]bool{}
	review := false
	for _, e := range m.entries() {
		in := false
		for _, id := range ids {
			if strings.Contains(id, ":"+e.path+":") {
				in = true
				review = review || strings.HasPrefix(id, "review:")
			}
		}
		if !in {
			continue
		}
		for p := range f.Maybe {
			if !e.scope(p) {
				continue
			}
			tags["flag"] = tags["flag"] || m.flagged[p]
			tags["crlf"] = tags["crlf"] || m.crlfed[p]
			tags["attr"] = tags["attr"] || slices.ContainsFunc(m.attrs, func(pat string) bool { return attrMatch(pat, p) })
		}
		for _, d := range m.nested {
			tags["nested"] = tags["nested"] || block && e.scope(d+"/f.txt")
		}
	}
	if runs {
		tags["forged-state"] = m.forged["state"]
		tags["forged-log"] = m.forged["log"]
		tags["forged-review"] = review && m.forged["review"]
	}
	var out []string
	for _, t := range slices.Sorted(maps.Keys(tags)) {
		if tags[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "-by-" + strings.Join(out, "-")
}

// attrMatch reports whether a .gitattributes pattern of the attribute
// steps ("*", "*.txt", "src/**") matches path p.
func attrMatch(pattern, p string) bool {
	switch {
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		return strings.HasSuffix(p, pattern[1:])
	case strings.HasSuffix(pattern, "/**"):
		return strings.HasPrefix(p, strings.TrimSuffix(pattern, "**"))
	}
	return p == pattern
}
