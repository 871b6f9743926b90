package config

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// checkLoadFilesAgrees loads the project at root from disk (Load) and from
// the files ReadFiles read of it (LoadFiles): the same configuration, or
// the same problems. A tree whose files cannot all be read has no
// in-memory copy to compare.
func checkLoadFilesAgrees(t *testing.T, root string) {
	t.Helper()
	files, err := ReadFiles(root)
	if err != nil {
		var errs *Errors
		if !errors.As(err, &errs) {
			t.Errorf("ReadFiles(%s): %v", root, err)
		}
		return
	}
	ctx := context.Background()
	want, wantErr := Load(ctx, root)
	got, gotErr := LoadFiles(ctx, root, files)
	if wantErr != nil || gotErr != nil {
		// The rules of symbolic links apply on disk only: a link they refuse
		// is never read, so the copy lacks the file (a problem too).
		linkRule := wantErr != nil && strings.Contains(wantErr.Error(), "resolves")
		if wantErr == nil || gotErr == nil || (wantErr.Error() != gotErr.Error() && !linkRule) {
			t.Errorf("loaded from disk: %v\nloaded from memory: %v", wantErr, gotErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loaded from memory:\n%+v\nloaded from disk:\n%+v", got, want)
	}
}

func TestReadFilesKeepsWhatLoadReads(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml":       minimalConfig + "  - path: src\n    checks: [lint]\n",
		".gauntlet/checks/lint.yml":  "command: make lint\nfix_instructions: docs/lint.md\n",
		".gauntlet/checks/notes.txt": "not a gate file: copied as another file",
		".gauntlet/docs/lint.md":     "Run make fmt.\n",
		".gauntlet/reviews/q.md":     "Review it.\n",
		".gauntlet/README":           "copied as another file",
		"src/main.go":                "package main\n",
	})
	files, err := ReadFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for p := range files {
		names = append(names, p)
	}
	want := []string{".gauntlet/checks/lint.yml", ".gauntlet/config.yml", ".gauntlet/docs/lint.md", ".gauntlet/reviews/q.md",
		".gauntlet/README", ".gauntlet/checks/notes.txt"}
	if !sameSet(names, want) {
		t.Errorf("ReadFiles read %v, want %v", names, want)
	}
	if string(files[".gauntlet/docs/lint.md"]) != "Run make fmt.\n" {
		t.Errorf("fix instructions = %q", files[".gauntlet/docs/lint.md"])
	}
}

func TestReadFilesWithoutConfig(t *testing.T) {
	files, err := ReadFiles(t.TempDir())
	if err != nil || files == nil || len(files) != 0 {
		t.Errorf("ReadFiles of no project = %v, %v; want an empty set", files, err)
	}
}

func TestReadFilesNamesAnUnreadableFile(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml": minimalConfig,
		".gauntlet/checks/":    "",
	})
	fifotest.Create(t, filepath.Join(root, ".gauntlet", "checks", "lint.yml"))
	files, err := ReadFiles(root)
	var errs *Errors
	if !errors.As(err, &errs) || len(errs.Problems) != 1 || errs.Problems[0].File != ".gauntlet/checks/lint.yml" {
		t.Fatalf("ReadFiles = %v; want the FIFO named", err)
	}
	if _, ok := files[".gauntlet/config.yml"]; !ok {
		t.Errorf("the readable files are kept with the error: %v", files)
	}
}

// TestLoadFilesWithoutDisk loads a configuration whose .gauntlet/ exists
// only in memory: the files are named as on disk in every problem.
func TestLoadFilesWithoutDisk(t *testing.T) {
	root := t.TempDir()
	cfg, err := LoadFiles(t.Context(), root, Files{
		".gauntlet/config.yml":      []byte(minimalConfig + "  - path: src\n    checks: [lint]\n"),
		".gauntlet/checks/lint.yml": []byte("command: make lint\nfix_instructions: fix.md\n"),
		".gauntlet/fix.md":          []byte("Fix it."),
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Root != root || cfg.Checks["lint"] == nil || cfg.Checks["lint"].FixInstructions != "Fix it." {
		t.Errorf("LoadFiles = %+v", cfg)
	}

	_, err = LoadFiles(t.Context(), root, Files{
		".gauntlet/config.yml":      []byte(minimalConfig + "  - path: src\n    checks: [lint, gone]\n"),
		".gauntlet/checks/lint.yml": []byte("command: make lint\nfix_instructions: missing.md\n"),
		".gauntlet/checks/x.yml/y":  []byte("a directory named like a check"),
	})
	want := []string{
		`.gauntlet/config.yml: entry_points[1].checks: unknown check gate "gone"`,
		`.gauntlet/checks/lint.yml: fix_instructions: file .gauntlet/missing.md does not exist`,
		`.gauntlet/checks/x.yml: is a directory, not a regular file`,
	}
	var errs *Errors
	if !errors.As(err, &errs) || !reflect.DeepEqual(errs.Lines(), want) {
		t.Errorf("LoadFiles problems = %v\nwant %q", err, want)
	}
}

func TestLoadFilesNotFound(t *testing.T) {
	root := t.TempDir()
	_, err := LoadFiles(t.Context(), root, Files{".gauntlet/checks/lint.yml": []byte("command: x\n")})
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Dir != root {
		t.Errorf("LoadFiles without config.yml = %v; want a *NotFoundError naming %s", err, root)
	}
}

func TestLoadFilesRefusesPathsOutsideGauntlet(t *testing.T) {
	for _, p := range []string{"config.yml", "/etc/passwd", ".gauntlet/../x", ".gauntlet//config.yml", "./.gauntlet/config.yml", ".gauntlet"} {
		_, err := LoadFiles(t.Context(), t.TempDir(), Files{".gauntlet/config.yml": []byte(minimalConfig), p: nil})
		if err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("LoadFiles took the path %q: %v", p, err)
		}
	}
}

func TestFilesSourceTooLarge(t *testing.T) {
	_, err := filesSource{files: Files{".gauntlet/config.yml": make([]byte, maxFileSize+1)}}.file(".gauntlet/config.yml")
	var tooLarge *fsread.TooLargeError
	var pe *fs.PathError
	if !errors.As(err, &tooLarge) || !errors.As(err, &pe) {
		t.Errorf("a file over the limit = %v", err)
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// UsedFiles keeps, of a larger set, what the loader reads, as ReadFiles
// does on disk.
func TestUsedFilesAgreesWithReadFiles(t *testing.T) {
	tree := map[string]string{
		".gauntlet/config.yml":       minimalConfig + "  - path: src\n    checks: [lint]\n",
		".gauntlet/checks/lint.yml":  "command: make lint\nfix_instructions: docs/lint.md\n",
		".gauntlet/checks/notes.txt": "never read",
		".gauntlet/docs/lint.md":     "Run make fmt.\n",
		".gauntlet/docs/other.md":    "never read",
		".gauntlet/README":           "copied as another file",
	}
	root := writeTree(t, tree)
	onDisk, err := ReadFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	all := Files{}
	for p, c := range tree {
		all[p] = []byte(c)
	}
	used, err := UsedFiles(root, all)
	if err != nil || !reflect.DeepEqual(used, onDisk) {
		t.Errorf("UsedFiles = %v, %v; ReadFiles = %v", used, err, onDisk)
	}
}
