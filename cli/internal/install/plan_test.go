package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stack"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

func item(dir, name, command string, outcome Outcome, choice Choice) Item {
	it := Item{Dir: dir, Label: "L " + dir, Proposal: stack.Proposal{Name: name, Command: command, Timeout: time.Minute},
		Outcome: outcome, Choice: choice}
	if outcome == Failed {
		it.Failure = "exit 1: boom"
	}
	if outcome == Missing {
		it.Proposal.Missing, it.Proposal.Hint = "tool", "install it"
	}
	return it
}

// load writes the plan's files into a new directory and loads them the way
// every command does.
func load(t *testing.T, p *Plan) (*config.Config, map[string]string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{}
	for _, f := range p.Files() {
		files[filepath.ToSlash(f.Rel)] = f.Content
	}
	if _, err := WriteFiles(root, p.Files()); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(t.Context(), root)
	if err != nil {
		t.Fatalf("the written configuration does not load: %v\n%s", err, files[".gauntlet/config.yml"])
	}
	if len(cfg.Warnings) > 0 {
		t.Errorf("warnings: %q\n%s", cfg.Warnings, files[".gauntlet/config.yml"])
	}
	return cfg, files
}

func TestBuildPlanLoads(t *testing.T) {
	items := []Item{
		item(".", "go-test", "go test ./...", Passed, Add),
		item(".", "go-vet", "go vet ./...", Failed, AsFailing),
		item(".", "golangci-lint", "golangci-lint run", Missing, Add),
		item("web", "npm-test", "npm run test", Passed, Add),
		item("web", "npm-lint", "npm run lint", Failed, Add), // enabled all the same
		item("api", "npm-test", "npm run test", Failed, AsFailing),
		item("py", "pytest", "pytest", Passed, Add),
		item("py2", "pytest", ".venv/bin/pytest", Passed, Add), // same name, other command
		item("docs", "make-test", "make test", Failed, AsFailing),
		item("skip", "make-test", "make test", Passed, Skip),
	}
	cfg, files := load(t, buildPlan(PlanOptions{BaseBranch: "main", CLIs: []string{"claude"}}, items, false))
	got := map[string][]string{}
	for _, ep := range cfg.EntryPoints {
		got[ep.Path] = append(got[ep.Path], strings.Join(ep.Checks, ",")+"|"+strings.Join(ep.Reviews, ",")+"|"+strings.Join(ep.Exclude, ","))
	}
	want := map[string][]string{
		".":   {"go-test||web,py,py2", "|code-quality|"}, // the review on an entry point of its own
		"web": {"npm-test,npm-lint||"},
		"py":  {"pytest||"},
		"py2": {"pytest-py2||"},
	}
	{
		if len(got) != len(want) {
			t.Errorf("entry points %v, want %v", got, want)
		}
		for k, v := range want {
			if strings.Join(got[k], ";") != strings.Join(v, ";") {
				t.Errorf("entry point %q: %q, want %q", k, got[k], v)
			}
		}
		conf := files[".gauntlet/config.yml"]
		for _, line := range []string{
			"      # - go-vet  # failed at init: exit 1: boom\n",
			"      - npm-lint  # failed at init, kept on: exit 1: boom\n",
			"    # golangci-lint: not added, tool is not installed (install it); it would run: golangci-lint run\n",
			"  # L api in \"api\": left out, nothing in it passed at init\n",
			"  # - path: \"api\"\n",
			"  #     - npm-test  # failed at init: exit 1: boom\n",
		} {
			if !strings.Contains(conf, line) {
				t.Errorf("config.yml lacks %q:\n%s", line, conf)
			}
		}
		if strings.Contains(conf, "skip") {
			t.Errorf("a directory whose every proposal was declined is mentioned:\n%s", conf)
		}
	}
	if cfg.Checks["pytest-py2"].Command != ".venv/bin/pytest" || cfg.Checks["pytest"].Command != "pytest" {
		t.Errorf("pytest checks: %+v %+v", cfg.Checks["pytest"], cfg.Checks["pytest-py2"])
	}
	if _, ok := cfg.Checks["golangci-lint"]; ok {
		t.Errorf("a check whose tool is missing was written")
	}
	if cfg.Checks["go-test"].Timeout != time.Minute {
		t.Errorf("timeout %v", cfg.Checks["go-test"].Timeout)
	}
}

// With baselines, a check that failed at init is listed and runs, its file
// saying baseline: true.
func TestBuildPlanWithBaselines(t *testing.T) {
	items := []Item{item(".", "go-test", "go test ./...", Passed, Add), item(".", "go-vet", "go vet ./...", Failed, AsFailing)}
	cfg, files := load(t, buildPlan(PlanOptions{BaseBranch: "main"}, items, true))
	if !cfg.Checks["go-vet"].Baseline || cfg.Checks["go-test"].Baseline {
		t.Errorf("baseline loaded: go-vet %v, go-test %v", cfg.Checks["go-vet"].Baseline, cfg.Checks["go-test"].Baseline)
	}
	if !strings.Contains(files[".gauntlet/config.yml"], "one that failed then has baseline: true in its file") {
		t.Errorf("config.yml does not say what baseline: true does:\n%s", files[".gauntlet/config.yml"])
	}
	if !strings.Contains(files[".gauntlet/config.yml"], "      - go-vet  # failed at init: exit 1: boom\n") {
		t.Errorf("go-vet not listed:\n%s", files[".gauntlet/config.yml"])
	}
	if !strings.Contains(files[".gauntlet/checks/go-vet.yml"], "\nbaseline: true\n") || strings.Contains(files[".gauntlet/checks/go-test.yml"], "baseline") {
		t.Errorf("baseline on the wrong checks:\n%s\n%s", files[".gauntlet/checks/go-vet.yml"], files[".gauntlet/checks/go-test.yml"])
	}
}

func TestBuildPlanReviewOnRootAndOff(t *testing.T) {
	items := []Item{item(".", "go-test", "go test ./...", Passed, Add)}
	cfg, _ := load(t, BuildPlan(PlanOptions{BaseBranch: "main"}, items))
	if len(cfg.EntryPoints) != 1 || strings.Join(cfg.EntryPoints[0].Reviews, ",") != SampleReview {
		t.Errorf("want the review on the root entry point: %+v", cfg.EntryPoints)
	}
	cfg, files := load(t, BuildPlan(PlanOptions{BaseBranch: "main", ReviewNote: "none"}, items))
	if len(cfg.EntryPoints) != 1 || len(cfg.EntryPoints[0].Reviews) != 0 || cfg.Reviews[SampleReview] == nil {
		t.Errorf("want the review written but not listed: %+v", cfg.EntryPoints)
	}
	if !strings.Contains(files[".gauntlet/config.yml"], "    #   - code-quality\n") {
		t.Errorf("no commented review:\n%s", files[".gauntlet/config.yml"])
	}
}

func TestYAMLCommand(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"go test ./...", "go test ./..."},
		{"cargo clippy --workspace --all-targets -- -D warnings", "cargo clippy --workspace --all-targets -- -D warnings"},
		{"python3 -c 'import x'", `"python3 -c 'import x'"`},
		{"a: b", `"a: b"`},
		{"echo # not a comment", `"echo # not a comment"`},
		{"a\nb\n", "|\n  a\n  b"},
	} {
		if got := yamlCommand(tc.cmd); got != tc.want {
			t.Errorf("yamlCommand(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestBaselineSwitchMatchesLoader fails when the configuration loader and
// BaselineSupported disagree: when check files start to take `baseline:`
// (docs/baselines.md), flip BaselineSupported, and init writes failing checks with
// baseline: true instead of commenting them out.
func TestBaselineSwitchMatchesLoader(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gauntlet/config.yml", "cli:\n  default_preference: [claude]\nentry_points:\n  - path: .\n    checks: [c]\n")
	write(".gauntlet/checks/c.yml", "command: \"true\"\nbaseline: true\n")
	cfg, err := config.Load(t.Context(), root)
	if err != nil {
		// Any other error would make the answer meaningless.
		if !strings.Contains(err.Error(), "baseline") {
			t.Fatal(err)
		}
	}
	known := err == nil
	if cfg != nil {
		for _, w := range cfg.Warnings {
			if strings.Contains(w, "baseline") {
				known = false
			}
		}
	}
	if known != BaselineSupported {
		t.Errorf("the loader knows `baseline:` on checks: %v; BaselineSupported: %v. Flip BaselineSupported.", known, BaselineSupported)
	}
}

func TestAddToGitignore(t *testing.T) {
	for _, tc := range []struct{ before, after string }{
		{"", "# agent-gauntlet run logs\n/gauntlet_logs/\n"},
		{"a\nb", "a\nb\n# agent-gauntlet run logs\n/gauntlet_logs/\n"},
		{"a\n", "a\n# agent-gauntlet run logs\n/gauntlet_logs/\n"},
		{"gauntlet_logs\n", "gauntlet_logs\n"},
		{"x\n/gauntlet_logs/\ny", "x\n/gauntlet_logs/\ny"},
	} {
		root := t.TempDir()
		path := filepath.Join(root, GitignoreFile)
		if tc.before != "" {
			if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 { // idempotent
			if _, err := AddToGitignore(root, GitignoreEntry("gauntlet_logs")); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := os.ReadFile(path)
		if string(got) != tc.after {
			t.Errorf("%q: got %q, want %q", tc.before, got, tc.after)
		}
	}
}

// TestBuildPlanBuiltinReviews pins the review files init writes: one per
// chosen built-in review, each selecting its prompt with builtin: and
// loading as that review; none chosen writes no review at all.
func TestBuildPlanBuiltinReviews(t *testing.T) {
	items := []Item{item(".", "go-test", "go test ./...", Passed, Add)}
	cfg, files := load(t, BuildPlan(PlanOptions{BaseBranch: "main", Reviews: []string{"code-quality", "security"}}, items))
	if got := strings.Join(cfg.EntryPoints[0].Reviews, ","); got != "code-quality,security" {
		t.Errorf("reviews listed: %q", got)
	}
	for _, name := range []string{"code-quality", "security"} {
		r := cfg.Reviews[name]
		if r == nil || r.Builtin != name || r.OwnText {
			t.Fatalf("review %s: %+v", name, r)
		}
		if !strings.Contains(files[".gauntlet/reviews/"+name+".md"], "\nbuiltin: "+name+"\n") {
			t.Errorf("%s.md:\n%s", name, files[".gauntlet/reviews/"+name+".md"])
		}
	}
	cfg, files = load(t, BuildPlan(PlanOptions{BaseBranch: "main", Reviews: []string{}}, items))
	if len(cfg.Reviews) != 0 || len(cfg.EntryPoints[0].Reviews) != 0 || strings.Contains(files[".gauntlet/config.yml"], "reviews") {
		t.Errorf("no review wanted: %+v\n%s", cfg.EntryPoints, files[".gauntlet/config.yml"])
	}
}

func TestParseReviews(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
		err  bool
	}{
		{[]string{"security,code-quality", " Security "}, "code-quality,security", false},
		{[]string{"none"}, "", false},
		{nil, "", false},
		{[]string{"style"}, "", true},
	} {
		got, err := ParseReviews(tc.in)
		if (err != nil) != tc.err || strings.Join(got, ",") != tc.want || (err == nil && got == nil) {
			t.Errorf("ParseReviews(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// A proposal's glob is written to its check file and loads back: init's
// gofmt check works on the changed Go files the run hands it.
func TestBuildPlanGlob(t *testing.T) {
	one := item(".", "gofmt", stack.GofmtChanged, Passed, Add)
	one.Proposal.Glob = stack.GofmtGlob
	two := item("web", "lint", "npx eslint ${CHANGED_FILES}", Passed, Add)
	two.Proposal.Glob = []string{"*.ts", "src/**/*.tsx"}
	cfg, files := load(t, BuildPlan(PlanOptions{BaseBranch: "main"}, []Item{one, two}))
	if got := cfg.Checks["gofmt"]; !slices.Equal(got.Glob, []string{"*.go"}) || !got.Scoped() || !got.MatchesGlob("pkg/a.go") || got.MatchesGlob("README.md") {
		t.Errorf("gofmt: glob %q, scoped %v\n%s", got.Glob, got.Scoped(), files[".gauntlet/checks/gofmt.yml"])
	}
	if got := cfg.Checks["lint"]; !slices.Equal(got.Glob, []string{"*.ts", "src/**/*.tsx"}) {
		t.Errorf("lint: glob %q\n%s", got.Glob, files[".gauntlet/checks/lint.yml"])
	}
}
