package cache

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"pgregory.net/rapid"
)

// ancestryRepo is a repository the differential test rewrites: its commits
// (an arbitrary graph made with commit-tree) and what it did to them.
type ancestryRepo struct {
	t       *rapid.T
	root    string
	commits []string
}

func (r *ancestryRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.root}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_NO_REPLACE_OBJECTS=1", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// try runs git where the step may be refused (a replace ref that would
// make a cycle, refs that cannot be packed past one).
func (r *ancestryRepo) try(args ...string) {
	_ = exec.Command("git", append([]string{"-C", r.root}, args...)...).Run()
}

func (r *ancestryRepo) pick(label string) string {
	return rapid.SampledFrom(r.commits).Draw(r.t, label)
}

func (r *ancestryRepo) write(rel, content string) {
	p := filepath.Join(r.root, ".git", filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// steps are what the test does to the repository between questions: a new
// commit anywhere in the graph, branches moved or switched (with and
// without a reflog), a detached HEAD, refs packed, and everything that
// makes git read other parents than a commit names: replace refs (loose
// and packed, made and deleted), a grafts file and a shallow file.
func (r *ancestryRepo) steps() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"commit": func(t *rapid.T) {
			args := []string{"commit-tree", "-m", fmt.Sprintf("c%d", len(r.commits))}
			for _, p := range rapid.SliceOfNDistinct(rapid.SampledFrom(r.commits), 0, 2, rapid.ID[string]).Draw(t, "parents") {
				args = append(args, "-p", p)
			}
			r.commits = append(r.commits, r.git(append(args, git.EmptyTree)...))
		},
		"move main": func(*rapid.T) { r.git("update-ref", "refs/heads/main", r.pick("main")) },
		"move feature, no reflog": func(*rapid.T) {
			r.git("-c", "core.logAllRefUpdates=false", "update-ref", "--no-create-reflog", "refs/heads/feature", r.pick("feature"))
		},
		"switch": func(t *rapid.T) {
			r.git("symbolic-ref", "HEAD", "refs/heads/"+rapid.SampledFrom([]string{"main", "feature"}).Draw(t, "branch"))
		},
		"detach":    func(*rapid.T) { r.git("update-ref", "--no-deref", "HEAD", r.pick("detached")) },
		"pack refs": func(*rapid.T) { r.try("pack-refs", "--all") },
		"replace":   func(*rapid.T) { r.try("replace", "-f", r.pick("replaced"), r.pick("by")) },
		"graft": func(*rapid.T) {
			r.try("replace", "-f", "--graft", r.pick("grafted"), r.pick("onto"))
		},
		"unreplace": func(*rapid.T) {
			if list := r.git("replace", "-l"); list != "" {
				r.try(append([]string{"replace", "-d"}, strings.Fields(list)...)...)
			}
		},
		"grafts file": func(*rapid.T) { r.write("info/grafts", r.pick("child")+" "+r.pick("parent")+"\n") },
		"no grafts":   func(*rapid.T) { _ = os.Remove(filepath.Join(r.root, ".git", "info", "grafts")) },
		"shallow":     func(*rapid.T) { r.write("shallow", r.pick("shallow")+"\n") },
		"not shallow": func(*rapid.T) { _ = os.Remove(filepath.Join(r.root, ".git", "shallow")) },
	}
}

// TestAncestryMemoAgreesWithGit is the differential test of the ancestry
// memo: after every step, the memo (kept across steps, as across stops)
// answers every question as git asked afresh does, for commits anywhere in
// the graph and for what HEAD and the base branch name; and in a
// repository whose history git reads as its commits name it, a question
// asked again is answered without git.
func TestAncestryMemoAgreesWithGit(t *testing.T) {
	testenv.Setenv(t)
	ctx := context.Background()
	hits, asked := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "gauntlet-ancestry-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(root)
		r := &ancestryRepo{t: rt, root: root}
		r.git("init", "-q", "-b", "main")
		r.commits = []string{r.git("commit-tree", "-m", "root", git.EmptyTree)}
		r.git("update-ref", "refs/heads/main", r.commits[0])
		r.git("update-ref", "refs/heads/feature", r.commits[0])
		memo := NewAncestry(root, filepath.Join(root, ".git"))
		calls := 0
		memo.ask = func(ctx context.Context, root, commit, of string) (bool, error) {
			calls++
			return git.IsAncestor(ctx, root, commit, of)
		}
		steps := r.steps()
		names := make([]string, 0, len(steps))
		for n := range steps {
			names = append(names, n)
		}
		for i := range rapid.IntRange(1, 12).Draw(rt, "steps") {
			step := rapid.SampledFrom(names).Draw(rt, fmt.Sprintf("step %d", i))
			steps[step](rt)
			pairs := [][2]string{{r.git("rev-parse", "HEAD"), r.git("rev-parse", "main")}}
			for j := range rapid.IntRange(1, 3).Draw(rt, "questions") {
				pairs = append(pairs, [2]string{r.pick(fmt.Sprintf("commit %d", j)), r.pick(fmt.Sprintf("of %d", j))})
			}
			for _, q := range pairs {
				want, wantErr := git.IsAncestor(ctx, root, q[0], q[1])
				for range 2 {
					before := calls
					got, err := memo.IsAncestor(ctx, q[0], q[1])
					if (err != nil) != (wantErr != nil) {
						rt.Fatalf("after %s: is %s an ancestor of %s: memo's error %v, git's %v", step, q[0], q[1], err, wantErr)
					}
					if got != want {
						rt.Fatalf("after %s: is %s an ancestor of %s: memo %v, git %v", step, q[0], q[1], got, want)
					}
					if q[0] != q[1] && git.AncestryFixed(filepath.Join(root, ".git")) {
						asked++
						if calls == before {
							hits++
						}
					}
				}
			}
		}
	})
	if asked > 0 && hits*2 < asked {
		t.Errorf("the memo answered %d of %d questions in a repository whose history is fixed: every repeated one should hit", hits, asked)
	}
	t.Logf("ancestry memo: %d of %d questions answered without git", hits, asked)
}

// TestAncestryFixed: each thing that makes git read other parents than a
// commit names makes the history not fixed.
func TestAncestryFixed(t *testing.T) {
	testenv.Setenv(t)
	root := repo(t)
	dir := filepath.Join(root, ".git")
	gitIn(t, root, "commit", "-q", "--allow-empty", "-m", "second")
	head := gitIn(t, root, "rev-parse", "HEAD")
	if !git.AncestryFixed(dir) {
		t.Fatal("a plain repository is not fixed")
	}
	for _, c := range []struct {
		name string
		do   func()
	}{
		{"loose replace ref", func() { gitIn(t, root, "replace", "--graft", head) }},
		{"packed replace ref", func() { gitIn(t, root, "replace", "--graft", head); gitIn(t, root, "pack-refs", "--all") }},
		{"grafts file", func() { _ = os.WriteFile(filepath.Join(dir, "info", "grafts"), []byte(head+"\n"), 0o644) }},
		{"shallow file", func() { _ = os.WriteFile(filepath.Join(dir, "shallow"), []byte(head+"\n"), 0o644) }},
		{"GIT_REPLACE_REF_BASE", func() { t.Setenv("GIT_REPLACE_REF_BASE", "refs/other/") }},
		{"GIT_GRAFT_FILE", func() { t.Setenv("GIT_GRAFT_FILE", "/nonexistent") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.do()
			if git.AncestryFixed(dir) {
				t.Errorf("%s: history still called fixed", c.name)
			}
			_ = os.Remove(filepath.Join(dir, "info", "grafts"))
			_ = os.Remove(filepath.Join(dir, "shallow"))
			if l := gitIn(t, root, "replace", "-l"); l != "" {
				gitIn(t, root, append([]string{"replace", "-d"}, strings.Fields(l)...)...)
			}
			os.Unsetenv("GIT_REPLACE_REF_BASE")
			os.Unsetenv("GIT_GRAFT_FILE")
		})
	}
	if !git.AncestryFixed(dir) {
		t.Error("a plain repository again is not fixed")
	}
}

// TestAncestryAnswerKept: an answer about commits is computed once and
// kept per question and commits, and computed every time while the
// history may be read otherwise than its commits name it.
func TestAncestryAnswerKept(t *testing.T) {
	testenv.Setenv(t)
	root := repo(t)
	dir := filepath.Join(root, ".git")
	head := gitIn(t, root, "rev-parse", "HEAD")
	a := NewAncestry(root, dir)
	asked := 0
	compute := func(answer string) func() (string, error) {
		return func() (string, error) { asked++; return answer, nil }
	}
	ctx := context.Background()
	for i, c := range []struct {
		question, answer, want string
		asked                  int
	}{
		{"q1", "first", "first", 1},
		{"q1", "other", "first", 1}, // kept
		{"q2", "second", "second", 2},
		{"q2", "other", "second", 2},
	} {
		got, err := a.Answer(ctx, c.question, []string{head}, compute(c.answer))
		if err != nil || got != c.want || asked != c.asked {
			t.Fatalf("step %d: %q, %v after %d computations, want %q after %d", i, got, err, asked, c.want, c.asked)
		}
	}
	gitIn(t, root, "commit", "-q", "--allow-empty", "-m", "second")
	gitIn(t, root, "replace", "--graft", gitIn(t, root, "rev-parse", "HEAD"))
	for range 2 {
		if got, _ := a.Answer(ctx, "q1", []string{head}, compute("now")); got != "now" {
			t.Fatalf("with a replace ref the kept answer %q was taken", got)
		}
	}
	if asked != 4 {
		t.Errorf("computed %d times, want 4", asked)
	}
}
