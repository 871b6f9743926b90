package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/outcome"
)

// TestMergedWorkIsTheBase pins how a verification run judges a failure of
// a baseline: true check that was pending when the base branch came to
// hold the work.
//
// Invariant: once the base branch's fetched remote-tracking copy holds a
// commit this repository did not make past where the episode began (the
// work's pull request merged on the remote), the base is the base as it
// is, whatever HEAD did since: left behind it, committed on without it,
// or came to hold it (a fast-forward pull, a pull then commits, commits
// then a merge of the base): a failure merged into the base is
// pre-existing. A base that holds the work by the agent's moves alone (a
// merge into the local base, its own commits pushed and fetched back)
// keeps the episode's base, however HEAD moves after: the failure stays
// the agent's.
//
// The table is every person's move × every move of HEAD after it × run and
// check.
func TestMergedWorkIsTheBase(t *testing.T) {
	moves := []struct {
		name   string
		do     func(t *testing.T, g gitIn)
		merged bool // the base as it is holds the failure: pre-existing
	}{
		{"pull request merged on the remote", mergeOnRemote, true},
		{"merged into the local base alone", func(t *testing.T, g gitIn) {
			g(t, "sh", "-c", "git update-ref refs/heads/main $(git commit-tree HEAD^{tree} -p main -p HEAD -m merge)")
		}, false},
		{"own commits pushed and fetched back", func(t *testing.T, g gitIn) {
			g(t, "git", "branch", "-f", "main", "HEAD")
			g(t, "sh", "-c", `git push -q "$(git config remote.origin.url)" main && git fetch -q origin`)
		}, false},
	}
	heads := []struct {
		name string
		do   func(t *testing.T, g gitIn)
	}{
		{"stays", func(*testing.T, gitIn) {}},
		{"commits on", func(t *testing.T, g gitIn) { commitFile(t, g, "src/on.txt") }},
		{"pulls", func(t *testing.T, g gitIn) { g(t, "git", "merge", "-q", "--no-edit", "main") }},
		{"pulls then commits", func(t *testing.T, g gitIn) {
			g(t, "git", "merge", "-q", "--no-edit", "main")
			commitFile(t, g, "src/on.txt")
		}},
		{"commits then pulls", func(t *testing.T, g gitIn) {
			commitFile(t, g, "src/on.txt")
			g(t, "git", "merge", "-q", "--no-edit", "main")
		}},
	}
	for _, mv := range moves {
		for _, hd := range heads {
			for _, kinds := range []Kinds{KindsAll, KindsChecks} {
				t.Run(mv.name+"/"+hd.name+"/"+string(kinds), func(t *testing.T) {
					root, g := mergedProject(t)
					ctx := context.Background()
					if res := Execute(ctx, Options{Dir: root, Kinds: kinds}); res.Status != outcome.StatusFailed {
						t.Fatalf("first run: %s (%s %s), want failed", res.Status, gateMessages(res), res.ErrorMessage)
					}
					mv.do(t, g)
					hd.do(t, g)
					res := Execute(ctx, Options{Dir: root, Kinds: kinds})
					passed := res.Status == outcome.StatusPassed || res.Status == outcome.StatusPassedWithWarnings
					if passed != mv.merged {
						t.Fatalf("verification run: %s (%s), want pre-existing: %v", res.Status, gateMessages(res), mv.merged)
					}
				})
			}
		}
	}
}

// gitIn runs a command in the project's repository.
type gitIn func(t *testing.T, name string, args ...string)

// mergedProject is a repository whose base branch main has a remote
// (origin, a bare repository, fetched), and a branch feat whose one commit
// adds a failure of the baseline: true check.
func mergedProject(t *testing.T) (string, gitIn) {
	root := testProject(t, "true", "")
	if err := os.WriteFile(filepath.Join(root, ".gauntlet/checks/lint.yml"),
		[]byte("command: if grep -rn BAD .; then exit 1; fi\nbaseline: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(t.TempDir(), "remote.git")
	g := func(t *testing.T, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	g(t, "rm", "src/new.txt")
	g(t, "git", "add", "-A")
	g(t, "git", "commit", "-q", "-m", "baseline")
	g(t, "git", "init", "-q", "--bare", remote)
	g(t, "git", "remote", "add", "origin", remote)
	g(t, "git", "push", "-q", "origin", "main")
	g(t, "git", "fetch", "-q", "origin")
	g(t, "git", "checkout", "-q", "-b", "feat")
	if err := os.WriteFile(filepath.Join(root, "src/bad.txt"), []byte("BAD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g(t, "git", "add", "-A")
	g(t, "git", "commit", "-q", "-m", "bad")
	return root, g
}

// mergeOnRemote merges feat into the remote's main in a clone of its own
// (the pull request merged by its host), fetches it and moves the local
// main to it.
func mergeOnRemote(t *testing.T, g gitIn) {
	host := filepath.Join(t.TempDir(), "host")
	g(t, "git", "push", "-q", "origin", "feat")
	g(t, "sh", "-c", `url=$(git config remote.origin.url) && git clone -q "$url" "$0" && cd "$0" &&
		git merge -q --no-ff --no-edit origin/feat && git push -q origin main`, host)
	g(t, "git", "fetch", "-q", "origin")
	g(t, "git", "branch", "-f", "main", "origin/main")
}

// commitFile commits a new plain file.
func commitFile(t *testing.T, g gitIn, rel string) {
	g(t, "sh", "-c", "mkdir -p \"$(dirname \"$0\")\" && echo ok > \"$0\" && git add -A && git commit -q -m more", rel)
}

// gateMessages lists the gates of a result with their messages.
func gateMessages(res outcome.RunResult) string {
	var out []string
	for _, g := range res.Gates {
		out = append(out, g.JobID+": "+string(g.Status)+" "+g.Message)
	}
	return strings.Join(out, "; ")
}
