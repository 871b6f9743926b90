package git

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// diskFiles lists the files of the work tree at root as a gate finds them:
// path (relative, slash-separated) to mode ("100644", "100755", "120000")
// and content (a symbolic link's target), leaving out .git and the
// directories in skip.
func diskFiles(t *testing.T, root string, skip ...string) map[string][2]string {
	t.Helper()
	files := map[string][2]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			for _, s := range skip {
				if rel == s {
					return filepath.SkipDir
				}
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			files[rel] = [2]string{"120000", target}
		case d.Name() == ".git":
			// git holds no path named .git
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			mode := "100644"
			if fi.Mode()&0o100 != 0 {
				mode = "100755"
			}
			files[rel] = [2]string{mode, string(data)}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// treeFiles lists the blobs of tree as diskFiles lists files.
func treeFiles(t *testing.T, r *repo, tree string) map[string][2]string {
	t.Helper()
	files := map[string][2]string{}
	out := r.git("ls-tree", "-r", "-z", tree)
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		meta, path, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if f[1] != "blob" {
			continue
		}
		cmd := r.rawGit("cat-file", "blob", f[2])
		files[path] = [2]string{f[0], cmd}
	}
	return files
}

// rawGit is git without trimming its output.
func (r *repo) rawGit(args ...string) string {
	r.t.Helper()
	out, err := runRaw(r.root, args...)
	if err != nil {
		r.t.Fatalf("git %v: %v", args, err)
	}
	return out
}

// assertLiteral fails unless tree holds exactly the files of the work
// tree, byte for byte and mode for mode (skip as in diskFiles).
func assertLiteral(t *testing.T, r *repo, what, tree string, skip ...string) {
	t.Helper()
	want := diskFiles(t, r.root, skip...)
	got := treeFiles(t, r, tree)
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: the snapshot lacks %s", what, p)
		} else if g != w {
			t.Errorf("%s: %s is %s %q on disk, %s %q in the snapshot", what, p, w[0], w[1], g[0], g[1])
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: the snapshot holds %s, which is not on disk", what, p)
		}
	}
}

// literalCase is a repository state in which git's view of a file is not
// its bytes or mode on disk: setup makes the state, edit changes what is
// on disk in a way that view does not see.
type literalCase struct {
	name  string
	setup func(r *repo)
	edit  func(r *repo)
}

// literalCases are the ways attributes, configuration and index flags
// make git's view of the work tree differ from the disk.
func literalCases() []literalCase {
	crlf := func(r *repo) { r.write("a.txt", "one\r\ntwo\r\n") }
	return []literalCase{
		{"text=auto, rewritten with CRLF", func(r *repo) { r.write(".gitattributes", "* text=auto\n") }, crlf},
		{"core.autocrlf=true, rewritten with CRLF", func(r *repo) { r.git("config", "core.autocrlf", "true") }, crlf},
		{"core.autocrlf=input, rewritten with CRLF", func(r *repo) { r.git("config", "core.autocrlf", "input") }, crlf},
		{"eol=lf, rewritten with CRLF", func(r *repo) { r.write(".gitattributes", "*.txt eol=lf\n") }, crlf},
		{"text in .git/info/attributes", func(r *repo) { r.write(".git/info/attributes", "* text\n") }, crlf},
		{"core.fileMode=false, made executable", func(r *repo) { r.git("config", "core.fileMode", "false") },
			func(r *repo) { chmod(r, "a.txt", 0o755) }},
		{"core.fileMode=false, made not executable", func(r *repo) {
			chmod(r, "run.sh", 0o755)
			r.git("add", "run.sh")
			r.git("commit", "-q", "-m", "exec")
			r.git("config", "core.fileMode", "false")
		}, func(r *repo) { chmod(r, "run.sh", 0o644) }},
		{"core.symlinks=false, a link made a file", func(r *repo) {
			if err := os.Symlink("a.txt", filepath.Join(r.root, "link")); err != nil {
				r.t.Fatal(err)
			}
			r.git("add", "link")
			r.git("commit", "-q", "-m", "link")
			r.git("config", "core.symlinks", "false")
		}, func(r *repo) { r.remove("link"); r.write("link", "a.txt") }},
		{"skip-worktree", func(r *repo) { r.git("update-index", "--skip-worktree", "a.txt") },
			func(r *repo) { r.write("a.txt", "changed behind the flag\n") }},
		{"assume-unchanged", func(r *repo) { r.git("update-index", "--assume-unchanged", "a.txt") },
			func(r *repo) { r.write("a.txt", "changed behind the flag\n") }},
		{"a clean filter in .git/config", func(r *repo) {
			r.git("config", "filter.hide.clean", "sed s/BAD/ok/")
			r.write(".gitattributes", "*.txt filter=hide\n")
		}, func(r *repo) { r.write("a.txt", "BAD\n") }},
		{"a clean filter from .git/info/attributes", func(r *repo) {
			r.git("config", "filter.hide.clean", "sed s/BAD/ok/")
			r.write(".git/info/attributes", "*.txt filter=hide\n")
		}, func(r *repo) { r.write("a.txt", "BAD\n") }},
		{"ident", func(r *repo) {
			r.write(".gitattributes", "*.txt ident\n")
			r.write("a.txt", "$Id$\n")
			r.commitAll("ident")
		}, func(r *repo) { r.write("a.txt", "$Id: forged $\n") }},
		{"working-tree-encoding", func(r *repo) {
			r.write(".gitattributes", "*.txt working-tree-encoding=UTF-16\n")
			r.write("a.txt", "\xff\xfeh\x00i\x00\n\x00")
			r.commitAll("utf16")
		}, func(r *repo) { r.write("a.txt", "\xfe\xff\x00h\x00i\x00\n") }},
		{"core.ignorecase=true, a second name in another case", func(r *repo) { r.git("config", "core.ignorecase", "true") },
			func(r *repo) { r.write("A.TXT", "another file\n") }},
		{"core.checkStat=minimal, a same-size edit, time put back", func(r *repo) { r.git("config", "core.checkStat", "minimal") },
			func(r *repo) { sameSizeEdit(r, "a.txt", "ONE\ntwo\n") }},
		{"core.trustctime=false, a same-size edit, time put back", func(r *repo) { r.git("config", "core.trustctime", "false") },
			func(r *repo) { sameSizeEdit(r, "a.txt", "ONE\ntwo\n") }},
	}
}

// ageFiles sets the modification time of every file of the work tree at
// root (not of .git) back by age.
func ageFiles(t *testing.T, root string, age time.Duration) {
	t.Helper()
	then := time.Now().Add(-age)
	for p := range diskFiles(t, root) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if fi, err := os.Lstat(full); err == nil && fi.Mode().IsRegular() {
			if err := os.Chtimes(full, then, then); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// chmod sets the mode of a file of r.
func chmod(r *repo, name string, mode os.FileMode) {
	r.t.Helper()
	if err := os.Chmod(filepath.Join(r.root, name), mode); err != nil {
		r.t.Fatal(err)
	}
}

// sameSizeEdit rewrites name in place with content of the same size and
// puts its modification time back: only the change time tells.
func sameSizeEdit(r *repo, name, content string) {
	r.t.Helper()
	// git compares change times to the second: the edit's must be
	// another second than the snapshot's.
	time.Sleep(1100 * time.Millisecond)
	p := filepath.Join(r.root, name)
	fi, err := os.Stat(p)
	if err != nil {
		r.t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(content), 0); err != nil {
		r.t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		r.t.Fatal(err)
	}
}

// Whatever attributes, configuration and index flags say, a snapshot
// holds the bytes and modes on disk: fresh, in the kept index, and in the
// kept index after git's own view of the repository (the user's index)
// was refreshed by `git status`.
func TestSnapshotIsLiteral(t *testing.T) {
	ctx := context.Background()
	for _, c := range literalCases() {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("a.txt", "one\ntwo\n")
			r.write("run.sh", "#!/bin/sh\n")
			r.commitAll("base")
			c.setup(r)
			// Files older than any index: git trusts their cached stats.
			ageFiles(t, r.root, time.Hour)
			before := keptTree(t, r.root)
			assertLiteral(t, r, "before the edit", before)
			c.edit(r)
			kept := keptTree(t, r.root)
			assertLiteral(t, r, "kept index", kept)
			if kept == before {
				t.Errorf("the edit did not change the snapshot (%s)", kept)
			}
			fresh, err := SnapshotTree(ctx, r.root)
			if err != nil {
				t.Fatal(err)
			}
			assertLiteral(t, r, "fresh index", fresh)
			r.git("status", "--porcelain") // refreshes the user's index
			assertLiteral(t, r, "kept index after git status", keptTree(t, r.root))
		})
	}
}

// runRaw runs git in root and returns its whole standard output.
func runRaw(root string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	return string(out), err
}

// The paths the user's index flags skip-worktree while the work tree does
// not hold them (a sparse checkout's, or flagged by hand and removed) are
// held as the user's index has them, as git holds them (a commit carries
// them), and named (Hidden), also when the flag was set while the file
// was on the disk (the merged index is then stale); one that appears in
// the work tree is read from there.
func TestSnapshotOffDiskFlagged(t *testing.T) {
	for _, c := range []struct {
		name string
		off  func(r *repo)
	}{
		{"sparse checkout", func(r *repo) { r.git("sparse-checkout", "set", "--no-cone", "/in/") }},
		{"by hand", func(r *repo) {
			r.git("update-index", "--skip-worktree", "out/b.txt")
			s, err := NewTreeSnapshot(context.Background(), r.root)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Hidden) != 0 {
				t.Errorf("Hidden while on the disk = %q", s.Hidden)
			}
			s.Close()
			r.remove("out/b.txt")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("in/a.txt", "a\n")
			r.write("out/b.txt", "b\n")
			r.commitAll("base")
			c.off(r)
			if fileExists(filepath.Join(r.root, "out/b.txt")) {
				t.Fatal("out/b.txt is on the disk")
			}
			ctx := context.Background()
			s, err := NewTreeSnapshot(ctx, r.root)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.git("show", s.Tree+":out/b.txt"); got != "b" {
				t.Errorf("out/b.txt in the snapshot: %q", got)
			}
			if len(s.Hidden) != 1 || s.Hidden[0] != "out/b.txt" {
				t.Errorf("Hidden = %q", s.Hidden)
			}
			s.Close()
			r.write("out/b.txt", "written by hand\n")
			s, err = NewTreeSnapshot(ctx, r.root)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := r.git("show", s.Tree+":out/b.txt"); got != "written by hand" {
				t.Errorf("out/b.txt, now on disk, in the snapshot: %q", got)
			}
			if len(s.Hidden) != 0 {
				t.Errorf("Hidden = %q", s.Hidden)
			}
		})
	}
}

// changeCase is a repository where git's view of the work tree is not what
// is on disk: after setup and a fresh checkout nothing has changed; edit
// changes path on disk.
type changeCase struct {
	name  string
	setup func(r *repo)
	// checkout checks the files out again after the commit (as a clone
	// would have them under the setup's attributes and configuration).
	checkout bool
	edit     func(r *repo)
	path     string
	// text is a line the review diff must show for the edit.
	text string
}

// committedFiles are, by case, what the setup's commit changed, file by
// file, where git names a repository inside by its directory.
var committedFiles = map[string][]string{"a repository inside, committed as a gitlink": {"dep/f"}}

// changeCases are the members of the class for change detection and
// review diffs.
func changeCases() []changeCase {
	return []changeCase{
		{"text=auto, rewritten with CRLF", func(r *repo) { r.write(".gitattributes", "* text=auto\n") }, false,
			func(r *repo) { r.write("a.txt", "one\r\ntwo\r\n") }, "a.txt", "+one\r"},
		{"core.autocrlf=true, checked out with CRLF, edited", func(r *repo) { r.git("config", "core.autocrlf", "true") }, true,
			func(r *repo) { r.write("a.txt", "one\r\nthree\r\n") }, "a.txt", "+three\r"},
		{"eol=crlf, checked out with CRLF, edited", func(r *repo) { r.write(".gitattributes", "*.txt eol=crlf\n") }, true,
			func(r *repo) { r.write("a.txt", "one\r\nthree\r\n") }, "a.txt", "+three\r"},
		{"eol=crlf in the global attributes file, checked out with CRLF, edited", func(r *repo) {
			home, _ := os.UserHomeDir()
			p := filepath.Join(home, ".config", "git", "attributes")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				r.t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("*.txt eol=crlf\n"), 0o644); err != nil {
				r.t.Fatal(err)
			}
			r.t.Cleanup(func() { os.Remove(p) })
		}, true, func(r *repo) { r.write("a.txt", "one\r\nthree\r\n") }, "a.txt", "+three\r"},
		{"core.fileMode=false, made executable", func(r *repo) { r.git("config", "core.fileMode", "false") }, false,
			func(r *repo) { chmod(r, "a.txt", 0o755) }, "a.txt", "new mode 100755"},
		{"core.symlinks=false, a link checked out as a file, edited", func(r *repo) {
			if err := os.Symlink("b.txt", filepath.Join(r.root, "link")); err != nil {
				r.t.Fatal(err)
			}
			r.git("add", "link")
			r.git("commit", "-q", "-m", "link")
			r.git("config", "core.symlinks", "false")
		}, true, func(r *repo) { r.write("link", "c.txt") }, "link", "+c.txt"},
		{"skip-worktree", func(r *repo) { r.git("update-index", "--skip-worktree", "a.txt") }, false,
			func(r *repo) { r.write("a.txt", "changed behind the flag\n") }, "a.txt", "+changed behind the flag"},
		{"assume-unchanged", func(r *repo) { r.git("update-index", "--assume-unchanged", "a.txt") }, false,
			func(r *repo) { r.write("a.txt", "changed behind the flag\n") }, "a.txt", "+changed behind the flag"},
		{"a clean filter that hides bytes", func(r *repo) {
			r.git("config", "filter.hide.clean", "sed s/BAD/ok/")
			r.write(".gitattributes", "*.txt filter=hide\n")
			r.write("a.txt", "ok\n")
		}, false, func(r *repo) { r.write("a.txt", "BAD\n") }, "a.txt", "+BAD"},
		{"a smudging filter (as Git LFS)", func(r *repo) {
			r.git("config", "filter.pointer.clean", "sed s/^/pointer:/")
			r.git("config", "filter.pointer.smudge", "sed s/^pointer://")
			r.write(".gitattributes", "*.bin filter=pointer\n")
			r.write("x.bin", "content\n")
		}, true, func(r *repo) { r.write("x.bin", "other content\n") }, "x.bin", "+other content"},
		{"ident", func(r *repo) {
			r.write(".gitattributes", "*.txt ident\n")
			r.write("a.txt", "$Id$\n")
		}, true, func(r *repo) { r.write("a.txt", "$Id: forged $\n") }, "a.txt", "+$Id: forged $"},
		{"working-tree-encoding", func(r *repo) {
			r.write(".gitattributes", "u16.txt working-tree-encoding=UTF-16\n")
			r.write("u16.txt", "\xff\xfeh\x00i\x00\n\x00")
		}, true, func(r *repo) { r.write("u16.txt", "\xfe\xff\x00h\x00i\x00\n") }, "u16.txt", ""},
		{"-diff", func(r *repo) { r.write(".gitattributes", "*.txt -diff\n") }, false,
			func(r *repo) { r.write("a.txt", "one\nchanged\n") }, "a.txt", "+changed"},
		{"binary", func(r *repo) { r.write(".git/info/attributes", "*.txt binary\n") }, false,
			func(r *repo) { r.write("a.txt", "one\nchanged\n") }, "a.txt", "+changed"},
		{"a textconv driver", func(r *repo) {
			r.git("config", "diff.upper.textconv", "tr a-z A-Z <")
			r.write(".gitattributes", "*.txt diff=upper\n")
		}, false, func(r *repo) { r.write("a.txt", "one\nchanged\n") }, "a.txt", "+changed"},
		{name: "a repository inside, committed as a gitlink", setup: func(r *repo) {
			if err := os.MkdirAll(filepath.Join(r.root, "dep"), 0o755); err != nil {
				r.t.Fatal(err)
			}
			n := newRepoAt(r.t, filepath.Join(r.root, "dep"))
			n.write("f", "good\n")
			n.commitAll("dep")
		}, edit: func(r *repo) { r.write("dep/f", "bad\n") }, path: "dep/f"},
	}
}

// Change detection and review diffs see the disk: a checkout that git
// converts is no change, an edit that git's view hides is one, and the
// reviewer gets its real lines (never "Binary files differ" for text, nor
// a driver's rendering).
func TestChangesAreLiteral(t *testing.T) {
	ctx := context.Background()
	uncommitted := gate.DiffSpec{Mode: gate.DiffUncommitted}
	local := gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}
	for _, c := range changeCases() {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("a.txt", "one\ntwo\n")
			r.write("b.txt", "b\n")
			r.commitAll("base")
			r.git("checkout", "-q", "-b", "feature")
			c.setup(r)
			r.git("add", "-A")
			r.git("commit", "-q", "--allow-empty", "-m", "setup")
			if c.checkout {
				r.git("rm", "-q", "-r", "--cached", ".")
				for _, f := range strings.Split(r.git("ls-tree", "-r", "--name-only", "HEAD"), "\n") {
					r.remove(f)
				}
				r.git("reset", "-q", "--hard")
			}
			ageFiles(t, r.root, time.Hour)
			for _, spec := range []gate.DiffSpec{uncommitted, local} {
				ch, err := ChangedFiles(ctx, r.root, spec)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{}
				if spec.Mode == gate.DiffLocal {
					want = changedSince(r, "main")
					if files, ok := committedFiles[c.name]; ok {
						want = files
					}
				}
				if !slices.Equal(sorted(ch.Files), sorted(want)) {
					t.Errorf("%s before the edit: %q, want %q", spec.Mode, ch.Files, want)
				}
			}
			c.edit(r)
			for _, spec := range []gate.DiffSpec{uncommitted, local} {
				ch, err := ChangedFiles(ctx, r.root, spec)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(ch.Files, c.path) {
					t.Errorf("%s after the edit: %q lacks %s", spec.Mode, ch.Files, c.path)
				}
				if c.text == "" {
					continue // UTF-16 is binary on disk; a repository inside shows its commit
				}
				diff, err := diffText(ctx, r.root, spec, dirScope("."))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(diff, "Binary files") {
					t.Errorf("%s: the review diff calls a text file binary:\n%s", spec.Mode, diff)
				}
				if !strings.Contains(diff, "b/"+c.path) || !strings.Contains(diff, c.text) {
					t.Errorf("%s: the review diff lacks %s (%q):\n%s", spec.Mode, c.path, c.text, diff)
				}
				for _, other := range []string{"b/b.txt", "b/.gitattributes"} {
					if strings.Contains(diff, other) && (spec.Mode == gate.DiffUncommitted || other == "b/b.txt") {
						t.Errorf("%s: the review diff shows %s, unchanged:\n%s", spec.Mode, other, diff)
					}
				}
			}
		})
	}
}

// changedSince lists the files of the commits since base.
func changedSince(r *repo, base string) []string {
	out := r.git("diff", "--name-only", base+"...HEAD")
	if out == "" {
		return []string{}
	}
	return strings.Split(out, "\n")
}

// ViewIdentity changes with what decides git's conversions outside the
// work tree, and only then.
func TestViewIdentity(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	id := func() string {
		t.Helper()
		v, ok := ViewIdentity(ctx, r.root)
		if !ok {
			t.Fatal("no identity")
		}
		return v
	}
	first := id()
	r.write("b.txt", "work tree files are the snapshot's business\n")
	if id() != first {
		t.Fatal("a work tree file changed the identity")
	}
	for name, change := range map[string]func(){
		"repository config": func() { r.git("config", "core.autocrlf", "true") },
		"info/attributes":   func() { r.write(".git/info/attributes", "* text\n") },
		"config in the env": func() { t.Setenv("GIT_CONFIG_PARAMETERS", "'core.eol'='crlf'") },
	} {
		before := id()
		time.Sleep(10 * time.Millisecond)
		change()
		if id() == before {
			t.Errorf("%s: the identity did not change", name)
		}
	}
}

// The literal view reads the repository's configuration as the user's git
// does: a conditional include on a branch applies to it exactly when it
// applies to the user's (its HEAD is the work tree's, a branch or a
// detached commit). One naming a branch only the view was on gave its git
// a core.excludesFile that hid new files from the key, told nowhere.
func TestLiteralViewReadsConfigAsTheUser(t *testing.T) {
	for _, c := range []struct {
		name, branch string
		detach       bool
		hides        bool // the include applies to the user's git too
	}{
		{name: "a branch only the view could be on", branch: "agent-gauntlet-literal"},
		{name: "the user's branch", branch: "main", hides: true},
		{name: "the user's branch, HEAD detached", branch: "main", detach: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("src/a.txt", "a\n")
			r.commitAll("base")
			if c.detach {
				r.git("checkout", "-q", "--detach")
			}
			r.write(".git/hide", "*.new\n")
			r.git("config", "includeIf.onbranch:"+c.branch+".path", filepath.Join(r.root, ".git", "hiding"))
			r.write(".git/hiding", "[core]\n\texcludesFile = "+filepath.Join(r.root, ".git", "hide")+"\n")
			key := func() string { return snapshotKey(t, r.root) }
			was := key()
			r.write("src/b.new", "b\n")
			if moved := key() != was; moved == c.hides {
				t.Errorf("key moved = %v for a file the user's git %s", moved, map[bool]string{true: "ignores", false: "lists"}[c.hides])
			}
		})
	}
}

// TestLiteralViewHoldsOnlyItsOwn: the literal view's git directory
// (.git/agent-gauntlet/literal) is the gauntlet's; whatever else is put
// there is taken out before each use. Invariant: a file the agent plants
// among those git reads from a git directory never changes what the view
// sees: a new file still moves the key (adversarial rounds 19 and 20, B17
// and B1: an excludesFile appended to its config, a config.worktree under
// extensions.worktreeConfig, a commondir leading to a copy that ignores
// it). The table is every such file, each planted to hide the new file.
func TestLiteralViewHoldsOnlyItsOwn(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(r *repo, shadow, hide string)
	}{
		{"config appended", func(r *repo, shadow, hide string) {
			appendFile(t, filepath.Join(shadow, "config"), "[core]\n\texcludesFile = "+hide+"\n")
		}},
		{"config.worktree", func(r *repo, shadow, hide string) {
			r.git("config", "extensions.worktreeConfig", "true")
			r.write(".git/agent-gauntlet/literal/config.worktree", "[core]\n\texcludesFile = "+hide+"\n")
		}},
		{"commondir to a copy ignoring it", func(r *repo, shadow, hide string) {
			copyDir := filepath.Join(t.TempDir(), "copy")
			if out, err := exec.Command("cp", "-a", filepath.Join(r.root, ".git"), copyDir).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v: %s", err, out)
			}
			appendFile(t, filepath.Join(copyDir, "info", "exclude"), "*.new\n")
			appendFile(t, filepath.Join(copyDir, "config"), "[core]\n\texcludesFile = "+hide+"\n")
			r.write(".git/agent-gauntlet/literal/commondir", copyDir+"\n")
		}},
		{"info/exclude of its own", func(r *repo, shadow, hide string) {
			appendFile(t, filepath.Join(shadow, "info", "exclude"), "*.new\n")
		}},
		{"a ref and packed refs", func(r *repo, shadow, hide string) {
			r.write(".git/agent-gauntlet/literal/refs/heads/x", strings.Repeat("0", 40)+"\n")
			r.write(".git/agent-gauntlet/literal/packed-refs", "# pack-refs with: peeled\n")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("src/a.txt", "a\n")
			r.commitAll("base")
			hide := filepath.Join(t.TempDir(), "hide")
			if err := os.WriteFile(hide, []byte("*.new\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			key := func() string { return snapshotKey(t, r.root) }
			was := key() // the view is made
			c.plant(r, filepath.Join(r.root, ".git", "agent-gauntlet", "literal"), hide)
			r.write("src/b.new", "BAD\n")
			if key() == was {
				t.Errorf("a new file left the key as it was: the planted %s hid it", c.name)
			}
		})
	}
}

// appendFile appends text to the file at p.
func appendFile(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// snapshotKey is the Key of a snapshot of the work tree at root, taken now.
func snapshotKey(t *testing.T, root string) string {
	t.Helper()
	s, err := NewTreeSnapshot(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return s.Key()
}
