package cli

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/install"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// TestInstallersWriteOnlyInsideTheProject generates, for every command
// that writes a file of the agent's or CI's settings (init's hook for every
// agent, stop and session-start; ci init's workflow), every component of
// the path it writes (each directory below the project, and the file)
// replaced by every kind of thing that is not what it makes there: a link
// to a directory inside the project, a link to a directory outside it, a
// link to a file, a dangling link, a named pipe, a file (a directory where
// the file goes). The invariant: the command refuses with one line naming
// that component, exits 2, and writes nothing, in the project or outside
// it.
func TestInstallersWriteOnlyInsideTheProject(t *testing.T) {
	type target struct {
		name string
		args []string
		rel  string // the file it writes, below the project
	}
	var targets []target
	for _, a := range hookproto.Agents {
		seen := map[string]bool{}
		for _, hook := range []install.Hook{install.StopHook, install.StartHook} {
			spec, ok := install.SpecForHook(a, hook)
			if !ok || seen[spec.Path] {
				continue
			}
			seen[spec.Path] = true
			targets = append(targets, target{fmt.Sprintf("init %s %s", a, hook), []string{"init", "--agent", string(a), "-y"}, spec.Path})
		}
	}
	targets = append(targets, target{"ci init", []string{"ci", "init"}, filepath.Join(".github", "workflows", "gauntlet.yml")})

	kinds := []struct {
		name string
		dir  bool // replaces a directory (else the file)
		make func(t *testing.T, at, inside, outside string)
	}{
		{"link to a directory inside", true, func(t *testing.T, at, inside, _ string) { symlink(t, inside, at) }},
		{"link to a directory outside", true, func(t *testing.T, at, _, outside string) { symlink(t, outside, at) }},
		{"link to a file", true, func(t *testing.T, at, _, outside string) { symlink(t, filepath.Join(outside, "f"), at) }},
		{"dangling link", true, func(t *testing.T, at, _, outside string) { symlink(t, filepath.Join(outside, "gone"), at) }},
		{"named pipe", true, func(t *testing.T, at, _, _ string) { mkfifo(t, at) }},
		{"file", true, func(t *testing.T, at, _, _ string) { write(t, at, "x") }},
		{"link to a file outside", false, func(t *testing.T, at, _, outside string) { symlink(t, filepath.Join(outside, "f"), at) }},
		{"link to a file inside", false, func(t *testing.T, at, inside, _ string) { symlink(t, filepath.Join(inside, "f"), at) }},
		{"link to a directory", false, func(t *testing.T, at, _, outside string) { symlink(t, outside, at) }},
		{"dangling link", false, func(t *testing.T, at, _, outside string) { symlink(t, filepath.Join(outside, "gone"), at) }},
		{"named pipe", false, func(t *testing.T, at, _, _ string) { mkfifo(t, at) }},
		{"directory", false, func(t *testing.T, at, _, _ string) { mkdir(t, at) }},
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, tg := range targets {
		parts := strings.Split(tg.rel, string(filepath.Separator))
		for i := range parts {
			component := filepath.Join(parts[:i+1]...)
			isDir := i < len(parts)-1
			for _, k := range kinds {
				if k.dir != isDir {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/%s", tg.name, component, k.name), func(t *testing.T) {
					root, outside := t.TempDir(), t.TempDir()
					gitInit(t, root)
					write(t, filepath.Join(root, ".gauntlet", "config.yml"), "cli:\n  default_preference: [claude]\nentry_points:\n  - path: \".\"\n")
					inside := filepath.Join(root, "elsewhere")
					write(t, filepath.Join(inside, "f"), "{}")
					write(t, filepath.Join(outside, "f"), "{}")
					if i > 0 {
						mkdir(t, filepath.Join(root, filepath.Join(parts[:i]...)))
					}
					k.make(t, filepath.Join(root, component), inside, outside)
					before, beforeOut := tree(t, root), tree(t, outside)
					t.Chdir(root)
					code, stdout, stderr := runMain(t, tg.args...)
					if code != 2 {
						t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
					}
					if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, filepath.Join(root, component)) {
						t.Errorf("want one line naming %s, got:\n%s", component, stderr)
					}
					if after := tree(t, root); !slices.Equal(after, before) {
						t.Errorf("the project changed:\nbefore %q\nafter  %q", before, after)
					}
					if after := tree(t, outside); !slices.Equal(after, beforeOut) {
						t.Errorf("wrote outside the project:\nbefore %q\nafter  %q", beforeOut, after)
					}
				})
			}
		}
	}
}

// tree lists every entry below root (links not followed): name, type,
// and a regular file's content or a link's target.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		entry := rel + " " + d.Type().String()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			entry += " -> " + target
		case d.Type().IsRegular():
			data, _ := os.ReadFile(p)
			entry += " " + string(data)
		}
		out = append(out, entry)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "-C", dir, "init", "-q", "-b", "main").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

func symlink(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, at string) {
	t.Helper()
	fifotest.Create(t, at)
}

func mkdir(t *testing.T, at string) {
	t.Helper()
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, at, content string) {
	t.Helper()
	mkdir(t, filepath.Dir(at))
	if err := os.WriteFile(at, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
