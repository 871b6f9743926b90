package stophook

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// A changed .gitignore reaches the entry points in its directory, below
// and above it; any other rule (outside the work tree, the sparse-checkout
// patterns, the fingerprint of the files past the bound) reaches all.
// Wildcard entry points reach from their fixed prefix; a project in a
// subdirectory compares top-level-relative paths.
func TestRulesReach(t *testing.T) {
	cfg := &config.Config{EntryPoints: []config.EntryPoint{{Path: "src"}, {Path: "packages/*"}, {Path: "."}, {Path: "docs/site"}}}
	for _, c := range []struct {
		changed []string
		prefix  string
		want    []string
	}{
		{[]string{"src/.gitignore"}, "", []string{"src", "."}},
		{[]string{"src/deep/er/.gitignore"}, "", []string{"src", "."}},
		{[]string{".gitignore"}, "", []string{"src", "packages/*", ".", "docs/site"}},
		{[]string{"docs/.gitignore"}, "", []string{".", "docs/site"}},
		{[]string{"packages/a/.gitignore"}, "", []string{"packages/*", "."}},
		{[]string{"/repo/.git/info/exclude"}, "", []string{"src", "packages/*", ".", "docs/site"}},
		{[]string{"/repo/.git/info/sparse-checkout"}, "", []string{"src", "packages/*", ".", "docs/site"}},
		{[]string{"600 more .gitignore files"}, "", []string{"src", "packages/*", ".", "docs/site"}},
		{[]string{"app/src/.gitignore"}, "app/", []string{"src", "."}},
		{[]string{"other/.gitignore"}, "app/", nil},
		{[]string{"app/.gitignore"}, "app/", []string{"src", "packages/*", ".", "docs/site"}},
		{nil, "", nil},
	} {
		if got := rulesReach(c.changed, cfg, c.prefix); !slices.Equal(got, c.want) {
			t.Errorf("rulesReach(%q, prefix %q) = %q, want %q", c.changed, c.prefix, got, c.want)
		}
	}
}

// gitignoreFiles finds every .gitignore git reads, in a real repository:
// tracked (also when deleted from disk), untracked, ignoring itself,
// ignored by an outer rule, inside an untracked directory; never one
// inside an ignored directory, which git does not read.
func TestGitignoreFiles(t *testing.T) {
	dir := t.TempDir()
	for f, body := range map[string]string{
		".gitignore":                "node_modules/\n/outer/.gitignore\n",
		"tracked/.gitignore":        "x\n",
		"gone/.gitignore":           "y\n",
		"gone/keep.txt":             "k\n",
		"new/.gitignore":            "z\n",
		"self/.gitignore":           "*\n",
		"outer/.gitignore":          "w\n",
		"fresh/deep/.gitignore":     "v\n",
		"node_modules/.gitignore":   "*\n",
		"node_modules/p/.gitignore": "*\n",
		"notes.gitignore":           "not one\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".gitignore", "tracked/.gitignore", "gone/.gitignore", "gone/keep.txt")
	git("commit", "-q", "-m", "base")
	if err := os.Remove(filepath.Join(dir, "gone", ".gitignore")); err != nil {
		t.Fatal(err)
	}
	p, err := place.Locate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got, _, _, err := gitignoreFiles(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "fresh/deep/.gitignore", "gone/.gitignore", "new/.gitignore", "outer/.gitignore", "self/.gitignore", "tracked/.gitignore"}
	if !slices.Equal(got, want) {
		t.Errorf("gitignoreFiles = %q, want %q", got, want)
	}
}

// A stop that does not list the work tree's rules keeps those the last
// listing saw: not looking is no change, while a change of a rule file
// outside the work tree still is. The first listing after stops that made
// none is told apart (firstListing), and so is none after it.
func TestSealRules(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	outside := map[string]string{"/r/.git/info/exclude": "absent"}
	listed := map[string]string{"/r/.git/info/exclude": "absent", ".gitignore": "a", "src/.gitignore": "b", listedMark: "yes"}
	first := sealRules(listed, nil, true, now)
	if firstListing(listed, nil) {
		t.Error("a listing with nothing before it is no first listing after others")
	}
	cheap := sealRules(outside, &first, false, now)
	if cheap.Key != first.Key {
		t.Errorf("a stop that did not list changed the key: %v, want %v", cheap.Files, first.Files)
	}
	if again := sealRules(listed, &cheap, true, now); again.Key != first.Key || firstListing(listed, &cheap) {
		t.Errorf("listing the same rules again changed them, or reads as a first listing")
	}
	edited := map[string]string{"/r/.git/info/exclude": "c"}
	if e := sealRules(edited, &first, false, now); e.Key == first.Key || e.Files["src/.gitignore"] != "b" {
		t.Errorf("an edit of info/exclude at a stop that did not list: %v", e.Files)
	}
	if !firstListing(listed, &verdicts.TrustSeen{Files: outside}) {
		t.Error("the first listing after a stop that made none reads as a change")
	}
}

// A listing git cannot make is no listing: the stop keeps the rules the
// last one saw, with a warning, rather than telling a change nobody made.
func TestIgnoreRulesGitFailing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_DIR", filepath.Join(dir, "no-repository")) // git fails, wherever the directory is
	p := place.Place{CommonDir: filepath.Join(dir, ".git"), GitDir: filepath.Join(dir, ".git"), TopLevel: dir}
	warned := 0
	files, listed := ignoreRules(context.Background(), p, func(string) string { return "" }, true, func(string, ...any) { warned++ })
	if listed || warned != 1 {
		t.Errorf("listed %v with %d warning(s), want a warning and no listing", listed, warned)
	}
	if _, ok := files[listedMark]; ok || len(files) != 2 {
		t.Errorf("files = %v, want the two rule files outside the work tree only", files)
	}
}

// The file core.excludesFile names is watched wherever git reads it from,
// as the absolute path git would open: unset names none; a path is taken
// as git takes it (~ the home directory, a relative one from the top
// level, where git runs).
func TestConfiguredExcludes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, tc := range []struct {
		name, value, want string
	}{
		{"unset", "", ""},
		{"absolute", "/elsewhere/ex", "/elsewhere/ex"},
		{"home", "~/rules", filepath.Join(home, "rules")},
		{"relative", "sub/../rules", "rules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			gitIn(t, dir, "init", "-q")
			if tc.value != "" {
				gitIn(t, dir, "config", "core.excludesFile", tc.value)
			}
			want := tc.want
			if want != "" && !filepath.IsAbs(want) {
				want = filepath.Join(dir, want)
			}
			p := place.Place{CommonDir: filepath.Join(dir, ".git"), GitDir: filepath.Join(dir, ".git"), TopLevel: dir}
			if got := configuredExcludes(context.Background(), p, os.Getenv); got != want {
				t.Errorf("configuredExcludes = %q, want %q", got, want)
			}
			files, _ := ignoreRules(context.Background(), p, func(string) string { return "" }, false, func(string, ...any) {})
			if _, ok := files[want]; want != "" && !ok {
				t.Errorf("ignoreRules = %v, want %s among them", files, want)
			}
		})
	}
}

// gitIn runs git in dir, failing the test when it fails.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The verdict book moves with the repository, and so do the rule files in
// its git directories: for every way the repository or a worktree's git
// directory can be found elsewhere, the same rules seen at the new place
// are no change, an edit of one of them is a change named at the new
// place, and a rule file outside the git directories (the global ignore
// file, a core.excludesFile, one this stop still sees) keeps its name.
func TestMovedRules(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	global := "/home/u/.config/git/ignore"
	places := map[string][2]place.Place{
		"main work tree, repository moved": {
			{CommonDir: "/r/.git", GitDir: "/r/.git"}, {CommonDir: "/r2/.git", GitDir: "/r2/.git"}},
		"linked worktree, repository moved": {
			{CommonDir: "/r/.git", GitDir: "/r/.git/worktrees/wt"}, {CommonDir: "/r2/.git", GitDir: "/r2/.git/worktrees/wt"}},
		"not moved": {
			{CommonDir: "/r/.git", GitDir: "/r/.git"}, {CommonDir: "/r/.git", GitDir: "/r/.git"}},
	}
	seen := func(p place.Place, exclude, sparse string) map[string]string {
		return map[string]string{filepath.Join(p.CommonDir, "info", "exclude"): exclude,
			filepath.Join(p.GitDir, "info", "sparse-checkout"): sparse, global: "g", ".gitignore": "a", listedMark: "yes"}
	}
	for name, pp := range places {
		was, is := pp[0], pp[1]
		last := sealRules(seen(was, "x", "s"), nil, true, now)
		for edit, files := range map[string]map[string]string{
			"":                seen(is, "x", "s"),
			"exclude":         seen(is, "y", "s"),
			"sparse-checkout": seen(is, "x", "t"),
			"the global file": func() map[string]string { f := seen(is, "x", "s"); f[global] = "h"; return f }(),
			"both git files":  seen(is, "y", "t"),
		} {
			from := movedRules(&last, is, files)
			to := sealRules(files, from, true, now)
			changed := (&verdicts.TrustChange{From: *from, To: to}).Changed()
			if edit == "" && len(changed) > 0 {
				t.Errorf("%s: the same rules read as changed: %q", name, changed)
			}
			if edit != "" && len(changed) == 0 {
				t.Errorf("%s: an edit of %s reads as no change", name, edit)
			}
			for _, n := range changed {
				if _, ok := files[n]; !ok {
					t.Errorf("%s, %s edited: a change names %s, not a file seen now", name, edit, n)
				}
			}
		}
		if last.Files[filepath.Join(was.CommonDir, "info", "exclude")] != "x" {
			t.Errorf("%s: movedRules changed the record it was given", name)
		}
	}
	// Another repository's info/exclude named by core.excludesFile, still
	// seen now, is not taken for this repository's.
	other := "/o/.git/info/exclude"
	is := places["main work tree, repository moved"][1]
	last := sealRules(map[string]string{other: "o"}, nil, true, now)
	files := map[string]string{other: "o", filepath.Join(is.CommonDir, "info", "exclude"): "x"}
	if from := movedRules(&last, is, files); from.Files[other] != "o" || len(from.Files) != 1 {
		t.Errorf("a rule file still seen was renamed: %v", from.Files)
	}
}
