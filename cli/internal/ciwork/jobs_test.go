package ciwork

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// project writes files (path → content; "dir/" for a directory) into a new
// repository and loads it.
func project(t *testing.T, files map[string]string) (string, *config.Config) {
	t.Helper()
	root := t.TempDir()
	return root, loadFiles(t, root, files)
}

func TestList(t *testing.T) {
	root, cfg := project(t, map[string]string{
		".gauntlet/config.yml": `log_dir: ./out/logs/
cli:
  default_preference: [claude]
entry_points:
  - path: packages/*
    checks: [lint, test, local]
    reviews: [quality, security]
  - path: .
    checks: [test, lint]
  - path: "src/**/*.go"
    checks: [lint]
`,
		".gauntlet/checks/lint.yml":     "command: make lint\n",
		".gauntlet/checks/test.yml":     "command: go test ./... -base ${BASE_BRANCH}\nworking_directory: .\n",
		".gauntlet/checks/local.yml":    "command: make local\nrun_in_ci: false\n",
		".gauntlet/reviews/quality.md":  "Review it.\n",
		".gauntlet/reviews/security.md": "---\nrun_in_ci: false\n---\nReview it.\n",
		".gauntlet/ci.yml": `runtimes:
  node: {version: "22", cache: npm}
services:
  db: {image: postgres, health_check: {cmd: pg_isready}}
setup:
  - {name: Tools, run: make tools}
checks:
  - name: test
    requires_services: [db]
    setup: [{name: Database, run: make db}]
  - name: lint
    requires_runtimes: [node]
    secrets: [SONAR_TOKEN]
  - name: local
reviews:
  - name: quality
    secrets: [ANTHROPIC_API_KEY]
  - name: security
`,
		"packages/b/":    "",
		"packages/a/":    "",
		"packages/file":  "",
		"src/main/x.go/": "",
	})
	got := List(root, cfg)
	global := "echo '::group::Tools'\nmake tools\necho '::endgroup::'"
	lint := func(id, ep, wd, artifact string) Job {
		return Job{ID: id, Name: "lint", EntryPoint: ep, WorkingDirectory: wd, Command: "make lint",
			Runtimes: []string{"node"}, Services: []string{}, GlobalSetup: global, Secrets: []string{"SONAR_TOKEN"}, Artifact: artifact}
	}
	test := Job{ID: "test-packages-a", Name: "test", EntryPoint: "packages/a", WorkingDirectory: ".",
		Command: "go test ./... -base ${BASE_BRANCH}", Runtimes: []string{}, Services: []string{"db"},
		Setup: "echo '::group::Database'\nmake db\necho '::endgroup::'", GlobalSetup: global, Secrets: []string{}, Artifact: "gauntlet-logs-test-packages-a"}
	want := Jobs{
		Matrix: []Job{
			// ci.yml order within an entry point: test before lint; local has
			// run_in_ci false; test in "." runs once (de-duplicated by name
			// and working directory, as upstream).
			test,
			lint("lint-packages-a", "packages/a", "packages/a", "gauntlet-logs-lint-packages-a"),
			lint("lint-packages-b", "packages/b", "packages/b", "gauntlet-logs-lint-packages-b"),
			lint("lint-.", ".", ".", "gauntlet-logs-lint-."),
			// A glob entry point works in its fixed prefix; its artifact name
			// loses the characters artifact names refuse.
			lint("lint-src-**-*.go", "src/**/*.go", "src", "gauntlet-logs-lint-src-__-_.go"),
		},
		Services: map[string]any{"db": map[string]any{"image": "postgres", "health_check": map[string]any{"cmd": "pg_isready"}}},
		Runtimes: map[string]any{"node": map[string]any{"version": "22", "cache": "npm"}},
		Reviews: []Job{
			{ID: "quality-packages-a", Name: "quality", EntryPoint: "packages/a", WorkingDirectory: "packages/a",
				Runtimes: []string{}, Services: []string{}, GlobalSetup: global, Secrets: []string{"ANTHROPIC_API_KEY"}, Artifact: "gauntlet-logs-quality-packages-a"},
			{ID: "quality-packages-b", Name: "quality", EntryPoint: "packages/b", WorkingDirectory: "packages/b",
				Runtimes: []string{}, Services: []string{}, GlobalSetup: global, Secrets: []string{"ANTHROPIC_API_KEY"}, Artifact: "gauntlet-logs-quality-packages-b"},
		},
		LogDir: "out/logs",
	}
	if !reflect.DeepEqual(jsonValue(t, got), jsonValue(t, want)) {
		g, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("List =\n%s", g)
	}
	line, err := JSON(got)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(line, []byte("\n")) != 1 || !bytes.HasSuffix(line, []byte("\n")) {
		t.Errorf("JSON is not one line: %q", line)
	}
	if !bytes.HasPrefix(line, []byte(`{"matrix":[{"id":"test-packages-a","name":"test","entry_point":"packages/a","working_directory":".","command":"go test ./... -base ${BASE_BRANCH}","runtimes":[],"services":["db"],"setup":`)) {
		t.Errorf("JSON does not start with upstream's fields in upstream's order: %s", line)
	}
}

func TestListWithoutCI(t *testing.T) {
	root, cfg := project(t, map[string]string{
		".gauntlet/config.yml":      "cli: {default_preference: [claude]}\nentry_points: [{path: ., checks: [lint]}]\n",
		".gauntlet/checks/lint.yml": "command: make lint\n",
	})
	line, err := JSON(List(root, cfg))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"matrix":[],"services":{},"runtimes":{},"reviews":[],"log_dir":"gauntlet_logs"}` + "\n"; string(line) != want {
		t.Errorf("JSON = %s, want %s", line, want)
	}
}

func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestJobsWarnings(t *testing.T) {
	many := Jobs{Matrix: make([]Job, MaxMatrixJobs), Reviews: make([]Job, MaxMatrixJobs+1)}
	want := []string{"257 review jobs: GitHub Actions runs at most 256 jobs per matrix (fewer entry points or gates in .gauntlet/ci.yml)"}
	if got := many.Warnings(); !reflect.DeepEqual(got, want) {
		t.Errorf("Warnings = %q, want %q", got, want)
	}
}

func TestArtifactNames(t *testing.T) {
	names := artifactNames{}
	for _, tc := range []struct{ id, want string }{
		{"lint-a:b", "gauntlet-logs-lint-a_b"},
		{"lint-a*b", "gauntlet-logs-lint-a_b-2"},
		{"lint-a?b", "gauntlet-logs-lint-a_b-3"},
		{`x"<>|\` + "\r\n", "gauntlet-logs-x_______"},
	} {
		if got := names.unique(tc.id); got != tc.want {
			t.Errorf("unique(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

func TestFormatSetup(t *testing.T) {
	if got := FormatSetup(nil); got != "" {
		t.Errorf("FormatSetup(nil) = %q", got)
	}
	got := FormatSetup([]config.CISetupStep{
		{Name: "Plain", Run: "echo plain"},
		{Name: "It's quoted", Run: "pwd", WorkingDirectory: "sub dir"},
		{Name: "Guarded", Run: "echo guarded", If: "test -f marker"},
	})
	want := `echo '::group::Plain'
echo plain
echo '::endgroup::'
echo '::group::It'\''s quoted'
(
cd 'sub dir'
pwd
)
echo '::endgroup::'
echo '::group::Guarded'
if test -f marker
then
echo guarded
else
echo 'Skipped: the condition failed: test -f marker'
fi
echo '::endgroup::'`
	if got != want {
		t.Errorf("FormatSetup =\n%s\nwant\n%s", got, want)
	}
}

// TestFormatSetupRuns runs setup scripts the way the workflow does (eval
// under bash -e): steps run in their directories with odd names intact, a
// failed condition skips only its step, and a failing cd or command stops
// the script.
func TestFormatSetupRuns(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	run := func(t *testing.T, steps []config.CISetupStep) (string, error) {
		t.Helper()
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "it's $HOME"), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bash, "-e", "-c", `eval "$GAUNTLET_SETUP"`)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GAUNTLET_SETUP="+FormatSetup(steps))
		out, err := cmd.CombinedOutput()
		return strings.ReplaceAll(string(out), dir, "$DIR"), err
	}
	out, err := run(t, []config.CISetupStep{
		{Name: `a "name" with $HOME`, Run: "basename \"$PWD\"", WorkingDirectory: "it's $HOME"},
		{Name: "skipped", Run: "echo must not run", If: "test -f missing"},
		{Name: "after", Run: "echo after\necho second line"},
	})
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := "::group::a \"name\" with $HOME\nit's $HOME\n::endgroup::\n::group::skipped\nSkipped: the condition failed: test -f missing\n::endgroup::\n::group::after\nafter\nsecond line\n::endgroup::\n"
	if out != want {
		t.Errorf("output =\n%s\nwant\n%s", out, want)
	}
	for name, steps := range map[string][]config.CISetupStep{
		"missing directory": {{Name: "cd", Run: "echo ran anyway", WorkingDirectory: "missing"}, {Name: "next", Run: "echo next ran"}},
		"failing command":   {{Name: "fail", Run: "false\necho ran anyway"}, {Name: "next", Run: "echo next ran"}},
	} {
		out, err := run(t, steps)
		if err == nil || strings.Contains(out, "ran") {
			t.Errorf("%s: err %v, output %q: want a failure that stops the script", name, err, out)
		}
	}
}

func TestWriteGitHubOutput(t *testing.T) {
	jobs := Jobs{Matrix: []Job{{ID: "a", Name: "a", Runtimes: []string{}, Services: []string{}, Setup: "x\ny", Secrets: []string{}}},
		Services: map[string]any{}, Runtimes: map[string]any{"node": map[string]any{"version": "22"}}, Reviews: []Job{}, LogDir: "gauntlet_logs"}
	var b bytes.Buffer
	if err := WriteGitHubOutput(&b, jobs); err != nil {
		t.Fatal(err)
	}
	want := `matrix=[{"id":"a","name":"a","entry_point":"","working_directory":"","runtimes":[],"services":[],"setup":"x\ny","global_setup":"","secrets":[],"artifact":""}]
reviews=[]
runtimes={"node":{"version":"22"}}
log_dir=gauntlet_logs
`
	if b.String() != want {
		t.Errorf("outputs =\n%s\nwant\n%s", b.String(), want)
	}
	// Every output is a key of the list-jobs JSON.
	line, _ := JSON(jobs)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		t.Fatal(err)
	}
	for _, o := range Outputs() {
		if _, ok := fields[o]; !ok {
			t.Errorf("output %s is not a list-jobs key", o)
		}
	}

	path := filepath.Join(t.TempDir(), "output")
	if err := os.WriteFile(path, []byte("earlier=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendGitHubOutput(path, jobs); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "earlier=1\n"+want {
		t.Errorf("appended file =\n%s", got)
	}
}

func TestInstallVersion(t *testing.T) {
	for _, tc := range []struct {
		candidates []string
		want       string
		release    bool
	}{
		{[]string{"v1.2.3"}, "v1.2.3", true},
		{[]string{"1.2.3"}, "v1.2.3", true},
		{[]string{"v1.2.3-rc.1"}, "v1.2.3-rc.1", true},
		{[]string{"dev", "v0.4.0"}, "v0.4.0", true},
		{[]string{"dev", "(devel)"}, LatestVersion, false},
		{[]string{"dev", "v0.0.0-20260101120000-0123456789ab"}, LatestVersion, false},
		{[]string{"v1.3.0-0.20260101120000-0123456789ab"}, LatestVersion, false},
		{[]string{"v1.2.3+dirty"}, LatestVersion, false},
		{[]string{"v1.2"}, LatestVersion, false},
		{[]string{"main"}, LatestVersion, false},
		{nil, LatestVersion, false},
	} {
		v, release := InstallVersion(tc.candidates...)
		if v != tc.want || release != tc.release {
			t.Errorf("InstallVersion(%q) = %q, %v; want %q, %v", tc.candidates, v, release, tc.want, tc.release)
		}
	}
}

// TestInstallPackage checks that the package the workflow installs is
// this module's command.
func TestInstallPackage(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build info")
	}
	if want := bi.Main.Path + "/cmd/agent-gauntlet"; InstallPackage != want {
		t.Errorf("InstallPackage = %q, want %q", InstallPackage, want)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "cmd", "agent-gauntlet", "main.go")); err != nil {
		t.Errorf("no command at cli/cmd/agent-gauntlet: %v", err)
	}
}

func TestBranchAndFileName(t *testing.T) {
	for base, want := range map[string]string{
		"origin/main": "main", "main": "main", "origin/release/1.x": "release/1.x",
		"refs/heads/dev": "dev", "refs/remotes/origin/trunk": "trunk", "release/2.0": "release/2.0",
	} {
		if got := Branch(base); got != want {
			t.Errorf("Branch(%q) = %q, want %q", base, got, want)
		}
	}
	for dir, want := range map[string]string{".": "gauntlet.yml", "services/api": "gauntlet-services-api.yml", "web": "gauntlet-web.yml"} {
		if got := FileName(dir); got != want {
			t.Errorf("FileName(%q) = %q, want %q", dir, got, want)
		}
	} // A project deep in the repository, its name far longer than a file
	// name: the workflow's name fits, with an atomic write's temporary
	// name, and differs from a sibling's that shares its first bytes.
	deep := strings.Repeat("サービス/", 30)
	a, b := FileName(deep+"a"), FileName(deep+"b")
	if len("."+a+".4294967295.tmp") > 255 || a == b || !strings.HasPrefix(a, "gauntlet-") || !strings.HasSuffix(a, ".yml") {
		t.Errorf("FileName of two deep projects: %q, %q", a, b)
	}
}

// TestStarter checks that the starter ci.yml loads without a problem or a
// warning and lists the checks a CI run would run.
func TestStarter(t *testing.T) {
	files := map[string]string{
		".gauntlet/config.yml": `cli: {default_preference: [claude]}
entry_points:
  - {path: ., checks: [test, "odd: name"], reviews: [quality]}
  - {path: web, checks: [lint, test, local]}
`,
		".gauntlet/checks/test.yml":      "command: make test\n",
		".gauntlet/checks/odd: name.yml": "command: make odd\n",
		".gauntlet/checks/lint.yml":      "command: make lint\n",
		".gauntlet/checks/local.yml":     "command: make local\nrun_in_ci: false\n",
		".gauntlet/checks/unused.yml":    "command: make unused\n",
		".gauntlet/reviews/quality.md":   "Review it.\n",
	}
	root, cfg := project(t, files)
	if err := os.WriteFile(filepath.Join(root, ".gauntlet", "ci.yml"), Starter(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
	var names []string
	for _, g := range cfg.CI.Checks {
		names = append(names, g.Name)
	}
	if want := []string{"test", "odd: name", "lint"}; !reflect.DeepEqual(names, want) {
		t.Errorf("starter checks = %q, want %q", names, want)
	}
	if len(cfg.CI.Reviews) != 0 || !strings.Contains(string(Starter(cfg)), "# - name: quality") {
		t.Errorf("the starter opts a review in, or does not show how: %s", Starter(cfg))
	}
}
