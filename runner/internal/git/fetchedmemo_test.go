package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
)

// The fetched memo's invariant: FetchedKept answers exactly what Fetched
// answers in every state of the repository, whatever state the memo was
// written in; and once the files Fetched reads are old enough, asking
// again with nothing changed is answered by the memo (no git process),
// unless the state cannot be kept (a configuration that includes another
// file).
//
// The states are generated: every way of moving the tracking ref
// (fetchedMoves), in a repository whose reflogs hold one entry or many
// (three fetches before the move), each followed by a chain of changes of
// what Fetched reads: the refs packed, the remote's HEAD deleted, the
// remote's url emptied and set again, an include added and removed, every
// reflog expired (none), and the remote removed. At every step the memo
// of the step before (written when its files were old enough) is asked
// first, for the base main and for origin/main. Whether git can store refs
// in a reftable is asked of the local git: that storage is one more
// repository shape where it can.
func TestFetchedMemoAgreesWithGit(t *testing.T) {
	shortMargin(t)
	ctx := context.Background()
	steps := []struct {
		name string
		do   func(x moveEnv)
	}{
		{"as moved", func(moveEnv) {}},
		{"refs packed", func(x moveEnv) { x.r.git("pack-refs", "--all") }},
		{"the remote's HEAD deleted", func(x moveEnv) { try(x.r, "symbolic-ref", "--delete", "refs/remotes/origin/HEAD") }},
		{"url emptied", func(x moveEnv) { x.r.git("config", "remote.origin.url", "") }},
		{"url set again", func(x moveEnv) { x.r.git("config", "remote.origin.url", x.bare) }},
		{"an include", func(x moveEnv) { x.r.git("config", "include.path", "elsewhere") }},
		{"the include removed", func(x moveEnv) { x.r.git("config", "--unset", "include.path") }},
		{"no reflog", func(x moveEnv) { x.r.git("reflog", "expire", "--expire=now", "--all") }},
		{"remote removed", func(x moveEnv) { x.r.git("config", "--remove-section", "remote.origin") }},
	}
	formats := []string{"files"}
	if out, err := exec.Command("git", "init", "-q", "--ref-format=reftable", t.TempDir()).CombinedOutput(); err == nil {
		formats = append(formats, "reftable")
	} else {
		first, _, _ := strings.Cut(string(out), "\n")
		t.Logf("this git keeps no refs in a reftable: %v: %s", err, first)
	}
	asked, hits := 0, 0
	for _, format := range formats {
		for _, many := range []bool{false, true} {
			for _, mv := range fetchedMoves() {
				name := format + ", " + mv.name
				if many {
					name = format + ", many entries, " + mv.name
				}
				t.Run(name, func(t *testing.T) {
					x := newMoveEnvOf(t, format, many)
					mv.move(t, x)
					loc, err := Locate(ctx, x.r.root)
					if err != nil {
						t.Fatal(err)
					}
					for _, st := range steps {
						st.do(x)
						time.Sleep(2 * filestat.Margin)
						c := x.r.git("rev-parse", "refs/remotes/origin/main")
						for _, base := range []string{"main", "origin/main"} {
							want, err := Fetched(ctx, x.r.root, base, c)
							if err != nil {
								t.Fatal(err)
							}
							// The memo of the step before first, then again once
							// every file is old enough to be kept, then kept.
							for i := range 3 {
								if i == 1 {
									time.Sleep(2 * filestat.Margin)
								}
								got, hit, err := fetchedKept(ctx, loc, x.r.root, base, c)
								if err != nil {
									t.Fatal(err)
								}
								if got != want {
									t.Fatalf("%s, base %s, ask %d: the memo answers %v, git %v (hit %v)", st.name, base, i, got, want, hit)
								}
								if i == 1 {
									asked++
									if hit {
										hits++
									} else if st.name != "an include" {
										t.Errorf("%s, base %s: not answered by the memo with nothing changed", st.name, base)
									}
								}
							}
						}
					}
				})
			}
		}
	}
	t.Logf("the memo answered %d of %d asks with nothing changed", hits, asked)
}

// try runs git in r, its failure being one of the states made.
func try(r *repo, args ...string) {
	_ = exec.Command("git", append([]string{"-C", r.root}, args...)...).Run()
}

// TestFetchedMemoWorktree holds the memo to git for a project below the
// top level of a linked worktree, whose own configuration file
// (config.worktree, beside its git directory, not the common one) sets the
// remote's url: a change there is seen.
func TestFetchedMemoWorktree(t *testing.T) {
	shortMargin(t)
	ctx := context.Background()
	x := newMoveEnv(t)
	x.other.push()
	x.r.git("fetch", "-q")
	x.r.git("config", "extensions.worktreeConfig", "true")
	wt := &repo{t: t, root: filepath.Join(t.TempDir(), "wt")}
	x.r.git("worktree", "add", "-q", "--detach", wt.root)
	root := filepath.Join(wt.root, "sub")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	loc, err := Locate(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	c := x.r.git("rev-parse", "refs/remotes/origin/main")
	for _, change := range [][]string{nil, {"config", "--worktree", "remote.origin.url", ""}, {"config", "--worktree", "--unset", "remote.origin.url"}} {
		if change != nil {
			wt.git(change...)
		}
		time.Sleep(2 * filestat.Margin)
		want, err := Fetched(ctx, root, "main", c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			got, hit, err := fetchedKept(ctx, loc, root, "main", c)
			if err != nil {
				t.Fatal(err)
			}
			if got != want || i == 1 && !hit {
				t.Fatalf("after %v, ask %d: the memo answers %v (hit %v), git %v", change, i, got, hit, want)
			}
		}
	}
}
