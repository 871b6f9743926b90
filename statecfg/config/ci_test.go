package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// ciProject is a project whose gates ci.yml can refer to: checks lint and
// test, an unused check, a check with run_in_ci false, and a review.
func ciProject(t *testing.T, ciYML string) string {
	t.Helper()
	files := map[string]string{
		".gauntlet/config.yml": `cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint, test, local]
    reviews: [quality]
`,
		".gauntlet/checks/lint.yml":    "command: make lint\n",
		".gauntlet/checks/test.yml":    "command: make test\n",
		".gauntlet/checks/unused.yml":  "command: make unused\n",
		".gauntlet/checks/local.yml":   "command: make local\nrun_in_ci: false\n",
		".gauntlet/reviews/quality.md": "Review it.\n",
	}
	if ciYML != "" {
		files[".gauntlet/ci.yml"] = ciYML
	}
	return writeTree(t, files)
}

func TestLoadCIAbsent(t *testing.T) {
	cfg, err := Load(t.Context(), ciProject(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CI != nil {
		t.Errorf("CI = %#v, want nil without ci.yml", cfg.CI)
	}
	if cfg.CI.RunsReview("quality") {
		t.Errorf("a nil CI opts a review in")
	}
}

func TestLoadCIEveryField(t *testing.T) {
	cfg, err := Load(t.Context(), ciProject(t, `runtimes:
  node:
    version: "20"
  ruby:
    version: "3.3"
    bundler_cache: true
  java:
    version: "21"
    distribution: zulu
services:
  postgres:
    image: postgres:16
    env:
      POSTGRES_PASSWORD: postgres
      POSTGRES_PORT: 5432
    ports: [5432, "6543:5432"]
    volumes: [/tmp/data:/data]
    options: --shm-size 1g
    credentials: {username: me, password: "${{ secrets.REGISTRY_PASSWORD }}"}
    health_check:
      cmd: pg_isready -U postgres
      interval: 10s
      timeout: 5s
      retries: 5
setup:
  - name: Install tools
    run: make tools
    working_directory: tools
    if: test -f tools/Makefile
checks:
  - name: lint
    requires_runtimes: [node]
    secrets: [SONAR_TOKEN]
  - name: test
    requires_runtimes: [ruby, java]
    requires_services: [postgres]
    setup:
      - name: Database
        run: make db
reviews:
  - name: quality
    requires_runtimes: [node]
    secrets: [ANTHROPIC_API_KEY]
    setup:
      - name: Install Claude Code
        run: npm install -g @anthropic-ai/claude-code
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
	want := &CI{
		File: ".gauntlet/ci.yml",
		Runtimes: []CIRuntime{
			{Name: "java", Version: "21", Raw: map[string]any{"version": "21", "distribution": "zulu"}},
			{Name: "node", Version: "20", Raw: map[string]any{"version": "20"}},
			{Name: "ruby", Version: "3.3", Raw: map[string]any{"version": "3.3", "bundler_cache": true}},
		},
		Services: []CIService{{
			Name:        "postgres",
			Image:       "postgres:16",
			Env:         map[string]string{"POSTGRES_PASSWORD": "postgres", "POSTGRES_PORT": "5432"},
			Ports:       []string{"5432", "6543:5432"},
			Volumes:     []string{"/tmp/data:/data"},
			Options:     `--shm-size 1g --health-cmd "pg_isready -U postgres" --health-interval 10s --health-timeout 5s --health-retries 5`,
			Credentials: &CICredentials{Username: "me", Password: "${{ secrets.REGISTRY_PASSWORD }}"},
		}},
		Setup: []CISetupStep{{Name: "Install tools", Run: "make tools", WorkingDirectory: "tools", If: "test -f tools/Makefile"}},
		Checks: []CIGate{
			{Name: "lint", RequiresRuntimes: []string{"node"}, Secrets: []string{"SONAR_TOKEN"}},
			{Name: "test", RequiresRuntimes: []string{"ruby", "java"}, RequiresServices: []string{"postgres"},
				Setup: []CISetupStep{{Name: "Database", Run: "make db"}}},
		},
		Reviews: []CIGate{{Name: "quality", RequiresRuntimes: []string{"node"}, Secrets: []string{"ANTHROPIC_API_KEY"},
			Setup: []CISetupStep{{Name: "Install Claude Code", Run: "npm install -g @anthropic-ai/claude-code"}}}},
	}
	got := *cfg.CI
	got.Services = append([]CIService(nil), got.Services...)
	for i := range got.Services {
		got.Services[i].Raw = nil // the raw mapping is what the file says, checked below
	}
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("CI =\n%#v\nwant\n%#v", &got, want)
	}
	if img := cfg.CI.Services[0].Raw["image"]; img != "postgres:16" {
		t.Errorf("service Raw[image] = %v", img)
	}
	if !cfg.CI.RunsReview("quality") || cfg.CI.RunsReview("lint") {
		t.Errorf("RunsReview: quality %v, lint %v", cfg.CI.RunsReview("quality"), cfg.CI.RunsReview("lint"))
	}
	if g, ok := cfg.CI.Check("test"); !ok || g.Name != "test" {
		t.Errorf("Check(test) = %v, %v", g, ok)
	}
}

func TestLoadCIEmptyAndNullSections(t *testing.T) {
	// The starter file of upstream's `ci init`: every section present and null.
	cfg, err := Load(t.Context(), ciProject(t, "runtimes:\nservices:\nsetup:\nchecks:\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CI == nil || len(cfg.CI.Checks)+len(cfg.CI.Runtimes)+len(cfg.CI.Services)+len(cfg.CI.Setup) != 0 {
		t.Errorf("CI = %#v, want an empty CI", cfg.CI)
	}
}

func TestLoadCIProblems(t *testing.T) {
	for _, tc := range []struct {
		name, ciYML string
		problems    []string
	}{
		{"not YAML", "checks: [\n", []string{".gauntlet/ci.yml: invalid YAML: line 1: did not find expected node content"}},
		{"not a mapping", "- a\n", []string{".gauntlet/ci.yml: must be a YAML mapping of keys to values"}},
		{"checks not a list", "checks: lint\n", []string{".gauntlet/ci.yml: checks: must be a list"}},
		{"gate without name", "checks:\n  - requires_runtimes: []\n", []string{".gauntlet/ci.yml: checks[0].name: is required"}},
		{"gate name not a string", "checks:\n  - name: [lint]\n", []string{".gauntlet/ci.yml: checks[0].name: must be a string"}},
		{"runtime without version", "runtimes:\n  node: {}\n", []string{".gauntlet/ci.yml: runtimes.node.version: is required"}},
		{"runtime version a number", "runtimes:\n  python:\n    version: 3.10\n",
			[]string{`.gauntlet/ci.yml: runtimes.python.version: must be a quoted string such as "3.10" (YAML reads an unquoted version as a number: 3.10 is 3.1)`}},
		{"runtime not a mapping", "runtimes:\n  node: \"20\"\n", []string{".gauntlet/ci.yml: runtimes.node: must be a mapping"}},
		{"service without image", "services:\n  db: {ports: [5432]}\n", []string{".gauntlet/ci.yml: services.db.image: is required"}},
		{"service bad name", "services:\n  \"my db\": {image: postgres}\n", []string{".gauntlet/ci.yml: services.my db: service name must be letters, digits, '-' and '_', starting with a letter or '_'"}},
		{"service env not scalar", "services:\n  db:\n    image: postgres\n    env: {A: [1]}\n", []string{".gauntlet/ci.yml: services.db.env.A: must be a string, a number or true/false"}},
		{"service port a bool", "services:\n  db:\n    image: postgres\n    ports: [true]\n", []string{".gauntlet/ci.yml: services.db.ports[0]: must be a non-empty string or number"}},
		{"health cmd with a quote", "services:\n  db:\n    image: postgres\n    health_check: {cmd: 'echo \"x\"'}\n",
			[]string{".gauntlet/ci.yml: services.db.health_check.cmd: must not contain a double quote or a line break (it is passed to docker in double quotes)"}},
		{"setup step without run", "setup:\n  - name: Tools\n", []string{".gauntlet/ci.yml: setup[0].run: is required"}},
		{"setup step name on two lines", "setup:\n  - name: \"a\\nb\"\n    run: x\n", []string{".gauntlet/ci.yml: setup[0].name: must be one line"}},
		{"setup step outside the root", "setup:\n  - {name: a, run: x, working_directory: ../up}\n",
			[]string{`.gauntlet/ci.yml: setup[0].working_directory: must stay inside the project root ("../up" leads out of it)`}},
		{"setup if an expression", "checks:\n  - name: lint\n    setup:\n      - {name: a, run: x, if: \"${{ github.event_name == 'push' }}\"}\n",
			[]string{`.gauntlet/ci.yml: checks[0].setup[0].if: must be a shell condition (the step runs when it exits 0), not a GitHub expression: test environment variables instead, as in [ "$GITHUB_EVENT_NAME" = push ]`}},
		{"undefined runtime", "checks:\n  - name: lint\n    requires_runtimes: [node]\n",
			[]string{`.gauntlet/ci.yml: checks[0].requires_runtimes[0]: runtime "node" is not defined under runtimes`}},
		{"undefined service", "reviews:\n  - name: quality\n    requires_services: [db]\n",
			[]string{`.gauntlet/ci.yml: reviews[0].requires_services[0]: service "db" is not defined under services`}},
		{"bad secret names", "reviews:\n  - name: quality\n    secrets: [1KEY, GITHUB_TOKEN, \"\"]\n", []string{
			`.gauntlet/ci.yml: reviews[0].secrets[2]: must be a non-empty string`,
			`.gauntlet/ci.yml: reviews[0].secrets[0]: secret name "1KEY" must be letters, digits and '_', not starting with a digit`,
			`.gauntlet/ci.yml: reviews[0].secrets[1]: secret name "GITHUB_TOKEN" may not start with GITHUB_ (GitHub reserves the prefix)`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(t.Context(), ciProject(t, tc.ciYML))
			var errs *Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Load error = %v, want *Errors", err)
			}
			if got := errs.Lines(); !reflect.DeepEqual(got, tc.problems) {
				t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.problems, "\n"))
			}
		})
	}
}

func TestLoadCIWarnings(t *testing.T) {
	cfg, err := Load(t.Context(), ciProject(t, `runtimes:
  elixir: {version: "1.16"}
  node: {version: "20", cache: npm}
checks:
  - name: lint
  - name: lint
  - name: lnit
  - name: local
  - name: unused
  - name: quality
reviews:
  - name: lint
extra: true
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`.gauntlet/ci.yml: runtimes.elixir: no setup action for runtime "elixir" in the generated workflow (known: node, python, go, java, ruby, bun): install it in a setup step`,
		`.gauntlet/ci.yml: runtimes.node: unknown key "cache" (ignored)`,
		`.gauntlet/ci.yml: checks[1].name: check gate "lint" is listed twice (the first entry is used)`,
		`.gauntlet/ci.yml: checks[2].name: no check gate "lnit" in .gauntlet/checks (ignored)`,
		`.gauntlet/ci.yml: checks[3].name: check gate "local" has run_in_ci: false, so it does not run in CI`,
		`.gauntlet/ci.yml: checks[4].name: no entry point runs the check gate "unused", so no CI job runs it`,
		`.gauntlet/ci.yml: checks[5].name: no check gate "quality" in .gauntlet/checks (ignored)`,
		`.gauntlet/ci.yml: reviews[0].name: no review gate "lint" in .gauntlet/reviews (ignored)`,
		`.gauntlet/ci.yml: unknown key "extra" (ignored)`,
	}
	if !reflect.DeepEqual(cfg.Warnings, want) {
		t.Errorf("warnings =\n%s\nwant\n%s", strings.Join(cfg.Warnings, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadCIReportedWithTheOtherFiles(t *testing.T) {
	// Every file's problems at once: a broken check and a broken ci.yml.
	root := ciProject(t, "checks:\n  - name: lint\n    requires_services: [db]\n")
	if err := os.WriteFile(filepath.Join(root, ".gauntlet/checks/test.yml"), []byte("command: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(t.Context(), root)
	var errs *Errors
	if !errors.As(err, &errs) || len(errs.Problems) != 2 {
		t.Fatalf("Load error = %v, want two problems", err)
	}
	if errs.Problems[0].File != ".gauntlet/checks/test.yml" || errs.Problems[1].File != ".gauntlet/ci.yml" {
		t.Errorf("problem files = %q, %q", errs.Problems[0].File, errs.Problems[1].File)
	}
}

func TestLoadCIOnlyRegularFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "is a directory, not a regular file"},
		{"fifo", fifotest.Make, "is a named pipe (FIFO), not a regular file"},
		{"symlink to a directory", func(p string) error { return os.Symlink(".", p) }, "is a directory, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := ciProject(t, "")
			if err := tc.make(filepath.Join(root, ".gauntlet", "ci.yml")); err != nil {
				t.Skip(err)
			}
			_, err := Load(t.Context(), root) // a FIFO read would block here forever
			var errs *Errors
			if !errors.As(err, &errs) || len(errs.Problems) != 1 || errs.Problems[0].String() != ".gauntlet/ci.yml: "+tc.want {
				t.Errorf("Load error = %v", err)
			}
		})
	}
	t.Run("dangling symlink", func(t *testing.T) {
		root := ciProject(t, "")
		if err := os.Symlink("missing.yml", filepath.Join(root, ".gauntlet", "ci.yml")); err != nil {
			t.Fatal(err)
		}
		_, err := Load(t.Context(), root)
		var errs *Errors
		if !errors.As(err, &errs) || len(errs.Problems) != 1 || errs.Problems[0].String() != ".gauntlet/ci.yml: is a symbolic link to a missing file" {
			t.Errorf("Load error = %v", err)
		}
	})
	t.Run("symlink to a file", func(t *testing.T) {
		root := ciProject(t, "")
		if err := os.WriteFile(filepath.Join(root, "shared-ci.yml"), []byte("checks: [{name: lint}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../shared-ci.yml", filepath.Join(root, ".gauntlet", "ci.yml")); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(t.Context(), root)
		if err != nil || cfg.CI == nil || len(cfg.CI.Checks) != 1 {
			t.Errorf("Load = %v, %v", cfg, err)
		}
	})
}

// FuzzLoadCI loads a project whose ci.yml is fuzzed. Whatever it holds,
// Load must not panic; every problem and warning is one line naming a file;
// on success every gate of ci.yml has a name, every runtime a version and
// every service an image, and every required runtime and service is
// defined. The seed corpus is in testdata/fuzz/FuzzLoadCI.
func FuzzLoadCI(f *testing.F) {
	f.Add("runtimes:\n  node: {version: \"20\"}\nservices:\n  db: {image: postgres, health_check: {cmd: pg_isready}}\nsetup: [{name: a, run: b}]\nchecks: [{name: lint, requires_runtimes: [node], requires_services: [db]}]\nreviews: [{name: quality, secrets: [KEY]}]\n")
	f.Add("services:\n  \"a\\nb\": {image: x, env: {\"c\\nd\": [1]}}\n")
	f.Fuzz(func(t *testing.T, ciYML string) {
		root := ciProject(t, "")
		if err := os.WriteFile(filepath.Join(root, Dir, CIFile), []byte(ciYML), 0o644); err != nil {
			t.Fatal(err)
		}
		files := []string{ciFileRel()}
		cfg, err := Load(t.Context(), root)
		if err != nil {
			var errs *Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Load error %T is not *Errors: %v", err, err)
			}
			for _, p := range errs.Problems {
				checkProblemLine(t, "problem", p.String(), files)
			}
			for _, w := range errs.Warnings {
				checkProblemLine(t, "warning", w, files)
			}
			return
		}
		for _, w := range cfg.Warnings {
			checkProblemLine(t, "warning", w, files)
		}
		if cfg.CI == nil {
			t.Fatal("ci.yml exists, yet Config.CI is nil")
		}
		defined := map[string]bool{}
		for _, r := range cfg.CI.Runtimes {
			if r.Version == "" {
				t.Errorf("runtime %q accepted without a version", r.Name)
			}
			defined["runtime "+r.Name] = true
		}
		for _, s := range cfg.CI.Services {
			if s.Image == "" {
				t.Errorf("service %q accepted without an image", s.Name)
			}
			defined["service "+s.Name] = true
		}
		for _, g := range append(append([]CIGate{}, cfg.CI.Checks...), cfg.CI.Reviews...) {
			if g.Name == "" {
				t.Errorf("gate accepted without a name: %#v", g)
			}
			for _, r := range g.RequiresRuntimes {
				if !defined["runtime "+r] {
					t.Errorf("gate %q requires undefined runtime %q", g.Name, r)
				}
			}
			for _, s := range g.RequiresServices {
				if !defined["service "+s] {
					t.Errorf("gate %q requires undefined service %q", g.Name, s)
				}
			}
		}
	})
}
