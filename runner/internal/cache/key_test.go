package cache

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

func checkJob() gate.Job {
	return gate.Job{ID: "check:pkg/a:lint", Kind: gate.KindCheck, Name: "lint", EntryPoint: "pkg/a", WorkingDir: "pkg/a",
		Check: &config.Check{Name: "lint", File: ".gauntlet/checks/lint.yml", Command: "make lint", RunLocally: true, RunInCI: true, Timeout: time.Minute}}
}

func reviewJob() gate.Job {
	return gate.Job{ID: "review:.:quality", Kind: gate.KindReview, Name: "quality", EntryPoint: ".", WorkingDir: ".",
		Review: &config.Review{Name: "quality", Prompt: "Review this.", CLIPreference: []string{"claude"}, NumReviews: 1, Model: "opus"}}
}

func baseRun() Run {
	return Run{Version: "v1.2.3", BaseBranch: "origin/main", BaseCommit: strings.Repeat("b", 40),
		Settings: Settings{RerunThreshold: config.PriorityHigh, DefaultCLIs: []string{"claude"}}}
}

// Every input of a key changes it; the same inputs give the same key.
func TestKeyCoversEveryInput(t *testing.T) {
	tree := strings.Repeat("1", 40)
	mustKey := func(r Run, g Gate) string {
		t.Helper()
		k, err := Key(r, g)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	checkGate := func() Gate { return Gate{Job: checkJob(), Scope: ScopeTree, Tree: tree} }
	scopedGate := func() Gate {
		g := checkGate()
		g.Job.Check.Glob = []string{"*.go"}
		g.Job.Changed = []string{"pkg/a/a.go", "pkg/a/x.go"}
		return g
	}
	reviewGate := func() Gate {
		return Gate{Job: reviewJob(), Scope: ScopeTree, Tree: tree, Diff: &Diff{Mode: gate.DiffLocal, MergeBase: strings.Repeat("m", 40)}}
	}
	type variant struct {
		name string
		r    func(*Run)
		g    func(*Gate)
	}
	cases := []struct {
		base     func() Gate
		variants []variant
	}{
		{checkGate, []variant{
			{"version", func(r *Run) { r.Version = "v1.2.4" }, nil},
			{"project", func(r *Run) { r.Project = "sub/" }, nil},
			{"base branch", func(r *Run) { r.BaseBranch = "main" }, nil},
			{"base commit", func(r *Run) { r.BaseCommit = strings.Repeat("c", 40) }, nil},
			{"no base commit", func(r *Run) { r.BaseCommit = "" }, nil},
			{"CI", func(r *Run) { r.CI = true }, nil},
			{"environment", func(r *Run) { r.Env = EnvIdentity([]string{"GOFLAGS=-run=^$"}) }, nil},
			{"tree", nil, func(g *Gate) { g.Tree = strings.Repeat("2", 40) }},
			{"command", nil, func(g *Gate) { g.Job.Check.Command = "make lint2" }},
			{"working directory", nil, func(g *Gate) { g.Job.WorkingDir = "." }},
			{"timeout", nil, func(g *Gate) { g.Job.Check.Timeout = 2 * time.Minute }},
			{"fix instructions", nil, func(g *Gate) { g.Job.Check.FixInstructions = "do this" }},
			{"entry point", nil, func(g *Gate) { g.Job.EntryPoint = "pkg/b" }},
			{"gate name", nil, func(g *Gate) { g.Job.Name = "lint2" }},
			{"any field of the job", nil, func(g *Gate) { g.Job.Parallel = true }},
			{"given the changed files", nil, func(g *Gate) { g.Job.Check.Command = "lint ${CHANGED_FILES}" }},
			{"scope", nil, func(g *Gate) {
				g.Scope, g.Objects = ScopeEntryPoint, []Object{{Path: "pkg/a", ID: tree}}
			}},
		}},
		{scopedGate, []variant{
			{"changed files given", nil, func(g *Gate) { g.Job.Changed = []string{"pkg/a/x.go"} }},
			{"no changed files given", nil, func(g *Gate) { g.Job.Changed = []string{} }},
			{"another list", nil, func(g *Gate) { g.Job.Changed = []string{"pkg/a/b.go"} }},
		}},
		{reviewGate, []variant{
			{"prompt", nil, func(g *Gate) { g.Job.Review.Prompt = "Review that." }},
			{"adapter", nil, func(g *Gate) { g.Job.Review.CLIPreference = []string{"codex"} }},
			{"model", nil, func(g *Gate) { g.Job.Review.Model = "sonnet" }},
			{"num_reviews", nil, func(g *Gate) { g.Job.Review.NumReviews = 2 }},
			{"review timeout", nil, func(g *Gate) { g.Job.Review.Timeout = time.Second }},
			{"threshold", func(r *Run) { r.Settings.RerunThreshold = config.PriorityLow }, nil},
			{"default CLIs", func(r *Run) { r.Settings.DefaultCLIs = []string{"gemini"} }, nil},
			{"usage probe", func(r *Run) { r.Settings.CheckUsageLimit = true }, nil},
			{"diff mode", nil, func(g *Gate) { g.Diff.Mode = gate.DiffUncommitted }},
			{"merge base", nil, func(g *Gate) { g.Diff.MergeBase = strings.Repeat("n", 40) }},
			{"head", nil, func(g *Gate) { g.Diff.Head = strings.Repeat("h", 40) }},
			{"commit", nil, func(g *Gate) { g.Diff.Commit = "abc" }},
			{"skip decisions", nil, func(g *Gate) { g.Diff.Skips = "s" }},
		}},
	}
	for _, c := range cases {
		ref := mustKey(baseRun(), c.base())
		if again := mustKey(baseRun(), c.base()); again != ref {
			t.Fatalf("the same inputs gave two keys:\n%s\n%s", ref, again)
		}
		for _, v := range c.variants {
			r, g := baseRun(), c.base()
			if v.r != nil {
				v.r(&r)
			}
			if v.g != nil {
				v.g(&g)
			}
			if k := mustKey(r, g); k == ref {
				t.Errorf("%s: changing it left the key as it was", v.name)
			}
		}
	}
}

func TestKeyRefusesIncompleteInputs(t *testing.T) {
	cases := map[string]Gate{
		"no tree":           {Job: checkJob(), Scope: ScopeTree},
		"no objects":        {Job: checkJob(), Scope: ScopeEntryPoint},
		"unknown scope":     {Job: checkJob(), Scope: "everything", Tree: "t"},
		"no configuration":  {Job: gate.Job{ID: "check:.:x", Kind: gate.KindCheck}, Scope: ScopeTree, Tree: "t"},
		"review, no diff":   {Job: reviewJob(), Scope: ScopeTree, Tree: "t"},
		"kind mismatch":     {Job: gate.Job{ID: "review:.:x", Kind: gate.KindReview, Check: checkJob().Check}, Scope: ScopeTree, Tree: "t"},
		"empty scope value": {Job: checkJob(), Tree: "t"},
	}
	for name, g := range cases {
		if k, err := Key(baseRun(), g); err == nil {
			t.Errorf("%s: key %s", name, k)
		}
	}
}

// Entry point objects: their order does not matter, their ids and paths do.
func TestKeyObjects(t *testing.T) {
	a := Object{Path: "pkg/a", ID: "1"}
	b := Object{Path: "Makefile", ID: "2"}
	key := func(objs ...Object) string {
		k, err := Key(baseRun(), Gate{Job: checkJob(), Scope: ScopeEntryPoint, Objects: objs})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	if key(a, b) != key(b, a) || key(a, b) != key(a, b, a) {
		t.Fatal("object order or repeats changed the key")
	}
	if key(a, b) == key(a, Object{Path: "Makefile", ID: ""}) {
		t.Fatal("a path that is gone left the key as it was")
	}
	if key(a) == key(a, b) {
		t.Fatal("an added path left the key as it was")
	}
}

func TestSkipsFingerprint(t *testing.T) {
	x := gate.Skip{ID: "a1", File: "f.go", Line: 3, Issue: "bad", Note: "fine"}
	y := gate.Skip{ID: "b2", File: "g.go", Line: 4, Issue: "worse", Note: "ok"}
	if SkipsFingerprint(nil) != "" {
		t.Fatal("no decisions have a fingerprint")
	}
	if SkipsFingerprint([]gate.Skip{x, y}) != SkipsFingerprint([]gate.Skip{y, x}) {
		t.Fatal("order matters")
	}
	z := y
	z.Note = "changed"
	if SkipsFingerprint([]gate.Skip{x, y}) == SkipsFingerprint([]gate.Skip{x, z}) {
		t.Fatal("a changed note left the fingerprint as it was")
	}
}

func TestAnswerKey(t *testing.T) {
	ref := AnswerKey("v1", "e1", "claude", "opus", 1, "prompt\ndiff")
	for _, k := range []string{
		AnswerKey("v2", "e1", "claude", "opus", 1, "prompt\ndiff"),
		AnswerKey("v1", "e1", "codex", "opus", 1, "prompt\ndiff"),
		AnswerKey("v1", "e1", "claude", "", 1, "prompt\ndiff"),
		AnswerKey("v1", "e1", "claude", "opus", 2, "prompt\ndiff"),
		AnswerKey("v1", "e1", "claude", "opus", 1, "prompt\ndiff "),
		AnswerKey("v1", "e2", "claude", "opus", 1, "prompt\ndiff"),
	} {
		if k == ref {
			t.Fatalf("%s equals %s", k, ref)
		}
	}
	if AnswerKey("v1", "e1", "claude", "opus", 1, "prompt\ndiff") != ref {
		t.Fatal("not deterministic")
	}
	if strings.Contains(ref, "prompt") {
		t.Fatal("the key holds the input itself rather than its hash")
	}
}

func TestPaths(t *testing.T) {
	cases := []struct {
		name string
		job  gate.Job
		want []string
		ok   bool
	}{
		{"check", checkJob(), []string{"pkg/a", "pkg/a/make", "pkg/a/lint"}, true},
		{"review", gate.Job{Kind: gate.KindReview, EntryPoint: "svc/api", Review: &config.Review{}}, []string{"svc/api"}, true},
		{"glob", gate.Job{Kind: gate.KindReview, EntryPoint: "src/**/*.go"}, []string{"src"}, true},
		{"root", gate.Job{Kind: gate.KindReview, EntryPoint: "."}, []string{"."}, true},
		{"newline", gate.Job{Kind: gate.KindReview, EntryPoint: "a\nb"}, []string{"a\nb"}, true},
		{"unresolved", gate.Job{Kind: gate.KindCheck, EntryPoint: "src", Check: &config.Check{Command: "cat $(ls)"}}, []string{"src", "cat"}, false},
	}
	for _, c := range cases {
		got, why := Paths(c.job, emptyEnv)
		if (why == "") != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: Paths = %q, %q; want %q, %v", c.name, got, why, c.want, c.ok)
		}
	}
}

// emptyEnv is an environment with nothing set.
func emptyEnv(string) (string, bool, bool) { return "", false, true }

func TestScopeDir(t *testing.T) {
	for in, want := range map[string]string{
		".": ".", "": ".", "./pkg/a/": "pkg/a", "pkg/*.go": "pkg", "**/*.go": ".", "a/b/**/c/*.ts": "a/b", "a/[xy]/z": "a",
	} {
		if got := scopeDir(in); got != want {
			t.Errorf("scopeDir(%q) = %q, want %q", in, got, want)
		}
	}
}

// A review's definition fingerprint changes with every field of its
// definition, not with the changed files a job is given; a job without its
// gate's configuration has none.
func TestDefinitionFingerprint(t *testing.T) {
	base := DefinitionFingerprint(reviewJob())
	if base == "" || base != DefinitionFingerprint(reviewJob()) {
		t.Fatalf("fingerprint %q is not stable", base)
	}
	same := reviewJob()
	same.Changed, same.Listed = []string{"a.go"}, []string{"a.go", "b.go"}
	if DefinitionFingerprint(same) != base {
		t.Error("the changed files changed the fingerprint")
	}
	for name, edit := range map[string]func(*gate.Job){
		"prompt":     func(j *gate.Job) { j.Review.Prompt = "Review this, twice." },
		"model":      func(j *gate.Job) { j.Review.Model = "sonnet" },
		"adapters":   func(j *gate.Job) { j.Review.CLIPreference = []string{"codex"} },
		"builtin":    func(j *gate.Job) { j.Review.Builtin = "code-quality" },
		"numReviews": func(j *gate.Job) { j.Review.NumReviews = 2 },
		"timeout":    func(j *gate.Job) { j.Review.Timeout = time.Minute },
	} {
		j := reviewJob()
		edit(&j)
		if DefinitionFingerprint(j) == base {
			t.Errorf("%s: fingerprint unchanged", name)
		}
	}
	if got := DefinitionFingerprint(gate.Job{ID: "review:.:x", Kind: gate.KindReview}); got != "" {
		t.Errorf("no configuration: %q", got)
	}
}

// A gate's key holds only what it uses: the changed files only for a check
// that is given them. For any other check and for a review, the list (which
// shrinks when a file is put back as the base branch has it) leaves the key
// as it is: the tree holds what they see.
func TestKeyHoldsChangedFilesOnlyWhenGiven(t *testing.T) {
	tree := strings.Repeat("1", 40)
	for name, job := range map[string]func() gate.Job{
		"a check that names nothing": checkJob,
		"a review":                   reviewJob,
	} {
		var keys []string
		for _, list := range [][]string{nil, {}, {"pkg/a/a.go"}, {"pkg/a/a.go", "pkg/a/b.go"}} {
			j := job()
			j.Changed = list
			g := Gate{Job: j, Scope: ScopeTree, Tree: tree, ChangedSum: ListFingerprint(list)}
			if j.Kind == gate.KindReview {
				g.Diff = &Diff{Mode: gate.DiffLocal, MergeBase: strings.Repeat("m", 40)}
			}
			k, err := Key(baseRun(), g)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		for _, k := range keys[1:] {
			if k != keys[0] {
				t.Errorf("%s: another list of changed files, another key", name)
			}
		}
	}
	for _, cmd := range []string{"lint ${CHANGED_FILES}", "xargs -0 lint < \"$GAUNTLET_CHANGED_FILES_FILE\""} {
		a, b := checkJob(), checkJob()
		a.Check.Command, b.Check.Command = cmd, cmd
		a.Changed, b.Changed = []string{"pkg/a/a.go"}, []string{"pkg/a/a.go", "pkg/a/b.go"}
		ka, _ := Key(baseRun(), Gate{Job: a, Scope: ScopeTree, Tree: tree})
		kb, _ := Key(baseRun(), Gate{Job: b, Scope: ScopeTree, Tree: tree})
		if ka == kb {
			t.Errorf("%q: another list of changed files, the same key", cmd)
		}
	}
}

// A pre-existing failure is kept and taken as a pass is, but only against
// the base commit it was compared with, for a check that still compares.
// A verification run's pass that left findings out under the rerun
// threshold is never kept: a first run of the content keeps them all.
func TestProofVerdicts(t *testing.T) {
	base := strings.Repeat("b", 40)
	job := checkJob()
	job.Check.Baseline = true
	pre := gate.Result{JobID: job.ID, Status: gate.StatusPreExisting, Message: "Exited with code 1, as on the base branch",
		Baseline: &gate.Baseline{Commit: base, PreExisting: true, Reason: "the base fails the same way"}}
	for name, r := range map[string]gate.Result{
		"a pass":                  {JobID: job.ID, Status: gate.StatusPass},
		"a pre-existing failure":  pre,
		"a failure":               {JobID: job.ID, Status: gate.StatusFail},
		"an error":                {JobID: job.ID, Status: gate.StatusError},
		"an infrastructure error": {JobID: job.ID, Status: gate.StatusPass, Infrastructure: true},
		"a cached pass":           {JobID: job.ID, Status: gate.StatusPass, Cached: &gate.Cached{}},
		"pre-existing, no base":   {JobID: job.ID, Status: gate.StatusPreExisting, Baseline: &gate.Baseline{PreExisting: true}},
		"a pass of less than the change": {JobID: job.ID, Status: gate.StatusPass,
			NotShown: []gate.NotShown{{Path: "src/logo.png", Why: "binary content"}}},
		"a verification run's pass under the rerun threshold": {JobID: job.ID, Status: gate.StatusPass,
			BelowThreshold: []gate.Violation{{File: "src/a.go", Line: 3, Issue: "a nit", Priority: "medium", Status: gate.ViolationNew}}},
	} {
		want := name == "a pass" || name == "a pre-existing failure" || name == "a pass of less than the change"
		if got := Recordable(r); got != want {
			t.Errorf("%s: Recordable = %v", name, got)
		}
	}
	// A pass of less than the change names, cached, what its reviewers
	// were not shown, as the run that proved it did.
	unshown := gate.Result{JobID: job.ID, Status: gate.StatusPass, NotShown: []gate.NotShown{{Path: "src/logo.png", Why: "binary content"}}}
	if got := proofOf(unshown, 1, "/r", "", "").Result(job, time.Unix(0, 0), time.Unix(1, 0)); !slices.Equal(got.NotShown, unshown.NotShown) {
		t.Errorf("cached, a pass of less than the change names %v, want %v", got.NotShown, unshown.NotShown)
	}
	p := Proof{Job: job.ID, Status: pre.Status, Message: pre.Message, Baseline: pre.Baseline, BaselineFor: "local head1", Run: 3}
	asked := 0
	at := func(commit string) func() string { return func() string { asked++; return commit } }
	if !p.Usable(job, "local head2", at(base)) {
		t.Error("a pre-existing failure was not taken against its base")
	}
	if p.Usable(job, "local head2", at(strings.Repeat("c", 40))) {
		t.Error("a pre-existing failure was taken against another base")
	}
	if !p.Usable(job, "local head1", at("")) || asked != 2 {
		t.Errorf("the same question: the base was asked (%d times)", asked)
	}
	noBaseline := checkJob()
	if p.Usable(noBaseline, "local head1", at(base)) {
		t.Error("a pre-existing failure was taken for a check without baseline")
	}
	if !(Proof{Job: job.ID, Status: gate.StatusPass}).Usable(job, "", at("")) || asked != 2 {
		t.Errorf("a pass: the base was asked %d times (want 2, by the pre-existing proofs only)", asked)
	}
	if (Proof{Job: "other", Status: gate.StatusPass}).Usable(job, "", at("")) {
		t.Error("another job's proof was taken")
	}
	r := p.Result(job, time.Unix(100, 0), time.Unix(160, 0))
	if r.Status != gate.StatusPreExisting || r.Baseline == nil || r.Cached == nil || !r.Cached.PreExisting || r.Cached.Age != time.Minute || r.Cached.Run != 3 {
		t.Errorf("result %+v", r)
	}
}

// The environment's identity changes with any variable a program may read
// (PATH, GOFLAGS, ...), and not with the order of the variables, a
// shell's bookkeeping or what agent-gauntlet sets for its own children.
func TestEnvIdentity(t *testing.T) {
	base := []string{"PATH=/usr/bin:/bin", "HOME=/home/u"}
	id := EnvIdentity(base)
	for _, same := range [][]string{
		{"HOME=/home/u", "PATH=/usr/bin:/bin"},
		append(slices.Clone(base), "PWD=/x", "OLDPWD=/y", "SHLVL=3", "_=/usr/bin/env"),
		append(slices.Clone(base), "GAUNTLET_STOP_HOOK_ACTIVE=1", "AGENT_GAUNTLET_PROC=1.2"),
	} {
		if EnvIdentity(same) != id {
			t.Errorf("%q: identity changed", same)
		}
	}
	for _, other := range [][]string{
		{"PATH=/tmp/fake:/usr/bin:/bin", "HOME=/home/u"},
		append(slices.Clone(base), "GOFLAGS=-run=^$"),
		append(slices.Clone(base), "NODE_OPTIONS=--require=/tmp/x.js"),
		{"PATH=/usr/bin:/bin"},
	} {
		if EnvIdentity(other) == id {
			t.Errorf("%q: identity unchanged", other)
		}
	}
}

// BenchmarkEnvIdentity measures the environment's fingerprint as a stop
// takes it, in this process's environment: its variables hashed and a
// stat of each review CLI in every PATH directory (no program read, no
// git process).
func BenchmarkEnvIdentity(b *testing.B) {
	environ := os.Environ()
	for b.Loop() {
		EnvIdentity(environ)
	}
}
