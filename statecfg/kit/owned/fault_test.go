package owned_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// TestFaults is the fault table of the paths the gauntlet makes below a
// directory it owns. Invariant: every path the gauntlet creates, writes,
// empties or removes there is reached without following a symbolic link
// below the owned directory, and a directory it empties is one it made;
// a link, or a person's file or directory, at the path or at any
// directory between is refused (or, for the scratch directory, left
// untouched while the run uses a fresh one), and the files a link points
// to, and the person's files, keep their bytes, with nothing written
// outside. For each operation and each component of its path, each
// fault is planted: a link to a directory outside holding a sentinel, a
// link to a file outside, a person's directory with a file, a person's
// file.
func TestFaults(t *testing.T) {
	for _, op := range operations {
		for depth := range len(op.parts) {
			for _, f := range faults {
				at := filepath.Join(op.parts[:depth+1]...)
				t.Run(op.name+"/"+at+"/"+f.name, func(t *testing.T) {
					runFault(t, op, at, f)
				})
			}
		}
	}
}

// operation is one writer or remover of the table: parts is its path
// below the owned directory, run does what the gauntlet does there.
// merges marks a writer whose file is the person's to share (an agent's
// settings file, which init merges its hooks into): a person's file at
// the full path is its to update.
type operation struct {
	name   string
	parts  []string
	run    func(root string) error
	merges bool
}

// operations are the writers and removers routed through this package:
// a run's log subdirectory, a file init merges into, the gauntlet's
// records below the git common directory (verdicts and trust records make
// their directories through store.MakeDir too), and procgroup's scratch
// directory.
var operations = []operation{
	{"MkdirAll", []string{"logs", "commit"}, func(root string) error {
		return owned.MkdirAll(root, filepath.Join("logs", "commit"), 0o755)
	}, false},
	{"FileParent+Write", []string{".claude", "settings.json"}, func(root string) error {
		path := filepath.Join(root, ".claude", "settings.json")
		if err := owned.FileParent(root, path); err != nil {
			return err
		}
		return atomicfile.Write(path, []byte("{}"), 0o644)
	}, true},
	{"store.Update", []string{store.Dir, "kind"}, func(root string) error {
		var v map[string]int
		return store.Open(root, "kind").Update(&v, func() (bool, error) {
			v = map[string]int{"n": 1}
			return true, nil
		}, "k")
	}, false},
	{"Scratch", []string{procgroup.ScratchDir}, func(root string) error {
		procgroup.Reap(root)
		dir, err := procgroup.OpenScratch(root)
		if err != nil {
			return err
		}
		ctx := procgroup.WithRegistry(context.Background(), dir)
		unregister := procgroup.Register(ctx, 999999)
		f, err := os.CreateTemp(procgroup.Scratch(ctx), "files-")
		if err != nil {
			return err
		}
		f.Close()
		os.Remove(f.Name())
		unregister()
		procgroup.CloseScratch(dir)
		procgroup.Reap(root)
		return nil
	}, false},
}

// fault is one thing planted at a path: plant makes it, given the path
// and the outside directory (which holds the sentinel file).
type fault struct {
	name  string
	plant func(t *testing.T, path, outside string)
}

var faults = []fault{
	{"link-to-dir", func(t *testing.T, path, outside string) { must(t, os.Symlink(outside, path)) }},
	{"link-to-file", func(t *testing.T, path, outside string) {
		must(t, os.Symlink(filepath.Join(outside, "sentinel"), path))
	}},
	{"person-dir", func(t *testing.T, path, _ string) {
		must(t, os.Mkdir(path, 0o755))
		must(t, os.WriteFile(filepath.Join(path, "notes.txt"), []byte("notes"), 0o644))
		must(t, os.WriteFile(filepath.Join(path, "4242"), []byte("pid-like"), 0o644))
	}},
	{"person-file", func(t *testing.T, path, _ string) { must(t, os.WriteFile(path, []byte("mine"), 0o644)) }},
}

// runFault plants f at the component at of op's path, runs op, and checks
// the invariant.
func runFault(t *testing.T, op operation, at string, f fault) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	must(t, os.MkdirAll(root, 0o755))
	must(t, os.MkdirAll(outside, 0o755))
	must(t, os.WriteFile(filepath.Join(outside, "sentinel"), []byte("precious"), 0o644))
	path := filepath.Join(root, at)
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f.plant(t, path, outside)
	before := snapshot(t, base, path)

	err := op.run(root)

	var refused *owned.RefusedError
	if err != nil && !errors.As(err, &refused) {
		t.Fatalf("%s: %v, want nil or a *RefusedError", op.name, err)
	}
	if refused != nil && (strings.Contains(refused.Error(), "\n") || !strings.Contains(refused.Error(), at)) {
		t.Errorf("refusal %q is not one line naming %s", refused.Error(), at)
	}
	// The person's files planted (or pointed to) keep their bytes, and
	// the outside directory holds nothing new.
	after := snapshot(t, base, path)
	if op.merges && f.name == "person-file" && at == filepath.Join(op.parts...) {
		after[filepath.Join("root", at)] = before[filepath.Join("root", at)]
	}
	for name, data := range before {
		if after[name] != data {
			t.Errorf("%s changed: %q, was %q", name, after[name], data)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok && strings.HasPrefix(name, "outside") {
			t.Errorf("written outside: %s", name)
		}
	}
	if fi, err := os.Lstat(path); err != nil {
		t.Errorf("the planted %s is gone: %v", at, err)
	} else if strings.HasPrefix(f.name, "link") != (fi.Mode()&fs.ModeSymlink != 0) {
		t.Errorf("the planted %s was replaced: %v", at, fi.Mode())
	}
}

// snapshot is the content of every regular file under base's outside
// directory and under the planted path, by path relative to base.
func snapshot(t *testing.T, base, planted string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{filepath.Join(base, "outside"), planted} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			must(t, err)
			rel, _ := filepath.Rel(base, p)
			out[rel] = string(data)
			return nil
		})
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
