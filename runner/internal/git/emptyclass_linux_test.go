package git

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"pgregory.net/rapid"
)

// The directories git lists no file under are keyed whatever else they
// hold: over random work trees whose directories hold ignored files and
// directories (by .gitignore and by info/exclude, both edited in place
// too), FIFOs, sockets and
// repositories (with a commit, without one, behind a .git file that
// points outside), with directories made, filled, emptied and removed in
// and beside all of them, EmptyDirs moves exactly when the directories a
// slow reference finds move (a find-like walk of the disk that asks `git
// check-ignore`, see visibleDirs): one state of the reference, one
// EmptyDirs. A snapshot that took a walk's memo keys what one that walks
// keys, kept and fresh snapshots agree, and with nothing changed the key
// stays and the walk's memo stands for the walk.
func TestEmptyDirsKeyedWhateverTheyHold(t *testing.T) {
	shortMargin(t)
	ctx := context.Background()
	dirs := []string{"a", "a/b", "g", "g/e", "g/e/f", "c", "c/target", "c/src", "n", "n/e", "n/e/f", "n/s", "n/s/e", "logs/e"}
	// Each step takes three snapshots and asks git about every directory:
	// fewer runs than rapid's default, unless asked for.
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		_ = f.Value.Set("30")
		t.Cleanup(func() { _ = f.Value.Set(f.DefValue) })
	}
	asked, hits := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		r := newRepo(t)
		r.write(".gitignore", "*.log\nbuild/\n")
		r.write(".git/info/exclude", "*.tmp\ntarget/\n")
		r.write("src/a.txt", "a\n")
		r.commitAll("base")
		ext := map[bool]string{}
		for _, commit := range []bool{false, true} {
			e := newRepoAt(t, t.TempDir())
			if commit {
				e.write("x.txt", "x\n")
				e.commitAll("ext")
			}
			ext[commit] = filepath.Join(e.root, ".git")
		}
		take := func(steady bool) (key, empty string) {
			s, err := newTreeSnapshot(ctx, r.root, steady, []string{"logs"})
			if err != nil {
				rt.Fatalf("snapshot: %v", err)
			}
			defer s.Close()
			return s.Key(), s.EmptyDirs()
		}
		seen := map[string]string{}   // reference -> EmptyDirs
		states := map[string]string{} // EmptyDirs -> reference
		var did []string
		toggled := false
		for range rapid.IntRange(1, 7).Draw(rt, "steps") {
			d := rapid.SampledFrom(dirs).Draw(rt, "dir")
			abs := filepath.Join(r.root, filepath.FromSlash(d))
			mk := func() { _ = os.MkdirAll(abs, 0o755) }
			op := rapid.IntRange(0, 17).Draw(rt, "op")
			switch op {
			case 0:
				mk()
			case 1:
				mk()
				_ = os.WriteFile(filepath.Join(abs, "f.txt"), []byte("x\n"), 0o644)
			case 2:
				mk()
				_ = os.WriteFile(filepath.Join(abs, "x.log"), []byte("x\n"), 0o644)
			case 3:
				mk()
				_ = os.WriteFile(filepath.Join(abs, "x.tmp"), []byte("x\n"), 0o644)
			case 4:
				_ = os.MkdirAll(filepath.Join(abs, "build", "o"), 0o755)
				_ = os.WriteFile(filepath.Join(abs, "build", "o", "f"), []byte("x\n"), 0o644)
			case 5:
				_ = os.Remove(filepath.Join(abs, rapid.SampledFrom([]string{"f.txt", "x.log", "x.tmp", "p", "s"}).Draw(rt, "file")))
			case 6:
				_ = os.RemoveAll(abs)
			case 7:
				mk()
				_ = syscall.Mkfifo(filepath.Join(abs, "p"), 0o644)
			case 8:
				mk()
				_ = syscall.Mknod(filepath.Join(abs, "s"), syscall.S_IFSOCK|0o644, 0)
			case 9:
				mk()
				if !fileExists(filepath.Join(abs, ".git")) {
					newRepoAt(t, abs)
				}
			case 10:
				mk()
				if !fileExists(filepath.Join(abs, ".git")) {
					n := newRepoAt(t, abs)
					n.write("in.txt", "x\n")
					n.git("add", "in.txt")
					n.git("commit", "-q", "-m", "in")
				}
			case 11:
				mk()
				if !fileExists(filepath.Join(abs, ".git")) {
					target := ext[rapid.Bool().Draw(rt, "with a commit")]
					_ = os.WriteFile(filepath.Join(abs, ".git"), []byte("gitdir: "+target+"\n"), 0o644)
				}
			case 12:
				to := filepath.Join(r.root, filepath.FromSlash(rapid.SampledFrom(dirs).Draw(rt, "to")))
				_ = os.MkdirAll(filepath.Dir(to), 0o755)
				_ = os.Rename(abs, to)
			case 13:
				_ = os.Remove(abs) // only when empty
			case 14: // nothing
			case 17: // an empty directory a rule may name
				_ = os.MkdirAll(filepath.Join(abs, rapid.SampledFrom([]string{"build", "target"}).Draw(rt, "name")), 0o755)
			case 15: // rules edited in place: no directory's times move
				toggleLine(rt, filepath.Join(r.root, ".gitignore"), rapid.SampledFrom([]string{"*.log", "build/"}).Draw(rt, "rule"))
			case 16:
				toggleLine(rt, filepath.Join(r.root, ".git", "info", "exclude"), rapid.SampledFrom([]string{"*.tmp", "target/"}).Draw(rt, "rule"))
			}
			did = append(did, fmt.Sprintf("%d %s", op, d))
			toggled = toggled || op == 15 || op == 16
			time.Sleep(3 * filestat.Margin)
			key, empty := take(true)
			forgetWalks(rt, r.root)
			if walked, _ := take(true); walked != key {
				rt.Fatalf("after %v: the memo stood for a walk that finds otherwise: key %q, walked %q", did, key, walked)
			}
			freshKey, freshEmpty := take(false)
			// A kept index holds on to a file the rules came to ignore
			// (as git keeps a tracked one), a fresh one does not; and one
			// holding a gitlink below a repository made since reads that
			// repository's .git as none git reads (uncertain: no key, so
			// no verdict kept), a fresh one does not. Only keys that both
			// tell, with the rules as they were, are compared.
			if !toggled && key != "" && freshKey != "" && (key != freshKey || empty != freshEmpty) {
				rt.Fatalf("after %v: kept index key %q (empty %q), fresh index key %q (empty %q)", did, key, empty, freshKey, freshEmpty)
			}
			if freshKey != "" {
				ref := visibleDirs(rt, r.root, []string{"logs"})
				if was, ok := seen[ref]; ok && was != freshEmpty {
					rt.Fatalf("after %v: the same directories %q, yet EmptyDirs %q, then %q", did, ref, was, freshEmpty)
				}
				if was, ok := states[freshEmpty]; ok && was != ref {
					rt.Fatalf("after %v: EmptyDirs %q stands for the directories %q and %q", did, freshEmpty, was, ref)
				}
				seen[ref], states[freshEmpty] = freshEmpty, ref
			}
			time.Sleep(3 * filestat.Margin)
			was := walksSkipped.Load()
			if again, _ := take(true); again != key {
				rt.Fatalf("after %v: nothing changed, yet the key moved: %q -> %q", did, key, again)
			}
			asked++
			if walksSkipped.Load() > was {
				hits++
			}
		}
	})
	t.Logf("walks skipped with nothing changed: %d of %d", hits, asked)
	if hits == 0 {
		t.Errorf("the memo never stood for a walk")
	}
}

// visibleDirs is the reference of the directories git lists no file
// under, in the work tree at top and in every repository inside it, as
// one string ("path kind" a line, sorted): found by reading the disk, the
// ignore rules asked of `git check-ignore` in the work tree (none in a
// repository inside, whose files are all keyed). A directory is listed
// ("d") when no file, link or commit of a repository inside is under it
// outside what is ignored, nor a repository inside holding a file or link,
// and it holds no ignored file itself; the top of a repository inside is
// listed ("r") when it holds no file nor link. left are the
// directories left out (relative to top).
func visibleDirs(t *rapid.T, top string, left []string) string {
	var lines []string
	ignoredIn := func(dir string, names []string) map[string]bool {
		var in bytes.Buffer
		for _, n := range names {
			rel, _ := filepath.Rel(top, filepath.Join(dir, n))
			in.WriteString(filepath.ToSlash(rel) + "\x00")
		}
		cmd := exec.Command("git", "-C", top, "check-ignore", "-z", "--stdin")
		cmd.Stdin = &in
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			t.Fatalf("check-ignore: %v", err)
		}
		got := map[string]bool{}
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				got[path.Base(p)] = true
			}
		}
		return got
	}
	isRepo := func(dir string) (repo, commit bool) {
		if !fileExists(filepath.Join(dir, ".git")) {
			return false, false
		}
		out, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output()
		if err != nil || strings.TrimSpace(string(out)) != dir {
			return false, false
		}
		return true, exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "HEAD").Run() == nil
	}
	// walk reports whether git lists something under dir (rel from top:
	// "" for the top of a repository, prefix its path); outer says the
	// ignore rules apply.
	var walk func(dir, rel, prefix string, outer bool) bool
	walk = func(dir, rel, prefix string, outer bool) bool {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return true
		}
		var names []string
		for _, e := range ents {
			if e.Name() != ".git" {
				names = append(names, e.Name())
			}
		}
		ignored := map[string]bool{}
		if outer && len(names) > 0 {
			ignored = ignoredIn(dir, names)
		}
		listed, ignoredFile := false, false
		for _, e := range ents {
			sub, abs := path.Join(rel, e.Name()), filepath.Join(dir, e.Name())
			switch {
			case e.Name() == ".git":
			case outer && slices.ContainsFunc(left, func(l string) bool { return prefix+sub == l }):
			case ignored[e.Name()]:
				ignoredFile = ignoredFile || !e.IsDir()
			case e.IsDir():
				if repo, commit := isRepo(abs); repo {
					inner := walk(abs, "", prefix+sub+"/", false)
					if !inner {
						lines = append(lines, prefix+sub+" r")
					}
					listed = listed || commit || inner
					continue
				}
				listed = walk(abs, sub, prefix, outer) || listed
			case e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0:
				listed = true
			}
		}
		if rel != "" && !listed && !ignoredFile {
			lines = append(lines, prefix+rel+" d")
		}
		return listed
	}
	walk(top, "", "", true)
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// toggleLine rewrites the file f in place (the same inode) with the line
// l added, or taken out when it holds it.
func toggleLine(t *rapid.T, f, l string) {
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if i := slices.Index(lines, l); i >= 0 {
		lines = slices.Delete(lines, i, i+1)
	} else {
		lines = append(lines, l)
	}
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// forgetWalks removes every memo of an empty-directory walk of the work
// tree at top (its own and its nested repositories'), so that the next
// snapshot walks.
func forgetWalks(t *rapid.T, top string) {
	err := filepath.WalkDir(filepath.Join(top, ".git", "agent-gauntlet"), func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, emptySuffix) {
			return os.Remove(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
