package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// outcome is one load's result, comparable.
type outcome struct {
	cfg *Config
	err error
}

// sameOutcome reports whether a and b are the same configuration or the
// same error (its type and text).
func sameOutcome(a, b outcome) bool {
	if (a.err == nil) != (b.err == nil) {
		return false
	}
	if a.err != nil {
		return reflect.TypeOf(a.err) == reflect.TypeOf(b.err) && a.err.Error() == b.err.Error() &&
			errors.Is(a.err, ErrNotFound) == errors.Is(b.err, ErrNotFound) && reflect.DeepEqual(warningsOf(a.err), warningsOf(b.err))
	}
	return reflect.DeepEqual(a.cfg, b.cfg)
}

// warningsOf is the warnings an *Errors carries.
func warningsOf(err error) []string {
	var errs *Errors
	if errors.As(err, &errs) {
		return errs.Warnings
	}
	return nil
}

// Every level of a Project is what the load it stands for returns, in
// whatever order a command asks for the levels: one read of each file
// gives the same configuration as a fresh load, problems in the same order
// (the tracked-files problem of log_dir among config.yml's, before the
// gates' problems).
func TestProjectLevelsAgreeWithLoads(t *testing.T) {
	trees := map[string]map[string]string{
		"valid":          {".gauntlet/config.yml": guardConfig + "unknown_key: 1\n", ".gauntlet/checks/lint.yml": "command: make lint\n"},
		"config problem": {".gauntlet/config.yml": guardConfig + "max_retries: x\n", ".gauntlet/checks/lint.yml": "command: make lint\n"},
		"gate problem":   {".gauntlet/config.yml": guardConfig, ".gauntlet/checks/lint.yml": "timeout: 3\n"},
		"unknown gate":   {".gauntlet/config.yml": guardConfig},
		"tracked log_dir and problems everywhere": {
			".gauntlet/config.yml": guardConfig + "log_dir: src\nmax_retries: x\n", ".gauntlet/checks/lint.yml": "timeout: 3\n",
			".gauntlet/reviews/r.md": "---\nnum_reviews: x\n---\nReview.\n", "src/main.go": "package main\n",
		},
		"tracked log_dir only": {".gauntlet/config.yml": guardConfig + "log_dir: src\n", ".gauntlet/checks/lint.yml": "command: make lint\n", "src/main.go": ""},
		"not yaml":             {".gauntlet/config.yml": "entry_points: [\n"},
	}
	orders := [][]Reading{
		{ReadSettings, ReadGates, ReadAll},
		{ReadAll, ReadGates, ReadSettings},
		{ReadGates, ReadAll},
	}
	loads := map[Reading]func(ctx context.Context, root string) (*Config, error){
		ReadAll:      Load,
		ReadGates:    func(_ context.Context, root string) (*Config, error) { return LoadWithoutGit(root) },
		ReadSettings: func(_ context.Context, root string) (*Config, error) { return LoadProjectFile(root) },
	}
	for name, files := range trees {
		root := repo(t, files)
		for _, order := range orders {
			p, err := OpenProject(root + "/.gauntlet")
			if err != nil {
				t.Fatalf("%s: OpenProject: %v", name, err)
			}
			for _, r := range order {
				cfg, err := p.Read(t.Context(), r)
				want, werr := loads[r](t.Context(), root)
				if !sameOutcome(outcome{cfg, err}, outcome{want, werr}) {
					t.Errorf("%s, order %v: level %d = %v, %v\nwant %v, %v", name, order, r, cfg, err, want, werr)
				}
				again, aerr := p.Read(t.Context(), r)
				if again != cfg || !sameOutcome(outcome{again, aerr}, outcome{cfg, err}) {
					t.Errorf("%s: level %d read twice differs", name, r)
				}
				lp, lerr := LoadProject(t.Context(), root, r)
				if !sameOutcome(outcome{lp, lerr}, outcome{want, werr}) {
					t.Errorf("%s: LoadProject level %d = %v, %v", name, r, lp, lerr)
				}
			}
		}
	}
}

// The problems of config.yml come first, the one git finds about log_dir
// among them, then the gates' (Errors.Problems).
func TestLoadOrdersTheTrackedProblem(t *testing.T) {
	root := repo(t, map[string]string{".gauntlet/config.yml": guardConfig + "log_dir: src\nmax_retries: x\n",
		".gauntlet/checks/lint.yml": "timeout: 3\n", "src/main.go": "package main\n"})
	_, err := Load(t.Context(), root)
	var errs *Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Load = %v", err)
	}
	var fields []string
	for _, p := range errs.Problems {
		fields = append(fields, p.File+" "+p.Field)
	}
	want := []string{".gauntlet/config.yml max_retries", ".gauntlet/config.yml log_dir", ".gauntlet/checks/lint.yml command"}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("problems %q, want %q", fields, want)
	}
}

// A directory without a project has none, at every level, naming the
// directory the search started from.
func TestOpenProjectNotFound(t *testing.T) {
	dir := t.TempDir()
	_, err := OpenProject(dir)
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Dir != dir {
		t.Fatalf("OpenProject = %v", err)
	}
	if _, err := LoadProject(t.Context(), dir, ReadSettings); !errors.Is(err, ErrNotFound) {
		t.Errorf("LoadProject = %v", err)
	}
}

func TestEffective(t *testing.T) {
	cfg := &Config{BaseBranch: "origin/main"}
	tests := []struct {
		flag string
		env  map[string]string
		want string
		ci   bool
		head string
	}{
		{"", nil, "origin/main", false, ""},
		{"dev", map[string]string{"CI": "true", "GITHUB_BASE_REF": "main"}, "dev", true, ""},
		{"", map[string]string{"CI": "true", "GITHUB_BASE_REF": "main", "GITHUB_SHA": "abc"}, "main", true, "abc"},
		{"", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "release"}, "release", true, ""},
		{"", map[string]string{"GITHUB_BASE_REF": "main", "GITHUB_SHA": "abc"}, "origin/main", false, ""},
		{"", map[string]string{"CI": "1", "GITHUB_BASE_REF": "main"}, "origin/main", false, ""},
	}
	for _, tt := range tests {
		getenv := func(k string) string {
			if k == "HOME" {
				return t.TempDir()
			}
			return tt.env[k]
		}
		e := Resolve(cfg, getenv)
		if got := e.Base(tt.flag); got != tt.want || e.CI != tt.ci || e.Head != tt.head {
			t.Errorf("Resolve(%v).Base(%q) = %q (ci %v, head %q), want %q (ci %v, head %q)", tt.env, tt.flag, got, e.CI, e.Head, tt.want, tt.ci, tt.head)
		}
	}
}

// A project opened over a set of files is, at every level, the
// configuration those files load as (the loads of the same files on
// disk), whatever the work tree's .gauntlet/ now says: weakened, broken or
// gone. The paths it names outside .gauntlet/ are still judged on disk.
func TestOpenFilesIgnoresTheWorkTreesConfiguration(t *testing.T) {
	trees := map[string]map[string]string{
		"valid": {".gauntlet/config.yml": guardConfig + "max_retries: 5\nstop_hook: {enabled: true}\n",
			".gauntlet/checks/lint.yml": "command: make lint\nfix_instructions: fix.md\n", ".gauntlet/fix.md": "Fix it.\n"},
		"gate problem":       {".gauntlet/config.yml": guardConfig, ".gauntlet/checks/lint.yml": "timeout: 3\n"},
		"tracked log_dir":    {".gauntlet/config.yml": guardConfig + "log_dir: src\n", ".gauntlet/checks/lint.yml": "command: make lint\n", "src/main.go": ""},
		"config.yml problem": {".gauntlet/config.yml": guardConfig + "max_retries: x\n", ".gauntlet/checks/lint.yml": "command: make lint\n"},
	}
	work := map[string]map[string]string{
		"weakened": {"config.yml": guardConfig + "max_retries: 0\nstop_hook: {enabled: false}\n", "checks/lint.yml": "command: \"true\"\nrun_locally: false\n"},
		"broken":   {"config.yml": "entry_points: [\n"},
		"deleted":  nil,
	}
	levels := map[Reading]func(root string) (*Config, error){
		ReadAll:      func(root string) (*Config, error) { return Load(t.Context(), root) },
		ReadGates:    LoadWithoutGit,
		ReadSettings: LoadProjectFile,
	}
	for name, tree := range trees {
		root := repo(t, tree)
		want := map[Reading]outcome{}
		for r, load := range levels {
			cfg, err := load(root)
			want[r] = outcome{cfg, err}
		}
		files, err := ReadFiles(root)
		if err != nil {
			t.Fatalf("%s: ReadFiles: %v", name, err)
		}
		for wname, wtree := range work {
			if err := os.RemoveAll(filepath.Join(root, Dir)); err != nil {
				t.Fatal(err)
			}
			for rel, content := range wtree {
				mustWriteFile(t, filepath.Join(root, Dir, rel), content)
			}
			for r := range levels {
				p, err := OpenFiles(root, files)
				if err != nil {
					t.Fatalf("%s/%s: OpenFiles: %v", name, wname, err)
				}
				cfg, err := p.Read(t.Context(), r)
				if !sameOutcome(outcome{cfg, err}, want[r]) {
					t.Errorf("%s with a %s work tree: level %d = %v, %v\nwant %v, %v", name, wname, r, cfg, err, want[r].cfg, want[r].err)
				}
			}
		}
	}
	if _, err := OpenFiles(t.TempDir(), Files{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("OpenFiles of no files = %v, want not found", err)
	}
	if _, err := OpenFiles(t.TempDir(), Files{"../config.yml": nil}); err == nil {
		t.Error("OpenFiles took a path outside .gauntlet/")
	}
}

func mustWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// LogDirSettings loads exactly when every problem All finds lies outside
// config.yml or names a gate an entry point lists that does not load (the
// tracked-files problem of log_dir counts as config.yml's),
// and then its log directory and settings are Settings': a command that
// runs no gate knows where the logs are whenever config.yml alone allows.
func TestLogDirSettingsAgreesWithAll(t *testing.T) {
	trees := map[string]map[string]string{
		"valid":                 {".gauntlet/config.yml": guardConfig, ".gauntlet/checks/lint.yml": "command: make lint\n"},
		"gate problem":          {".gauntlet/config.yml": guardConfig + "log_dir: out\n", ".gauntlet/checks/lint.yml": "timeout: 3\ntimeout: 4\n"},
		"review problem":        {".gauntlet/config.yml": guardConfig, ".gauntlet/reviews/r.md": "---\nnum_reviews: x\n---\nReview.\n"},
		"unknown gate":          {".gauntlet/config.yml": guardConfig},
		"config problem":        {".gauntlet/config.yml": guardConfig + "max_retries: x\n", ".gauntlet/checks/lint.yml": "command: make lint\n"},
		"tracked log_dir":       {".gauntlet/config.yml": guardConfig + "log_dir: src\n", ".gauntlet/checks/lint.yml": "command: make lint\n", "src/main.go": ""},
		"tracked default":       {".gauntlet/config.yml": guardConfig, ".gauntlet/checks/lint.yml": "command: make lint\n", DefaultLogDir + "/a.log": ""},
		"absolute log_dir":      {".gauntlet/config.yml": guardConfig + "log_dir: /var/log/x\n", ".gauntlet/checks/lint.yml": "command: make lint\n"},
		"not yaml":              {".gauntlet/config.yml": "entry_points: [\n"},
		"duplicate key":         {".gauntlet/config.yml": guardConfig + "log_dir: a\nlog_dir: b\n"},
		"empty":                 {".gauntlet/config.yml": ""},
		"gate problem, no gate": {".gauntlet/config.yml": guardConfig, ".gauntlet/checks/other.yml": "command: [\n"},
	}
	for name, files := range trees {
		root := repo(t, files)
		p, err := OpenProject(root)
		if err != nil {
			t.Fatalf("%s: OpenProject: %v", name, err)
		}
		_, allErr := p.All(t.Context())
		var errs *Errors
		ofConfig := false
		if errors.As(allErr, &errs) {
			for _, pr := range errs.Problems {
				gateRef := strings.Contains(pr.Message, "unknown check gate") || strings.Contains(pr.Message, "unknown review gate")
				ofConfig = ofConfig || pr.File == filepath.Join(Dir, ProjectFile) && !gateRef
			}
		}
		cfg, err := p.LogDirSettings(t.Context())
		if (err != nil) != ofConfig {
			t.Errorf("%s: LogDirSettings = %v; All = %v", name, err, allErr)
			continue
		}
		if err != nil {
			continue
		}
		settings, serr := p.Settings()
		if serr != nil || cfg.LogDir != settings.LogDir || cfg.LogDirPath() != settings.LogDirPath() || len(cfg.Checks) != 0 {
			t.Errorf("%s: LogDirSettings log dir %q, Settings %v, %v", name, cfg.LogDir, settings, serr)
		}
	}
}
