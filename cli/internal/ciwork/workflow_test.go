package ciwork

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// updateGolden is the environment variable that rewrites the golden files
// (the same one the testscript suite uses for its scripts).
const updateGolden = "GAUNTLET_UPDATE_GOLDEN"

// shape is a project whose workflow is pinned by a golden file.
type shape struct {
	name  string
	files map[string]string // relative path → content; "dir/" makes a directory
	opts  WorkflowOptions   // CI is filled from the loaded project
	// dir is the project root inside the repository ("" for the top).
	dir string
}

const shapeConfig = `cli:
  default_preference: [claude, codex]
entry_points:
  - path: packages/*
    checks: [lint, test]
    reviews: [quality]
  - path: .
    checks: [lint, docs]
    reviews: [security]
`

// shapes are the ci.yml shapes the golden workflows cover.
func shapes() []shape {
	gates := map[string]string{
		".gauntlet/config.yml":          shapeConfig,
		".gauntlet/checks/lint.yml":     "command: make lint\n",
		".gauntlet/checks/test.yml":     "command: make test\nworking_directory: .\n",
		".gauntlet/checks/docs.yml":     "command: make docs\nrun_in_ci: false\n",
		".gauntlet/reviews/quality.md":  "Review it.\n",
		".gauntlet/reviews/security.md": "Review it.\n",
		"packages/api/":                 "",
		"packages/web/":                 "",
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range gates {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	release := WorkflowOptions{Version: "v1.2.3", Release: true, WrittenBy: "v1.2.3", Branch: "main"}
	return []shape{
		{name: "starter", files: with(nil), opts: WorkflowOptions{Version: LatestVersion, WrittenBy: "dev", Branch: "main"}},
		{name: "services", opts: release, files: with(map[string]string{".gauntlet/ci.yml": `runtimes:
  node: {version: "22"}
  ruby: {version: "3.3", bundler_cache: true}
  java: {version: "21"}
services:
  postgres:
    image: postgres:16
    env: {POSTGRES_PASSWORD: postgres, POSTGRES_DB: app}
    ports: ["5432:5432"]
    health_check: {cmd: pg_isready -U postgres, interval: 10s, timeout: 5s, retries: 5}
  redis:
    image: redis:7
    ports: [6379]
    credentials: {username: bot, password: "${{ secrets.REGISTRY_PASSWORD }}"}
setup:
  - name: Install tools
    run: make tools
checks:
  - name: test
    requires_runtimes: [ruby, java]
    requires_services: [postgres, redis]
    setup:
      - name: Database
        run: |
          createdb app
          make migrate
        working_directory: db
        if: test -d db
  - name: lint
    requires_runtimes: [node]
    secrets: [SONAR_TOKEN]
`})},
		{name: "reviews", opts: release, files: with(map[string]string{".gauntlet/ci.yml": `runtimes:
  node: {version: "22"}
checks:
  - name: lint
reviews:
  - name: quality
    requires_runtimes: [node]
    secrets: [ANTHROPIC_API_KEY]
    setup:
      - name: Install Claude Code
        run: npm install -g @anthropic-ai/claude-code
  - name: security
    requires_runtimes: [node]
    secrets: [OPENAI_API_KEY, ANTHROPIC_API_KEY]
    setup:
      - name: Install Codex
        run: npm install -g @openai/codex
`})},
		{name: "subdir", dir: "services/api", opts: WorkflowOptions{Version: "v2.0.0-rc.1", Release: true, WrittenBy: "v2.0.0-rc.1", Branch: "develop"},
			files: with(map[string]string{".gauntlet/ci.yml": "runtimes:\n  python: {version: \"3.12\"}\n  go: {version: \"1.25\"}\n  bun: {version: latest}\nchecks:\n  - name: lint\n    requires_runtimes: [python, go, bun]\n  - name: test\n"})},
	}
}

// load writes the shape into a new repository and loads its project.
func (s shape) load(t *testing.T) (root string, cfg *config.Config) {
	t.Helper()
	top := t.TempDir()
	if err := os.Mkdir(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	root = top
	if s.dir != "" {
		root = filepath.Join(top, filepath.FromSlash(s.dir))
	}
	files := s.files
	if _, ok := files[".gauntlet/ci.yml"]; !ok {
		cfg0 := loadFiles(t, root, files)
		files = map[string]string{".gauntlet/ci.yml": string(Starter(cfg0))}
	}
	return root, loadFiles(t, root, files)
}

func loadFiles(t *testing.T, root string, files map[string]string) *config.Config {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(t.Context(), root)
	if err != nil {
		t.Fatalf("load %s: %v", root, err)
	}
	return cfg
}

// workflow generates the shape's workflow.
func (s shape) workflow(t *testing.T, cfg *config.Config) []byte {
	t.Helper()
	opts := s.opts
	opts.CI = cfg.CI
	opts.ProjectDir = "."
	if s.dir != "" {
		opts.ProjectDir = s.dir
	}
	out, err := Workflow(opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWorkflowGolden(t *testing.T) {
	for _, s := range shapes() {
		t.Run(s.name, func(t *testing.T) {
			_, cfg := s.load(t)
			got := s.workflow(t, cfg)
			golden := filepath.Join("testdata", s.name+".yml")
			if os.Getenv(updateGolden) != "" {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (set %s=1 to write it)", err, updateGolden)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("workflow differs from %s (set %s=1 to update):\n%s", golden, updateGolden, got)
			}
			if again := s.workflow(t, cfg); !bytes.Equal(again, got) {
				t.Errorf("a second generation differs from the first")
			}
			if Owner(got) != Generated {
				t.Errorf("the generated workflow is not recognized as generated")
			}
		})
	}
}

// TestWorkflowActionlint lints every generated workflow with actionlint
// (its library, in-process): syntax, expressions and their types, job
// needs and outputs, and shellcheck on every run script when shellcheck is
// installed. The actions are pinned to commits, whose inputs actionlint
// does not know; the same workflow with each pin replaced by its major
// tag is linted too, so every `with:` input is checked against the
// action's metadata.
func TestWorkflowActionlint(t *testing.T) {
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Log("shellcheck is not installed: run scripts are not shellchecked")
		shellcheck = ""
	}
	for _, s := range shapes() {
		t.Run(s.name, func(t *testing.T) {
			_, cfg := s.load(t)
			content := s.workflow(t, cfg)
			lint(t, "pinned", content, shellcheck)
			lint(t, "major tags", majorTags(t, content), "")
		})
	}
}

func lint(t *testing.T, what string, content []byte, shellcheck string) {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{Shellcheck: shellcheck, WorkingDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(".github/workflows/gauntlet.yml", content, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("actionlint (%s): %s", what, e)
	}
}

// majorTags replaces every pinned action of the table by its major tag.
func majorTags(t *testing.T, content []byte) []byte {
	t.Helper()
	out := string(content)
	for _, a := range pinnedActions() {
		if a.SHA == "" {
			continue
		}
		major := strings.SplitN(a.Version, ".", 2)[0]
		out = strings.ReplaceAll(out, a.Uses(), a.Repo+"@"+major)
	}
	return []byte(out)
}

// uploadSARIFInputs are the inputs of github/codeql-action/upload-sarif
// v4 (its action.yml), which actionlint does not know.
var uploadSARIFInputs = []string{"sarif_file", "checkout_path", "ref", "sha", "token", "matrix", "category", "wait-for-processing"}

// TestUploadSARIFInputs checks the upload-sarif step's inputs, and that it
// reads the file the run step writes.
func TestUploadSARIFInputs(t *testing.T) {
	for _, s := range shapes() {
		_, cfg := s.load(t)
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Uses string            `yaml:"uses"`
					With map[string]string `yaml:"with"`
					Run  string            `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(s.workflow(t, cfg), &wf); err != nil {
			t.Fatal(err)
		}
		for name, job := range wf.Jobs {
			if name == jobDiscover {
				continue
			}
			uploads, runs := 0, 0
			for _, st := range job.Steps {
				if strings.Contains(st.Run, `--sarif "$GAUNTLET_REPORTS/`+sarifFile+`"`) {
					runs++
				}
				if st.Uses != actionUploadSARIF.Uses() {
					continue
				}
				uploads++
				for k := range st.With {
					if !slices.Contains(uploadSARIFInputs, k) {
						t.Errorf("%s/%s: upload-sarif has no input %q", s.name, name, k)
					}
				}
				if st.With["sarif_file"] != reportsPath(sarifFile) {
					t.Errorf("%s/%s: sarif_file %q", s.name, name, st.With["sarif_file"])
				}
			}
			if uploads != 1 || runs != 1 {
				t.Errorf("%s/%s: %d upload-sarif steps, %d runs writing the SARIF file", s.name, name, uploads, runs)
			}
		}
	}
}

func TestPinnedActions(t *testing.T) {
	sha := regexp.MustCompile(`^[0-9a-f]{40}$`)
	version := regexp.MustCompile(`^v\d+(\.\d+\.\d+)?$`)
	for _, a := range pinnedActions() {
		if a.SHA != "" && !sha.MatchString(a.SHA) {
			t.Errorf("%s: %q is not a full commit SHA", a.Repo, a.SHA)
		}
		if !version.MatchString(a.Version) {
			t.Errorf("%s: %q is not a release tag", a.Repo, a.Version)
		}
	}
	for _, name := range config.CIRuntimes() {
		if _, ok := runtimeSetups[name]; !ok {
			t.Errorf("runtime %q has no setup step", name)
		}
	}
	if len(runtimeSetups) != len(config.CIRuntimes()) {
		t.Errorf("runtimeSetups has %d entries for %d runtimes", len(runtimeSetups), len(config.CIRuntimes()))
	}
}

// TestWorkflowReadsListJobs checks that what the workflow reads is what
// list-jobs writes: the discover job's outputs are the lines
// `ci list-jobs --github-output` writes, the matrix of each gate job is the
// list-jobs array it names, every matrix.job field a job reads is a field
// of every job, every runtime it reads is one ci.yml may define, and every
// service it starts is one a job can require.
func TestWorkflowReadsListJobs(t *testing.T) {
	for _, s := range shapes() {
		t.Run(s.name, func(t *testing.T) {
			root, cfg := s.load(t)
			var wf struct {
				Jobs map[string]yaml.Node `yaml:"jobs"`
			}
			content := s.workflow(t, cfg)
			if err := yaml.Unmarshal(content, &wf); err != nil {
				t.Fatal(err)
			}
			jobs := List(root, cfg)
			outputs := githubOutputs(t, jobs)

			var discover struct {
				Outputs map[string]string `yaml:"outputs"`
				Steps   []struct {
					ID  string `yaml:"id"`
					Run string `yaml:"run"`
				} `yaml:"steps"`
			}
			decodeNode(t, wf.Jobs[jobDiscover], &discover)
			if !reflect.DeepEqual(keys(discover.Outputs), sortedCopy(Outputs())) {
				t.Errorf("discover outputs %v, want %v", keys(discover.Outputs), Outputs())
			}
			for name, value := range discover.Outputs {
				if want := expr("steps." + stepJobs + ".outputs." + name); value != want {
					t.Errorf("discover output %s = %q, want %q", name, value, want)
				}
			}
			i := slices.IndexFunc(discover.Steps, func(st struct {
				ID  string `yaml:"id"`
				Run string `yaml:"run"`
			}) bool {
				return st.ID == stepJobs
			})
			if i < 0 || discover.Steps[i].Run != `agent-gauntlet ci list-jobs --github-output "$GITHUB_OUTPUT"` {
				t.Fatalf("no step %q running list-jobs --github-output: %+v", stepJobs, discover.Steps)
			}

			for job, list := range map[string][]Job{jobChecks: jobs.Matrix, jobReviews: jobs.Reviews} {
				node, ok := wf.Jobs[job]
				if !ok {
					if job == jobReviews && len(jobs.Reviews) == 0 {
						continue
					}
					t.Fatalf("no %s job, yet list-jobs lists %d", job, len(list))
				}
				checkGateJob(t, job, node, list, outputs, jobs)
			}
		})
	}
}

// checkGateJob checks one matrix job of the workflow against list-jobs.
func checkGateJob(t *testing.T, name string, node yaml.Node, list []Job, outputs map[string]string, jobs Jobs) {
	t.Helper()
	var job struct {
		Strategy struct {
			FailFast bool              `yaml:"fail-fast"`
			Matrix   map[string]string `yaml:"matrix"`
		} `yaml:"strategy"`
	}
	decodeNode(t, node, &job)
	if job.Strategy.FailFast {
		t.Errorf("%s: fail-fast is true", name)
	}
	m := regexp.MustCompile(`^\$\{\{ fromJson\(needs\.` + jobDiscover + `\.outputs\.(\w+)\) \}\}$`).FindStringSubmatch(job.Strategy.Matrix[matrixJob])
	if m == nil {
		t.Fatalf("%s: matrix %q does not read a discover output", name, job.Strategy.Matrix)
	}
	var fromWorkflow, fromList any
	if err := json.Unmarshal([]byte(outputs[m[1]]), &fromWorkflow); err != nil {
		t.Fatalf("%s: output %s: %v", name, m[1], err)
	}
	b, _ := json.Marshal(list)
	_ = json.Unmarshal(b, &fromList)
	if !reflect.DeepEqual(fromWorkflow, fromList) {
		t.Errorf("%s: the matrix the workflow reads differs from list-jobs:\n%v\n%v", name, fromWorkflow, fromList)
	}

	text, err := yaml.Marshal(&node)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range regexp.MustCompile(`matrix\.`+matrixJob+`\.(\w+)`).FindAllStringSubmatch(string(text), -1) {
		for _, entry := range fromWorkflow.([]any) {
			if _, ok := entry.(map[string]any)[f[1]]; !ok {
				t.Errorf("%s reads matrix.job.%s, which job %v lacks", name, f[1], entry.(map[string]any)["id"])
			}
		}
	}
	for _, f := range regexp.MustCompile(`needs\.`+jobDiscover+`\.outputs\.(\w+)`).FindAllStringSubmatch(string(text), -1) {
		if !slices.Contains(Outputs(), f[1]) {
			t.Errorf("%s reads the unknown discover output %s", name, f[1])
		}
	}
	var runtimes map[string]map[string]any
	if err := json.Unmarshal([]byte(outputs[outputRuntimes]), &runtimes); err != nil {
		t.Fatal(err)
	}
	for _, f := range regexp.MustCompile(`outputs\.`+outputRuntimes+`\)\.(\w+)\.(\w+)`).FindAllStringSubmatch(string(text), -1) {
		if !slices.Contains(config.CIRuntimes(), f[1]) {
			t.Errorf("%s sets up the unknown runtime %s", name, f[1])
		}
		if rt, ok := runtimes[f[1]]; ok && f[2] == "version" && rt["version"] == nil {
			t.Errorf("%s reads %s.version, which list-jobs lacks", name, f[1])
		}
	}
	for _, e := range list {
		for _, svc := range e.Services {
			if !strings.Contains(string(text), fmt.Sprintf("contains(matrix.job.services, '%s')", svc)) {
				t.Errorf("%s: job %s requires service %s, which the workflow does not start", name, e.ID, svc)
			}
			if _, ok := jobs.Services[svc]; !ok {
				t.Errorf("job %s requires service %s, which list-jobs lacks", e.ID, svc)
			}
		}
	}
}

// githubOutputs runs WriteGitHubOutput and parses its name=value lines.
func githubOutputs(t *testing.T, jobs Jobs) map[string]string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteGitHubOutput(&b, jobs); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("output line %q has no =", line)
		}
		out[k] = v
	}
	return out
}

func decodeNode(t *testing.T, n yaml.Node, v any) {
	t.Helper()
	if err := n.Decode(v); err != nil {
		t.Fatal(err)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func TestOwner(t *testing.T) {
	body := []byte("name: x\n")
	generated := stamp(body)
	edited := append(slices.Clone(generated), "# mine\n"...)
	for _, tc := range []struct {
		name    string
		content []byte
		want    Ownership
	}{
		{"generated", generated, Generated},
		{"edited", edited, Edited},
		{"marker not first", append([]byte("# x\n"), generated...), Foreign},
		{"no marker", body, Foreign},
		{"empty", nil, Foreign},
		{"marker line removed", body, Foreign},
	} {
		if got := Owner(tc.content); got != tc.want {
			t.Errorf("%s: Owner = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestInstallWorkflow(t *testing.T) {
	content, err := Workflow(WorkflowOptions{Version: LatestVersion, WrittenBy: "dev", Branch: "main", ProjectDir: "."})
	if err != nil {
		t.Fatal(err)
	}
	newer := stamp([]byte("name: a newer workflow\n"))
	top := t.TempDir()
	path := filepath.Join(top, ".github", "workflows", "gauntlet.yml")
	steps := []struct {
		name    string
		content []byte
		force   bool
		prepare func() error
		want    Result
		wantErr string
	}{
		{name: "created", content: content, want: Created},
		{name: "unchanged", content: content, want: Unchanged},
		{name: "regenerated", content: newer, want: Updated},
		{name: "edited is kept", content: content, prepare: func() error { return appendFile(path, "# my edit\n") },
			wantErr: "it was edited since agent-gauntlet ci init wrote it"},
		{name: "edited with force", content: content, force: true, want: Replaced},
		{name: "foreign is kept", content: content, prepare: func() error { return os.WriteFile(path, []byte("name: mine\n"), 0o644) },
			wantErr: "agent-gauntlet ci init did not write it"},
		{name: "foreign with force", content: content, force: true, want: Replaced},
		{name: "symlink is refused even with force", content: content, force: true, prepare: func() error {
			if err := os.Remove(path); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(top, "elsewhere.yml"), path)
		}, wantErr: "not a regular file"},
	}
	for _, st := range steps {
		if st.prepare != nil {
			if err := st.prepare(); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		before, _ := os.ReadFile(path)
		got, err := InstallWorkflow(top, path, st.content, st.force)
		if st.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), st.wantErr) {
				t.Fatalf("%s: err = %v, want %q", st.name, err, st.wantErr)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Fatalf("%s: the refused file changed", st.name)
			}
			continue
		}
		if err != nil || got != st.want {
			t.Fatalf("%s: InstallWorkflow = %v, %v; want %v", st.name, got, err, st.want)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, st.content) {
			t.Fatalf("%s: the file does not hold the workflow", st.name)
		}
	}
	if _, err := os.Stat(filepath.Join(top, "elsewhere.yml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the workflow was written through the symlink")
	}

	t.Run("symlinked .github", func(t *testing.T) {
		top := t.TempDir()
		outside := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(top, ".github")); err != nil {
			t.Fatal(err)
		}
		_, err := InstallWorkflow(top, filepath.Join(top, ".github", "workflows", "gauntlet.yml"), content, true)
		if err == nil || !strings.Contains(err.Error(), "it is a symbolic link, not a directory") {
			t.Errorf("err = %v", err)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Errorf("wrote outside the repository: %v", entries)
		}
	})
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
