// Package cache decides what a gate's result depends on: the key under which
// the ledger (statecfg/ledger) keeps the proof that a gate passed, and the
// key of a reviewer's answer. A key is the canonical JSON of everything the
// result may depend on; the ledger only ever returns a record for the exact
// key it was written for, so anything left out of a key is a way to a false
// pass, and anything uncertain must make the key differ (a miss).
package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/adapter"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Tag opens every gate key: a new key format changes it, and every record
// of the old one becomes a miss.
const Tag = "agent-gauntlet gate result v2"

// AnswerTag opens every key of a reviewer's answer.
const AnswerTag = "agent-gauntlet review answer v1"

// Scopes of the tree part of a gate key (the gate's `cache` setting).
const (
	// ScopeTree keys a gate by the tree of the whole project.
	ScopeTree = "tree"
	// ScopeEntryPoint keys it by its entry point's subtree and the paths
	// the gate names.
	ScopeEntryPoint = "entry_point"
)

// Run is what every gate key of one run shares.
type Run struct {
	// Version is the agent-gauntlet version (see Options.Version).
	Version string `json:"version"`
	// Project is the project root relative to the top level of its work
	// tree ("" at the top level): the ledger is shared by every project of
	// the repository.
	Project string `json:"project"`
	// BaseBranch is the effective base branch, BaseCommit the commit it
	// names ("" when it names none).
	BaseBranch string `json:"base_branch"`
	BaseCommit string `json:"base_commit"`
	// CI is true in CI mode.
	CI bool `json:"ci"`
	// Settings are the project settings a gate's result may depend on.
	Settings Settings `json:"settings"`
	// Env identifies the environment the gates ran in (EnvIdentity): a
	// tool, a reviewer CLI or a flag that PATH, GOFLAGS, NODE_OPTIONS, a
	// PATH directory or a file in the home directory choose changes what a
	// gate proves, so a result is taken only in the
	// same environment (a run by hand in the agent's shell never answers
	// for the stop hook in its client's).
	Env string `json:"env"`
}

// volatileEnv are the variables a shell changes from one command to the
// next without changing what a program does: left out of EnvIdentity.
var volatileEnv = map[string]bool{"_": true, "PWD": true, "OLDPWD": true, "SHLVL": true}

// EnvIdentity is the identity of an environment (os.Environ's form): the
// hash of its variables, sorted, but volatileEnv's, perConnectionEnv's and
// those agent-gauntlet sets for its own children (GAUNTLET_*,
// AGENT_GAUNTLET_*); of the program each review CLI (adapter.Specs)
// resolves to on its PATH, by ProgramIdentity; of every directory on that
// PATH (writePathDirs), so that a program added to one and removed again
// tells; and of the files in the user's home and the system that the
// review CLIs and common tool runtimes read (userFiles). It is the one
// fingerprint of an environment: the result cache and the reviewer-answer
// cache key by it, and the verdict book stores it with the full pass that
// starts the interval (see run.EnvIdentity).
func EnvIdentity(environ []string) string {
	var kept []string
	vars := map[string]string{}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		vars[name] = value
		if volatileEnv[name] || slices.Contains(perConnectionEnv, name) ||
			strings.HasPrefix(name, "GAUNTLET_") || strings.HasPrefix(name, "AGENT_GAUNTLET_") {
			continue
		}
		kept = append(kept, kv)
	}
	slices.Sort(kept)
	h := sha256.New()
	h.Write([]byte(strings.Join(kept, "\x00")))
	path := vars["PATH"]
	for _, spec := range adapter.Specs {
		fmt.Fprintf(h, "\x00\x00%s=%s", spec.Binary, ProgramIdentity(spec.Binary, path))
	}
	writePathDirs(h, path)
	writeWatched(h, userFiles(func(k string) string { return vars[k] }))
	return hex.EncodeToString(h.Sum(nil))
}

// ProgramIdentity is the identity of the program name resolves to on path
// (a PATH value, as exec.LookPath resolves it): its path and the identity
// of the file it leads to (device, inode, size, mode, modification and
// change times); "" when none. A program replaced at the same path, in
// place or by a new file, changes it: the change time (ctime) moves on
// every write and no user can set it back. It costs a stat per PATH
// directory, and never reads the program.
func ProgramIdentity(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		return p + " " + fileIdentity(fi)
	}
	return ""
}

// Settings are the project configuration a review's verdict depends on
// beyond its own file.
type Settings struct {
	RerunThreshold  config.Priority `json:"rerun_new_issue_threshold"`
	DefaultCLIs     []string        `json:"default_preference"`
	CheckUsageLimit bool            `json:"check_usage_limit"`
}

// SettingsOf picks the Settings of cfg.
func SettingsOf(cfg *config.Config) Settings {
	return Settings{RerunThreshold: cfg.RerunNewIssueThreshold, DefaultCLIs: cfg.CLI.DefaultPreference,
		CheckUsageLimit: cfg.CLI.CheckUsageLimit}
}

// Object is a path of the snapshot and the object it names there ("" when
// it names none: a path that appears later must change the key), with its
// mode.
type Object struct {
	Path string `json:"path"`
	ID   string `json:"id"`
	// Mode is the mode of its entry (executable or not, a link or a
	// file), "" for the top level.
	Mode string `json:"mode,omitempty"`
}

// Diff is what a review's diff is computed from, besides the work tree.
type Diff struct {
	// Mode is the run's change scope (local, uncommitted, commit, ci); a
	// verification run's scope is the one it verifies.
	Mode gate.DiffMode `json:"mode"`
	// MergeBase is where a local or CI diff starts; Head is HEAD (for an
	// uncommitted diff) or CI's head; Commit the commit of a commit diff.
	MergeBase string `json:"merge_base,omitempty"`
	Head      string `json:"head,omitempty"`
	Commit    string `json:"commit,omitempty"`
	// Skips fingerprints the agent's skip decisions on the branch: a pass
	// that relied on a skip holds only where that decision stands.
	Skips string `json:"skips,omitempty"`
}

// Gate is what one job's key holds beyond Run.
type Gate struct {
	Job gate.Job
	// Scope is ScopeTree or ScopeEntryPoint.
	Scope string
	// Tree is what the gate can see (ScopeTree): the snapshot's KeyTree
	// of the whole work tree (git.TreeSnapshot), not only the project's
	// directory, since a check reads files outside it too.
	Tree string
	// Objects are the scope paths and what they name (ScopeEntryPoint),
	// see Paths, and the paths of the work tree links among them lead to
	// (see SightOf).
	Objects []Object
	// Outside are the paths outside the work tree a check's command names
	// (absolute) and what is there (outsideReader), whatever the scope.
	Outside []Object
	// Reach identifies where the symbolic links the gate reads through
	// lead (Sight.Ends: every link of the work tree for ScopeTree, those
	// of its scope and of what they lead to for ScopeEntryPoint), "" for
	// none: a gate reads through them whatever its scope.
	Reach string
	// Empty identifies the empty directories of the whole work tree that
	// are not ignored (git.TreeSnapshot.EmptyDirs), "" for none: git holds
	// no directory, yet a gate sees one, whatever its scope.
	Empty string
	// Diff is set for a review.
	Diff *Diff
	// Programs identifies the programs a check's command runs by name
	// (ProgramsIdentity on the run's PATH), "" for a review: Run.Env holds
	// the PATH directories, not each program in them.
	Programs string
	// ChangedSum is ListFingerprint(Job.Changed) when the caller has it
	// (checks given the same files share it); "" computes it. Used only
	// for a job that is given them (GivenChanged).
	ChangedSum string
}

// keyDoc is the canonical form of a gate key.
type keyDoc struct {
	Tag        string          `json:"tag"`
	Run        Run             `json:"run"`
	Kind       gate.Kind       `json:"kind"`
	Gate       string          `json:"gate"`
	EntryPoint string          `json:"entry_point"`
	WorkingDir string          `json:"working_directory"`
	Definition json.RawMessage `json:"definition"`
	// Changed fingerprints the changed files a check is given (the job's
	// Changed, which Definition leaves out: a list as long as the change;
	// see ListFingerprint); none for a gate that is not given them
	// (GivenChanged).
	Changed string   `json:"changed,omitempty"`
	Scope   string   `json:"scope"`
	Tree    string   `json:"tree,omitempty"`
	Objects []Object `json:"objects,omitempty"`
	Outside []Object `json:"outside,omitempty"`
	Reach   string   `json:"reach,omitempty"`
	Diff    *Diff    `json:"diff,omitempty"`
	// Programs is Gate.Programs.
	Programs string `json:"programs,omitempty"`
	// Empty is Gate.Empty.
	Empty string `json:"empty,omitempty"`
}

// Key is the key of the result of g in run r. It fails (and the gate must
// not use the cache) when the key would be incomplete: no tree for the
// scope, a job without its configuration.
func Key(r Run, g Gate) (string, error) {
	def, err := definition(g.Job)
	if err != nil {
		return "", err
	}
	doc := keyDoc{Tag: Tag, Run: r, Kind: g.Job.Kind, Gate: g.Job.Name, EntryPoint: g.Job.EntryPoint,
		WorkingDir: g.Job.WorkingDir, Definition: def, Scope: g.Scope, Outside: g.Outside, Reach: g.Reach, Diff: g.Diff,
		Programs: g.Programs, Empty: g.Empty}
	if GivenChanged(g.Job) {
		if doc.Changed = g.ChangedSum; doc.Changed == "" {
			doc.Changed = ListFingerprint(g.Job.Changed)
		}
	}
	switch g.Scope {
	case ScopeTree:
		if g.Tree == "" {
			return "", fmt.Errorf("cache key of %s: no tree", g.Job.ID)
		}
		doc.Tree = g.Tree
	case ScopeEntryPoint:
		if len(g.Objects) == 0 {
			return "", fmt.Errorf("cache key of %s: no entry point objects", g.Job.ID)
		}
		doc.Objects = slices.Clone(g.Objects)
		slices.SortFunc(doc.Objects, func(a, b Object) int {
			switch {
			case a.Path < b.Path:
				return -1
			case a.Path > b.Path:
				return 1
			}
			return 0
		})
		doc.Objects = slices.Compact(doc.Objects)
	default:
		return "", fmt.Errorf("cache key of %s: unknown scope %q", g.Job.ID, g.Scope)
	}
	if g.Job.ReadsDiff() && g.Diff == nil {
		return "", fmt.Errorf("cache key of %s: no diff inputs", g.Job.ID)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("cache key of %s: %w", g.Job.ID, err)
	}
	return string(b), nil
}

// GivenChanged reports whether job is given the changed files (a check
// whose command names ${CHANGED_FILES} or GAUNTLET_CHANGED_FILES_FILE, or
// that has a glob; see config.Check.Scoped): only then are they part of
// its key. Every other gate reads the tree, which the key holds: a file put
// back as the base branch has it changes the list, not what it sees.
func GivenChanged(job gate.Job) bool {
	return job.Kind == gate.KindCheck && job.Check != nil && job.Check.Scoped()
}

// definition is the canonical JSON of the whole job, its gate's whole
// configuration included: every field, so that a field added to either
// later is part of the key without anyone remembering to add it. The
// changed files are fingerprinted apart (ListFingerprint); a review's
// Listed paths are the change set its diff's key holds.
func definition(j gate.Job) (json.RawMessage, error) {
	j.Changed, j.Listed = nil, nil
	if !j.Defined() {
		return nil, fmt.Errorf("cache key of %s: no gate configuration", j.ID)
	}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("cache key of %s: %w", j.ID, err)
	}
	return b, nil
}

// DefinitionFingerprint fingerprints the definition of j (every field of
// the job and of its gate's configuration, not the changed files it is
// given): equal for two runs in which the gate is defined the same, "" for
// a job without its gate's configuration.
func DefinitionFingerprint(j gate.Job) string {
	def, err := definition(j)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(def)
	return hex.EncodeToString(sum[:16])
}

// ListFingerprint fingerprints a list of paths, in order: "" for none (a
// nil list: outside a run), the count and hash of the NUL-terminated paths
// otherwise (an empty list has one too).
func ListFingerprint(list []string) string {
	if list == nil {
		return ""
	}
	h := sha256.New()
	for _, p := range list {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%d:%x", len(list), h.Sum(nil))
}

// SkipsFingerprint fingerprints a list of skip decisions (order matters
// not).
func SkipsFingerprint(skips []gate.Skip) string {
	if len(skips) == 0 {
		return ""
	}
	lines := make([]string, 0, len(skips))
	for _, s := range skips {
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Answer is what a reviewer's answer depends on: the adapter, its model,
// the exact input (prompt and diff), the agent-gauntlet version (which
// builds the command line) and the environment it was asked in (Run.Env:
// which program answered, found on which PATH).
type Answer struct {
	Version string `json:"version"`
	Env     string `json:"env"`
	Adapter string `json:"adapter"`
	Model   string `json:"model"`
	// Slot is the review slot (num_reviews asks the same question several
	// times on purpose: each slot keeps its own answer).
	Slot int `json:"slot"`
	// Stdin is the SHA-256 of the reviewer's whole input.
	Stdin string `json:"stdin"`
}

// AnswerKey is the key of a reviewer's answer to stdin in slot, asked in
// the environment env (EnvIdentity): an answer given by another program,
// or in another environment, is never taken.
func AnswerKey(version, env, adapter, model string, slot int, stdin string) string {
	sum := sha256.Sum256([]byte(stdin))
	b, _ := json.Marshal(struct {
		Tag string `json:"tag"`
		Answer
	}{AnswerTag, Answer{Version: version, Env: env, Adapter: adapter, Model: model, Slot: slot, Stdin: hex.EncodeToString(sum[:])}})
	return string(b)
}

// Proof is the ledger's record of a gate's verdict: what a later run shows
// for it instead of running it.
type Proof struct {
	// Job is the job id; Status is gate.StatusPass, or
	// gate.StatusPreExisting for a check that failed as the base branch
	// does (Baseline says where); Message and Duration are the result's.
	Job      string        `json:"job"`
	Status   gate.Status   `json:"status"`
	Message  string        `json:"message"`
	Duration time.Duration `json:"duration"`
	// Baseline is what the base branch said about a pre-existing failure:
	// the verdict holds only against that base commit (Usable).
	// BaselineFor identifies the question that found the base commit (the
	// change scope, HEAD, the base branch's commit...): a run asking the
	// same one has the same base commit without asking git.
	Baseline    *gate.Baseline `json:"baseline,omitempty"`
	BaselineFor string         `json:"baseline_for,omitempty"`
	// Run is the number of the run that proved it, Root that run's project
	// root (the work tree it ran in) and ConsoleLog its console log as the
	// run left it (archived after a pass).
	Run        int    `json:"run"`
	Root       string `json:"root"`
	ConsoleLog string `json:"console_log,omitempty"`
	// Slots are a review's slots (adapter and index), so that a cached
	// review records a pass for each of them.
	Slots []Slot `json:"slots,omitempty"`
	// Skipped are the violations the agent had skipped when the review
	// passed: a cached pass reports them again (passed with warnings).
	Skipped []gate.Violation `json:"skipped,omitempty"`
	// NotShown are the changed paths the review's reviewers were not shown
	// as text when it passed: a cached pass names them again, as the run
	// that proved it did (its key holds what the diff is made of, so the
	// same paths are not shown to the same question).
	NotShown []Unshown `json:"not_shown,omitempty"`
}

// Unshown is a gate.NotShown as a Proof keeps it.
type Unshown struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// Recordable reports whether r is a verdict the cache keeps: a pass that
// filtered nothing under the rerun threshold, or a check's failure that
// the base branch has too (pre-existing), judged against a known base
// commit. Anything else runs again next time.
func Recordable(r gate.Result) bool {
	if r.Cached != nil || r.Infrastructure || len(r.BelowThreshold) > 0 {
		// A pass that left findings out under the rerun threshold holds
		// for a verification run only: a first run keeps them all.
		return false
	}
	switch r.Status {
	case gate.StatusPass:
		return true
	case gate.StatusPreExisting:
		return r.Baseline != nil && r.Baseline.PreExisting && r.Baseline.Commit != ""
	}
	return false
}

// Usable reports whether p may stand for job in a run whose base commit
// for baselines is found by the question baselineFor (see BaselineFor)
// and given by baseCommit (asked only for a pre-existing failure, which
// holds only against the base it was compared with, and only when the
// question differs).
func (p Proof) Usable(job gate.Job, baselineFor string, baseCommit func() string) bool {
	if p.Job != job.ID {
		return false
	}
	switch p.Status {
	case gate.StatusPass:
		return true
	case gate.StatusPreExisting:
		return job.Kind == gate.KindCheck && job.Check != nil && job.Check.Baseline &&
			p.Baseline != nil && p.Baseline.PreExisting && p.Baseline.Commit != "" &&
			((p.BaselineFor != "" && p.BaselineFor == baselineFor) || p.Baseline.Commit == baseCommit())
	}
	return false
}

// Result is the result of job that p holds, stored at stored: the
// verdict, its message and skipped violations, and which run proved it.
func (p Proof) Result(job gate.Job, stored, now time.Time) gate.Result {
	r := gate.Result{JobID: job.ID, Status: p.Status, Message: p.Message, Skipped: p.Skipped, Baseline: p.Baseline,
		Cached: &gate.Cached{At: stored, Age: now.Sub(stored), Run: p.Run, Root: p.Root, ConsoleLog: p.ConsoleLog,
			PreExisting: p.Status == gate.StatusPreExisting}}
	for _, n := range p.NotShown {
		r.NotShown = append(r.NotShown, gate.NotShown{Path: n.Path, Why: n.Why})
	}
	return r
}

// Slot is one slot of a cached review.
type Slot struct {
	Adapter string `json:"adapter"`
	Index   int    `json:"index"`
	Message string `json:"message,omitempty"`
}

// BaseTag opens every key of a result on a base tree (BaseKey).
const BaseTag = "agent-gauntlet base result v1"

// BaseKey is the key of a gate's result on a base tree: the gate's key on
// that tree (Key) and what else the result depends on (extra). Its tag
// keeps it apart from every key of a run's pass.
func BaseKey(gateKey, extra string) string {
	b, _ := json.Marshal(struct {
		Tag   string `json:"tag"`
		Gate  string `json:"gate"`
		Extra string `json:"extra"`
	}{BaseTag, gateKey, extra})
	return string(b)
}
