package cache

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/baseline"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/ledger"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// repo creates a git repository with a change in src, as the runner's
// tests do: src/main.txt committed on main.
func repo(t *testing.T) string {
	t.Helper()
	testenv.Setenv(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "main.txt"), []byte("main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		gitIn(t, root, args...)
	}
	return root
}

func gitIn(t *testing.T, root string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Base results are keyed by the base commit's tree (content, not commit),
// the gate and the caller's extra inputs; they are never a run's pass.
func TestBaseResults(t *testing.T) {
	root := repo(t)
	first := gitIn(t, root, "rev-parse", "HEAD")
	gitIn(t, root, "commit", "-q", "--allow-empty", "-m", "same tree")
	same := gitIn(t, root, "rev-parse", "HEAD")
	if err := os.WriteFile(filepath.Join(root, "src", "main.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, root, "commit", "-q", "-am", "other tree")
	other := gitIn(t, root, "rev-parse", "HEAD")

	c := &Results{ledger: ledger.Open(t.TempDir(), "cache", 0), root: root,
		run: Run{Version: "v1", BaseBranch: "main"}}
	b := &baseResults{c: c}
	lint := &config.Check{Name: "lint", Command: "make lint", Cache: config.CacheTree}
	job := gate.Job{ID: "check:src:lint", Kind: gate.KindCheck, Name: "lint", EntryPoint: "src", WorkingDir: "src", Check: lint}
	type result struct{ Passed bool }
	b.save(context.Background(), job, first, "a.go", result{Passed: false})
	var got result
	if !b.load(context.Background(), job, first, "a.go", &got) || got.Passed {
		t.Fatal("the saved base result is not there")
	}
	if !b.load(context.Background(), job, same, "a.go", &got) {
		t.Error("a commit with the same tree missed")
	}
	for name, miss := range map[string]func() bool{
		"another tree":  func() bool { return b.load(context.Background(), job, other, "a.go", &got) },
		"another extra": func() bool { return b.load(context.Background(), job, first, "b.go", &got) },
		"an unknown commit": func() bool {
			return b.load(context.Background(), job, strings.Repeat("0", 40), "a.go", &got)
		},
		"another command": func() bool {
			j := job
			c := *lint
			c.Command = "make lint2"
			j.Check = &c
			return b.load(context.Background(), j, first, "a.go", &got)
		},
		"a review": func() bool {
			j := job
			j.Kind, j.Check, j.Review = gate.KindReview, nil, &config.Review{Name: "lint"}
			return b.load(context.Background(), j, first, "a.go", &got)
		},
	} {
		if miss() {
			t.Errorf("%s: hit", name)
		}
	}
	// The run's own lookup never takes a base result for a pass.
	keys, err := c.keysOn(context.Background(), gitIn(t, root, "rev-parse", first+"^{tree}"), "", nil, []gate.Job{job}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var p Proof
	if _, ok, _ := c.ledger.Get(keys[job.ID], &p); ok {
		t.Fatal("a base result answers a run's lookup")
	}
	var none *baseResults
	if none.load(context.Background(), job, first, "", &got) {
		t.Fatal("no cache, yet a hit")
	}
	none.save(context.Background(), job, first, "", got)
}

// The baselines' store keys a base result of a check given the changed
// files by those the base run is given: those that are files at the base.
// Files new in the work tree do not change the key; one that the base has
// does. A check not given them is keyed by the tree alone.
func TestBaseStoreNarrowsChangedFiles(t *testing.T) {
	root := repo(t)
	base := gitIn(t, root, "rev-parse", "HEAD")
	c := &Results{ledger: ledger.Open(t.TempDir(), "cache", 0), root: root,
		run: Run{Version: "v1", BaseBranch: "main"}}
	s := baseStore{b: &baseResults{c: c}, take: true}
	lint := &config.Check{Name: "lint", Command: "lint ${CHANGED_FILES}", Cache: config.CacheTree, Baseline: true}
	req := func(changed ...string) baseline.Request {
		return baseline.Request{Commit: base, BaseBranch: "main", Job: gate.Job{ID: "check:src:lint", Kind: gate.KindCheck,
			Name: "lint", EntryPoint: "src", WorkingDir: "src", Check: lint, Changed: changed}}
	}
	s.Save(context.Background(), req("src/main.txt", "src/new.txt"), baseline.Result{Passed: true})
	for _, c := range []struct {
		changed []string
		hit     bool
	}{
		{[]string{"src/main.txt", "src/new.txt"}, true},
		{[]string{"src/main.txt", "src/new.txt", "src/newer.txt"}, true},
		{[]string{"src/main.txt"}, true},
		{[]string{"src/new.txt"}, false},
		{[]string{"src", "src/main.txt"}, true}, // a directory at the base is no file
	} {
		if _, ok := s.Load(context.Background(), req(c.changed...)); ok != c.hit {
			t.Errorf("changed %q: hit %v, want %v", c.changed, ok, c.hit)
		}
	}
	if _, ok := (baseStore{b: &baseResults{c: c}}).Load(context.Background(), req("src/main.txt")); ok {
		t.Error("--no-cache took a base result")
	}
	lint.Command = "make lint"
	s.Save(context.Background(), req("src/main.txt"), baseline.Result{Passed: true})
	for _, changed := range [][]string{{"src/new.txt"}, {"src/main.txt", "src/new.txt"}, nil} {
		if _, ok := s.Load(context.Background(), req(changed...)); !ok {
			t.Errorf("a check not given the changed files, changed %q: a miss", changed)
		}
	}
}

// A changes memo record gives back, byte for byte, the changes and absent
// paths it was made of (any path without a line break: spaces, quotes,
// backslashes, non-ASCII, invalid UTF-8, none at all), and a stored record
// cut or grown by a byte is not read as another one.
func TestMemoRecord(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		path := rapid.Custom(func(t *rapid.T) string {
			b := rapid.SliceOfN(rapid.ByteRange(0, 255), 1, 12).Draw(t, "path")
			return strings.NewReplacer("\n", "_", "\r", "_").Replace(string(b))
		})
		files := rapid.SliceOfN(path, 0, 20).Draw(t, "files")
		var absent []string
		for _, f := range files {
			if rapid.Bool().Draw(t, "absent") {
				absent = append(absent, f)
			}
		}
		ch := git.Changes{Files: files, BaseRef: rapid.SampledFrom([]string{"", "main", "origin/main"}).Draw(t, "base"),
			Warnings: rapid.SliceOfN(rapid.String(), 0, 2).Draw(t, "warnings")}
		rec, ok := newMemoRecord(ch, absent)
		if !ok || !rec.Complete {
			t.Fatal("not recorded")
		}
		data, err := rec.encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeMemoRecord(data)
		if err != nil {
			t.Fatal(err)
		}
		got := back.changes()
		if !slices.Equal(got.Files, ch.Files) || got.BaseRef != ch.BaseRef || !back.Complete ||
			!slices.Equal(lines(back.Absent), absent) {
			t.Fatalf("round trip: %+v absent %q, want %+v absent %q", got, lines(back.Absent), ch, absent)
		}
		for _, bad := range [][]byte{data[:len(data)-1], append(slices.Clone(data), 'x')} {
			if r, err := decodeMemoRecord(bad); err == nil && r.Files == rec.Files && r.Absent == rec.Absent {
				t.Fatalf("%q read as the record it is not", bad)
			}
		}
	})
	for _, bad := range []string{"a\nb", "c\rd"} {
		if _, ok := newMemoRecord(git.Changes{Files: []string{bad}}, nil); ok {
			t.Errorf("%q recorded", bad)
		}
	}
}

// A base result holds only for the world the base run saw beyond the base
// commit's tree (baseline.World: the dependency copies, the environment
// naming the project): another world misses.
func TestBaseStoreKeysWorld(t *testing.T) {
	root := repo(t)
	base := gitIn(t, root, "rev-parse", "HEAD")
	c := &Results{ledger: ledger.Open(t.TempDir(), "cache", 0), root: root,
		run: Run{Version: "v1", BaseBranch: "main"}}
	s := baseStore{b: &baseResults{c: c}, take: true}
	lint := &config.Check{Name: "lint", Command: "npx jest", Cache: config.CacheTree, Baseline: true}
	req := func(world string) baseline.Request {
		return baseline.Request{Commit: base, BaseBranch: "main", World: world, Job: gate.Job{ID: "check:src:lint", Kind: gate.KindCheck,
			Name: "lint", EntryPoint: "src", WorkingDir: "src", Check: lint}}
	}
	s.Save(context.Background(), req("node_modules as it was"), baseline.Result{ExitCode: 1})
	if _, ok := s.Load(context.Background(), req("node_modules as it was")); !ok {
		t.Error("the same world missed")
	}
	if _, ok := s.Load(context.Background(), req("node_modules upgraded")); ok {
		t.Error("another world hit")
	}
}
