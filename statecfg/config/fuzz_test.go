package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files FuzzLoad writes, relative to the project root.
var (
	fuzzConfigRel = filepath.Join(Dir, ProjectFile)
	fuzzCheckRel  = filepath.Join(Dir, ChecksDir, "lint.yml")
	fuzzReviewRel = filepath.Join(Dir, ReviewsDir, "quality.md")
)

// FuzzLoad loads a .gauntlet/ made of a fuzzed config.yml, one fuzzed check
// file and one fuzzed review file. Whatever the contents, Load must not
// panic; on failure it returns *Errors whose every problem is one line
// naming one of the three files, and on success a configuration whose
// warnings are one line each, naming their file. The seed corpus is in
// testdata/fuzz/FuzzLoad. Loaded from memory (LoadFiles of ReadFiles), it
// must give the same answer.
func FuzzLoad(f *testing.F) {
	f.Add(minimalConfig+"entry_points: [{path: src, checks: [lint], reviews: [quality]}]\n", "command: make lint\n", "---\nnum_reviews: 2\n---\nReview it.\n")
	f.Fuzz(func(t *testing.T, configYML, checkYML, reviewMD string) {
		root := t.TempDir()
		for rel, content := range map[string]string{
			fuzzConfigRel: configYML,
			fuzzCheckRel:  checkYML,
			fuzzReviewRel: reviewMD,
		} {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		files := []string{fuzzConfigRel, fuzzCheckRel, fuzzReviewRel}
		checkLoadFilesAgrees(t, root)

		cfg, err := Load(t.Context(), root)
		if err != nil {
			if cfg != nil {
				t.Errorf("Load returned a configuration with its error")
			}
			var errs *Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Load error %T is not *Errors: %v", err, err)
			}
			if len(errs.Problems) == 0 {
				t.Errorf("*Errors without problems")
			}
			for _, p := range errs.Problems {
				checkProblemLine(t, "problem", p.String(), files)
			}
			for _, w := range errs.Warnings {
				checkProblemLine(t, "warning", w, files)
			}
			return
		}
		if cfg == nil || cfg.Root != root {
			t.Fatalf("Load = %+v without an error", cfg)
		}
		for _, w := range cfg.Warnings {
			checkProblemLine(t, "warning", w, files)
		}
		if len(cfg.EntryPoints) == 0 {
			t.Errorf("a valid configuration without entry points")
		}
		for _, ep := range cfg.EntryPoints {
			for _, p := range append([]string{ep.Path}, ep.Exclude...) {
				if clean, msg := newProject(root).entryPath(p); msg != "" || clean != p {
					t.Errorf("entry point pattern %q accepted as it is not canonical (%q): %s", p, clean, msg)
				}
			}
			for _, p := range append([]string{ep.Path}, ep.Exclude...) {
				if err := compileGlob(p); err != nil {
					t.Errorf("malformed pattern accepted: %v", err)
				}
			}
		}
		if msg := logDirProblem(cfg.LogDir); msg != "" {
			t.Errorf("log_dir %q accepted: %s", cfg.LogDir, msg)
		}
		if rel, err := filepath.Rel(root, cfg.LogDirPath()); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Errorf("log directory %s is not strictly inside the root %s", cfg.LogDirPath(), root)
		}
		for name, c := range cfg.Checks {
			if c.Command == "" || c.Timeout < 0 {
				t.Errorf("check %s accepted with command %q, timeout %v", name, c.Command, c.Timeout)
			}
		}
		for name, r := range cfg.Reviews {
			if r.NumReviews < 1 || len(r.CLIPreference) == 0 || r.Timeout < 0 {
				t.Errorf("review %s accepted with num_reviews %d, cli_preference %q, timeout %v", name, r.NumReviews, r.CLIPreference, r.Timeout)
			}
		}
	})
}

// checkProblemLine fails t unless line is a single line that starts with
// one of files.
func checkProblemLine(t *testing.T, kind, line string, files []string) {
	t.Helper()
	if strings.ContainsAny(line, "\r\n") {
		t.Errorf("%s spans several lines: %q", kind, line)
	}
	for _, f := range files {
		if strings.HasPrefix(line, f+": ") {
			return
		}
	}
	t.Errorf("%s does not start with the file it concerns: %q", kind, line)
}

// FuzzParseFrontMatter splits fuzzed review files into front matter and
// body. It must not panic; an error is the one-line unclosed-front-matter
// error; the body is the tail of the (normalized) file; front matter never
// holds a delimiter line; and parsing the front matter as YAML gives either
// a value or a one-line error. The seed corpus is in
// testdata/fuzz/FuzzParseFrontMatter.
func FuzzParseFrontMatter(f *testing.F) {
	f.Add("---\nnum_reviews: 2\n---\nReview it.\n")
	f.Fuzz(func(t *testing.T, content string) {
		fm, err := splitFrontMatter(content)
		if err != nil {
			if !errors.Is(err, errUnclosedFrontMatter) {
				t.Fatalf("unexpected error %v", err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("error spans several lines: %q", err)
			}
			return
		}
		normalized := strings.ReplaceAll(strings.TrimPrefix(content, "\ufeff"), "\r\n", "\n")
		if !strings.HasSuffix(normalized, fm.Body) {
			t.Errorf("body %q is not the tail of the file %q", fm.Body, normalized)
		}
		if !fm.Present {
			if fm.Body != normalized || fm.YAML != "" {
				t.Errorf("no front matter, yet %#v for %q", fm, normalized)
			}
			return
		}
		if fm.YAML != "" {
			for _, line := range strings.Split(fm.YAML, "\n") {
				if isDelimiter(line) {
					t.Errorf("front matter %q holds a delimiter line", fm.YAML)
				}
			}
		}
		if _, err := parseYAML([]byte(fm.YAML), 1); err != nil && strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("YAML error spans several lines: %q", err)
		}
	})
}
