package config

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// makeSpecial replaces the file at p by an entry of kind: "fifo", "dir",
// "socket", "dangling" (a symbolic link to nothing) or "big" (a regular
// file over maxFileSize).
func makeSpecial(t *testing.T, p, kind string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	switch kind {
	case "fifo":
		fifotest.Create(t, p)
	case "dir":
		err = os.Mkdir(p, 0o755)
	case "dangling":
		err = os.Symlink("missing-target", p)
	case "big":
		err = os.WriteFile(p, []byte(strings.Repeat("#\n", maxFileSize/2+1)), 0o644)
	case "socket":
		// A socket path must be short: listen from inside its directory.
		wd, werr := os.Getwd()
		if werr != nil {
			t.Fatal(werr)
		}
		t.Chdir(filepath.Dir(p))
		var l net.Listener
		l, err = net.Listen("unix", filepath.Base(p))
		t.Chdir(wd)
		if err == nil {
			t.Cleanup(func() { l.Close() })
		}
	default:
		t.Fatalf("unknown kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Every configuration file is read only when it is a regular file: a FIFO
// (which used to hang validate and the stop hook forever), a socket, a
// directory or a dangling link named like one is a problem naming the file.
func TestLoadNonRegularFiles(t *testing.T) {
	const lintWithFix = "command: make lint\nfix_instructions: fix.md\n"
	kinds := map[string]string{
		"fifo":     "is a named pipe (FIFO), not a regular file",
		"dir":      "is a directory, not a regular file",
		"socket":   "is a socket, not a regular file",
		"dangling": "is a symbolic link to a missing file",
		"big":      "is larger than 8 MiB",
	}
	places := []struct {
		name, path string
		want       string // the problem line; %s is the kind's message
	}{
		{"config.yml", ".gauntlet/config.yml", ".gauntlet/config.yml: %s"},
		{"check", ".gauntlet/checks/lint.yml", ".gauntlet/checks/lint.yml: %s"},
		{"check .yaml", ".gauntlet/checks/other.yaml", ".gauntlet/checks/other.yaml: %s"},
		{"review", ".gauntlet/reviews/quality.md", ".gauntlet/reviews/quality.md: %s"},
		{"fix_instructions", ".gauntlet/fix.md", ".gauntlet/checks/lint.yml: fix_instructions: .gauntlet/fix.md %s"},
	}
	for _, pl := range places {
		for kind, msg := range kinds {
			t.Run(pl.name+"/"+kind, func(t *testing.T) {
				root := writeTree(t, map[string]string{
					".gauntlet/config.yml":         minimalConfig,
					".gauntlet/checks/lint.yml":    lintWithFix,
					".gauntlet/fix.md":             "Run make fmt.\n",
					".gauntlet/reviews/quality.md": "Review.\n",
				})
				makeSpecial(t, filepath.Join(root, filepath.FromSlash(pl.path)), kind)
				_, err := Load(t.Context(), root)
				var errs *Errors
				want := strings.Replace(pl.want, "%s", msg, 1)
				if !errors.As(err, &errs) || len(errs.Problems) != 1 || errs.Problems[0].String() != want {
					t.Errorf("Load error = %v, want the one problem %q", err, want)
				}
			})
		}
	}
}

// The gate directories themselves: a FIFO there is a problem, not a hang.
func TestLoadNonDirectoryGateDirs(t *testing.T) {
	for _, sub := range []string{ChecksDir, ReviewsDir} {
		root := writeTree(t, map[string]string{".gauntlet/config.yml": minimalConfig})
		makeSpecial(t, filepath.Join(root, Dir, sub), "fifo")
		_, err := Load(t.Context(), root)
		want := ".gauntlet/" + sub + ": is a named pipe (FIFO), not a directory"
		if err == nil || err.Error() != want {
			t.Errorf("Load error = %v, want %q", err, want)
		}
	}
}

// LoadProjectFile (the stop hook's fast path) refuses the same way.
func TestLoadProjectFileFIFO(t *testing.T) {
	root := t.TempDir()
	makeSpecial(t, filepath.Join(root, Dir, ProjectFile), "fifo")
	if got, ok := FindRoot(root); !ok || got != root {
		t.Fatalf("FindRoot = %q, %v; a FIFO config.yml still marks the root", got, ok)
	}
	_, err := LoadProjectFile(root)
	want := ".gauntlet/config.yml: is a named pipe (FIFO), not a regular file"
	if err == nil || err.Error() != want {
		t.Errorf("LoadProjectFile error = %v, want %q", err, want)
	}
}
