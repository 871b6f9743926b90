//go:build unix

package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// accountCase is one member of the class of changes a review diff built
// by a way of its own may miss: the work, and the path (marked) whose
// changed line must reach the reviewer or be named.
type accountCase struct {
	name string
	// work changes the project on branch feat (main is committed) and
	// returns the marked path.
	work func(t *testing.T, r *repo) string
	// named is true when the marked path must be named (its content can
	// not be shown), false when either is fine.
	named bool
}

// accountCases generate the class: repositories nested 1 to 6 deep with
// and without commits, a submodule with and without its .git, names
// that are no plain text, links that leave through a directory link.
func accountCases() []accountCase {
	var cases []accountCase
	for depth := 1; depth <= 6; depth++ {
		for _, committed := range []bool{false, true} {
			cases = append(cases, accountCase{
				name: fmt.Sprintf("nested/depth %d/committed=%v", depth, committed),
				work: func(t *testing.T, r *repo) string { return nestRepos(t, r, depth, committed) },
			})
		}
	}
	for _, gitDir := range []bool{true, false} {
		cases = append(cases, accountCase{
			name: fmt.Sprintf("submodule/.git kept=%v", gitDir),
			work: func(t *testing.T, r *repo) string { return editSubmodule(t, r, gitDir) },
		})
	}
	for _, odd := range []string{"n\xff\xfe.txt", "new\nline.txt", `q"uo"te.txt`, `back\slash.txt`, "tab\there.txt", "d/\x01ctl.txt"} {
		cases = append(cases, accountCase{
			name: fmt.Sprintf("odd name %q", odd),
			work: func(t *testing.T, r *repo) string { r.write(odd, "x BAD\n"); return odd },
		})
	}
	for _, via := range []string{"shared/out.txt", "./shared/out.txt", "shared/../shared/out.txt", "deep/inner/out.txt"} {
		cases = append(cases, accountCase{
			name:  "link through a directory link/" + via,
			work:  func(t *testing.T, r *repo) string { return linkThrough(t, r, via) },
			named: true,
		})
	}
	return cases
}

// nestRepos makes d1, d1/d2, ... repositories of their own, depth deep,
// each with a commit of c.txt when committed, and a new y.txt in the
// deepest.
func nestRepos(t *testing.T, r *repo, depth int, committed bool) string {
	dir := ""
	for i := 1; i <= depth; i++ {
		dir = filepath.Join(dir, fmt.Sprintf("d%d", i))
		r.write(filepath.Join(dir, "c.txt"), "c\n")
		nestedGit(t, filepath.Join(r.root, dir), "init", "-q")
	}
	if committed {
		for i := depth; i >= 1; i-- {
			d := r.root
			for k := 1; k <= i; k++ {
				d = filepath.Join(d, fmt.Sprintf("d%d", k))
			}
			nestedGit(t, d, "add", "c.txt")
			nestedGit(t, d, "commit", "-q", "-m", "c")
		}
	}
	marked := filepath.ToSlash(filepath.Join(dir, "y.txt"))
	r.write(marked, "x BAD\n")
	return marked
}

// editSubmodule adds a submodule vend on main; on feat its .git is kept
// or removed, and vend/x.txt gets the marked line.
func editSubmodule(t *testing.T, r *repo, keepGit bool) string {
	src := t.TempDir()
	nestedGit(t, src, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(src, "x.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	nestedGit(t, src, "add", "x.txt")
	nestedGit(t, src, "commit", "-q", "-m", "x")
	r.git("checkout", "-q", "main")
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "vend")
	r.commitAll("vend")
	r.git("checkout", "-q", "feat")
	r.git("merge", "-q", "main")
	if !keepGit {
		if err := os.RemoveAll(filepath.Join(r.root, "vend", ".git")); err != nil {
			t.Fatal(err)
		}
	}
	r.write("vend/x.txt", "x\nx BAD\n")
	return "vend/x.txt"
}

// linkThrough commits a directory link out of the project on main (and
// one a level deeper); on feat cfg.txt links to via, whose text stays in
// the project.
func linkThrough(t *testing.T, r *repo, via string) string {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"out.txt", "inner/out.txt"} {
		if err := os.WriteFile(filepath.Join(out, f), []byte("x BAD\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.git("checkout", "-q", "main")
	if err := os.Symlink(out, filepath.Join(r.root, "shared")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("shared", filepath.Join(r.root, "deep")); err != nil {
		t.Fatal(err)
	}
	r.commitAll("links")
	r.git("checkout", "-q", "feat")
	r.git("merge", "-q", "main")
	if err := os.Symlink(via, filepath.Join(r.root, "cfg.txt")); err != nil {
		t.Fatal(err)
	}
	return "cfg.txt"
}

// For every changed path the change set lists in a review's scope, the
// review diff (with Account) holds a section of it or names it; the
// marked path is listed, and shown with its changed line or named.
func TestReviewAccountsForEveryListedPath(t *testing.T) {
	ctx := context.Background()
	spec := gate.DiffSpec{Mode: gate.DiffLocal, BaseBranch: "main"}
	for _, c := range accountCases() {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("a.txt", "a\n")
			r.commitAll("base")
			r.git("checkout", "-q", "-b", "feat")
			marked := c.work(t, r)
			ch, err := ChangedFiles(ctx, r.root, spec)
			if err != nil {
				t.Fatal(err)
			}
			if !listedOrUnder(ch.Files, marked) {
				t.Fatalf("the change set does not list %q: %q", marked, ch.Files)
			}
			rd, err := Diff(ctx, r.root, spec, dirScope("."))
			if err != nil {
				t.Fatal(err)
			}
			rd = Account(rd, ch.Files)
			shown := map[string]string{}
			for _, s := range splitSections(rd.Text) {
				shown[s.path] = s.body
			}
			named := map[string]bool{}
			for _, n := range rd.NotShown {
				named[n.Path] = true
			}
			for _, p := range ch.Files {
				if _, ok := shown[p]; !ok && !named[p] && !shownBelow(boolSet(shown), p) {
					t.Errorf("%q is listed, neither shown nor named\nnamed %v\n%s", p, rd.NotShown, rd.Text)
				}
			}
			body, isShown := shown[marked]
			switch {
			case c.named && !named[marked]:
				t.Errorf("%q is not named: %v\n%s", marked, rd.NotShown, rd.Text)
			case !named[marked] && !listedDirNamed(named, marked) && !(isShown && strings.Contains(body, "+x BAD")):
				t.Errorf("%q: its changed line is not shown, nor is it named: %v\n%s", marked, rd.NotShown, rd.Text)
			}
		})
	}
}

// listedOrUnder reports whether files lists p or a directory holding it.
func listedOrUnder(files []string, p string) bool {
	for _, f := range files {
		if f == p || (strings.HasSuffix(f, "/") && strings.HasPrefix(p, f)) {
			return true
		}
	}
	return false
}

// listedDirNamed reports whether named holds a directory of p.
func listedDirNamed(named map[string]bool, p string) bool {
	for n := range named {
		if strings.HasSuffix(n, "/") && strings.HasPrefix(p, n) {
			return true
		}
	}
	return false
}

// boolSet is the keys of m.
func boolSet(m map[string]string) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
