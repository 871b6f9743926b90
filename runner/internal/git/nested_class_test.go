package git

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// insideCase is one member of the class of repositories inside a work
// tree and what the work does in them: how the repository stands to the
// one around it (kind), how deep it sits, what happens to one of its
// files, and what ignores that file.
type insideCase struct {
	kind string // "new", "untracked", "gitlink"
	// depth is how deep the repository sits: 1 is src/sub; 2 is
	// src/dep/sub, inside a repository of its own; 3 is src/dep/mid/sub,
	// the deepest a snapshot reads (see maxNestedDepth).
	depth  int
	op     string // "new file", "modified file", "committed inside"
	ignore string // "none", "own .gitignore", "own info/exclude"
}

func (c insideCase) String() string {
	return fmt.Sprintf("%s/depth %d/%s/%s", c.kind, c.depth, c.op, c.ignore)
}

// insideCases are every combination of the class's dimensions.
func insideCases() []insideCase {
	var cases []insideCase
	for _, kind := range []string{"new", "untracked", "gitlink"} {
		for _, depth := range []int{1, 2, 3} {
			for _, op := range []string{"new file", "modified file", "committed inside"} {
				for _, ignore := range []string{"none", "own .gitignore", "own info/exclude"} {
					if kind == "new" && op == "modified file" {
						continue // nothing to modify in a repository made now
					}
					if depth == 3 && ignore != "own .gitignore" {
						continue // the deepest level: one ignore rule is enough
					}
					cases = append(cases, insideCase{kind, depth, op, ignore})
				}
			}
		}
	}
	return cases
}

// nestedGit runs git in the repository at dir with an identity and no
// signing, failing the test on an error.
func nestedGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git -C %s %v: %v\n%s", dir, args, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// Every file a gate can read inside a repository inside the work tree
// that differs from what the outer repository records at its path (the
// commit of its gitlink, or nothing) is a changed file, named by its own
// path, never by its directory; the listing agrees with one worked out
// from the disk; and the KeyTree (the changes memo's and the result
// cache's key) moves with it, whether the kept index was warm or cold.
// For every kind of repository, depth, operation and ignore rule.
func TestChangesInsideNestedRepositories(t *testing.T) {
	ctx := context.Background()
	for _, c := range insideCases() {
		t.Run(c.String(), func(t *testing.T) {
			// What the work starts from is the same for every case of a
			// kind and depth: made once, copied (fromTemplate).
			build := func(root string) { makeInside(t, &repo{t: t, root: root}, c.kind, c.depth) }
			r := &repo{t: t, root: fromTemplate(t, fmt.Sprintf("inside/%s/%d", c.kind, c.depth), build)}
			_, dir := insidePaths(r.root, c.depth)
			make := func() {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				nestedGit(t, dir, "init", "-q")
			}
			write := func(name, content string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}

			before := takeSnapshot(t, r)
			before.Close()

			// The work.
			if c.kind == "new" {
				make()
			}
			switch c.ignore {
			case "own .gitignore":
				write(".gitignore", "*\n")
			case "own info/exclude":
				if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("*\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			target := "x.txt"
			if c.op != "new file" {
				target = "lib.txt"
			}
			write(target, "BUG\n")
			if c.op == "committed inside" {
				nestedGit(t, dir, "add", "-f", target)
				nestedGit(t, dir, "commit", "-q", "-m", "work")
			}
			rel, err := filepath.Rel(r.root, filepath.Join(dir, target))
			if err != nil {
				t.Fatal(err)
			}
			rel = filepath.ToSlash(rel)

			warm := takeSnapshot(t, r)
			defer warm.Close()
			if warm.KeyTree == before.KeyTree {
				t.Errorf("KeyTree did not move with %s", rel)
			}
			local := gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}
			uncommitted := gate.DiffSpec{Mode: gate.DiffUncommitted}
			listed := map[gate.DiffMode][]string{}
			for _, spec := range []gate.DiffSpec{local, uncommitted} {
				ch, err := ChangedFilesIn(ctx, r.root, spec, warm)
				if err != nil {
					t.Fatalf("ChangedFiles(%s): %v", spec.Mode, err)
				}
				listed[spec.Mode] = ch.Files
				if !slices.Contains(ch.Files, rel) {
					t.Errorf("ChangedFiles(%s) = %q lacks %s", spec.Mode, ch.Files, rel)
				}
				for _, f := range ch.Files {
					if fi, err := os.Stat(filepath.Join(r.root, f)); err == nil && fi.IsDir() {
						t.Errorf("ChangedFiles(%s) names the directory %s", spec.Mode, f)
					}
				}
				ref := "HEAD"
				if spec.Mode == gate.DiffLocal {
					ref = r.git("merge-base", "main", "HEAD")
				}
				want := insideFromDisk(t, r, ref)
				var got []string
				for _, f := range ch.Files {
					if strings.HasPrefix(f, "src/sub/") || strings.HasPrefix(f, "src/dep/") {
						got = append(got, f)
					}
				}
				if !slices.Equal(sorted(got), want) {
					t.Errorf("ChangedFiles(%s) inside = %q, from the disk %q", spec.Mode, sorted(got), want)
				}
			}

			// A cold kept index agrees with the warm one.
			if err := os.RemoveAll(filepath.Join(r.root, ".git", "agent-gauntlet")); err != nil {
				t.Fatal(err)
			}
			cold := takeSnapshot(t, r)
			defer cold.Close()
			if cold.KeyTree != warm.KeyTree {
				t.Errorf("cold KeyTree %s, warm %s", cold.KeyTree, warm.KeyTree)
			}
			for _, spec := range []gate.DiffSpec{local, uncommitted} {
				ch, err := ChangedFilesIn(ctx, r.root, spec, cold)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(sorted(ch.Files), sorted(listed[spec.Mode])) {
					t.Errorf("ChangedFiles(%s) cold %q, warm %q", spec.Mode, ch.Files, listed[spec.Mode])
				}
			}
		})
	}
}

// insidePaths are, for a repository inside the work tree at root at
// depth, the repository holding it (root itself at depth 1) and its own
// directory.
func insidePaths(root string, depth int) (parent, dir string) {
	parent, dir = root, filepath.Join(root, "src", "sub")
	for i, name := range []string{"dep", "mid"}[:depth-1] {
		if i == 0 {
			parent = filepath.Join(root, "src")
		}
		parent = filepath.Join(parent, name)
		dir = filepath.Join(parent, "sub")
	}
	return parent, dir
}

// makeInside makes, in the empty directory r.root, what a case of kind
// and depth starts from: a repository on the branch feature of main's
// one commit, the repositories above depth's, each with one commit, and,
// unless kind is "new", the repository at depth with a commit of
// lib.txt, recorded by its parent as a gitlink when kind is "gitlink".
func makeInside(t *testing.T, r *repo, kind string, depth int) {
	t.Helper()
	r.git("init", "-q", "-b", "main")
	r.git("config", "commit.gpgsign", "false")
	r.write("src/a.txt", "base\n")
	r.commitAll("base")
	r.git("checkout", "-q", "-b", "feature")
	parent, dir := insidePaths(r.root, depth)
	for d := 2; d <= depth; d++ {
		p, _ := insidePaths(r.root, d)
		name := filepath.Base(p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		nestedGit(t, p, "init", "-q")
		if err := os.WriteFile(filepath.Join(p, name+".txt"), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		nestedGit(t, p, "add", "-A")
		nestedGit(t, p, "commit", "-q", "-m", name)
	}
	if kind == "new" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	nestedGit(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "lib.txt"), []byte("good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	nestedGit(t, dir, "add", "-A")
	nestedGit(t, dir, "commit", "-q", "-m", "lib")
	if kind == "gitlink" {
		nestedGit(t, parent, "add", strings.TrimPrefix(dir, parent+string(filepath.Separator)))
		nestedGit(t, parent, "commit", "-q", "-m", "gitlink")
	}
}

// takeSnapshot is a kept snapshot of r that read every repository inside.
func takeSnapshot(t *testing.T, r *repo) *TreeSnapshot {
	t.Helper()
	s, err := NewTreeSnapshot(context.Background(), r.root)
	if err != nil {
		t.Fatal(err)
	}
	if s.KeyTree == "" {
		s.Close()
		t.Fatalf("no KeyTree: %s", s.Uncertain)
	}
	return s
}

// insideFromDisk works out, from the file system alone, the files inside
// the repositories src/sub and src/dep (sorted, relative to r's root) that
// differ from what the commit ref of r holds at the repository's path:
// the bytes of the file in the commit its gitlink names, or nothing.
func insideFromDisk(t *testing.T, r *repo, ref string) []string {
	t.Helper()
	var files []string
	for _, top := range []string{"src/sub", "src/dep"} {
		dir := filepath.Join(r.root, filepath.FromSlash(top))
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		link := ""
		if out := r.git("ls-tree", ref, "--", top); strings.HasPrefix(out, "160000 commit ") {
			link = strings.Fields(out)[2]
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Name() == ".git" {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if link != "" {
				cmd := exec.Command("git", "-C", dir, "cat-file", "blob", link+":"+rel)
				if old, err := cmd.Output(); err == nil && bytes.Equal(old, data) {
					return nil
				}
			}
			files = append(files, top+"/"+rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(files)
	return files
}
