package stophook

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// With no record of the ignore rules, a stop compares those it lists with
// the rules HEAD's commit stands for (headRules): an ignore rule the agent
// wrote before that stop, in any rule file git reads (the root or a nested
// .gitignore, tracked or new, one that ignores itself, a .gitignore
// removed, .git/info/exclude, the file core.excludesFile names), is a
// change that names its file, so that no file leaves a gate's judgement
// unnoticed; a rule file as HEAD holds it, an ignore file outside the work
// tree with comments only, one an earlier stop saw (prev) and the
// sparse-checkout patterns (told on their own) are no change. Each row
// starts from the same committed repository, in a real work tree.
func TestHeadRules(t *testing.T) {
	type edit struct{ path, body string } // body "" removes path
	excludes := "EXCLUDES"                // stands for the file core.excludesFile names
	rows := []struct {
		name  string
		edits []edit
		// prev are rule files (by the name ignoreRules gives them, with
		// EXCLUDES and GITDIR put in) an earlier stop saw as they are now.
		prev []string
		want []string
	}{
		{"nothing written", nil, nil, nil},
		{"root .gitignore appended", []edit{{".gitignore", "gauntlet_logs/\nsrc/b.txt\n"}}, nil, []string{".gitignore"}},
		{"tracked nested .gitignore edited", []edit{{"lib/.gitignore", "*.o\nx.go\n"}}, nil, []string{"lib/.gitignore"}},
		{"new nested .gitignore", []edit{{"src/.gitignore", "b.txt\n"}}, nil, []string{"src/.gitignore"}},
		{"self-ignoring .gitignore", []edit{{"src/.gitignore", "*\n!a.txt\n"}}, nil, []string{"src/.gitignore"}},
		{".gitignore ignored by the root one", []edit{{".gitignore", "gauntlet_logs/\nsrc/.gitignore\n"}, {"src/.gitignore", "b.txt\n"}}, nil,
			[]string{".gitignore", "src/.gitignore"}},
		{"tracked .gitignore removed", []edit{{"lib/.gitignore", ""}}, nil, []string{"lib/.gitignore"}},
		{"info/exclude with a rule", []edit{{"GITDIR/info/exclude", "# x\nsrc/b.txt\n"}}, nil, []string{"GITDIR/info/exclude"}},
		{"info/exclude with comments only", []edit{{"GITDIR/info/exclude", "# nothing\n\n"}}, nil, nil},
		{"info/exclude an earlier stop saw", []edit{{"GITDIR/info/exclude", "src/b.txt\n"}}, []string{"GITDIR/info/exclude"}, nil},
		{"core.excludesFile with a rule", []edit{{excludes, "src/b.txt\n"}}, nil, []string{excludes}},
		{"sparse-checkout patterns", []edit{{"GITDIR/info/sparse-checkout", "/*\n!/src/\n"}}, nil, nil},
		{".gitignore edited and put back", []edit{{".gitignore", "gauntlet_logs/\n"}}, nil, nil},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			dir := t.TempDir()
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			write := func(rel, body string) {
				t.Helper()
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(".gitignore", "gauntlet_logs/\n")
			write("lib/.gitignore", "*.o\n")
			write("src/a.txt", "a\n")
			git("init", "-q")
			git("add", "-A")
			git("commit", "-q", "-m", "base")
			exFile := filepath.Join(dir, ".git", "my-excludes")
			git("config", "core.excludesFile", exFile)
			names := func(n string) string {
				if n == excludes {
					return exFile
				}
				if rest, ok := strings.CutPrefix(n, "GITDIR/"); ok {
					return filepath.Join(dir, ".git", filepath.FromSlash(rest))
				}
				return n
			}
			for _, e := range r.edits {
				p := names(e.path)
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, filepath.FromSlash(p))
				}
				if e.body == "" {
					if err := os.Remove(p); err != nil {
						t.Fatal(err)
					}
					continue
				}
				write(mustRel(t, dir, p), e.body)
			}
			ctx := context.Background()
			p, err := place.Locate(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, ".config")}
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			t.Setenv("HOME", dir)
			t.Setenv("XDG_CONFIG_HOME", env["XDG_CONFIG_HOME"])
			files, listed := ignoreRules(ctx, p, func(k string) string { return env[k] }, true, func(f string, a ...any) { t.Errorf("warned: "+f, a...) })
			if !listed {
				t.Fatal("the work tree's rules were not listed")
			}
			prev := map[string]string{}
			for _, n := range r.prev {
				prev[names(n)] = files[names(n)]
			}
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			from := headRules(ctx, p, files, prev, "main", now)
			if from == nil {
				t.Fatal("no record made from HEAD")
			}
			seen := sealRules(files, nil, true, now)
			var b verdicts.Book
			b.Excludes = from
			var got []string
			if c := b.SeeExcludes(seen, "s1"); c != nil {
				got = c.Changed()
			}
			var want []string
			for _, n := range r.want {
				want = append(want, names(n))
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("changed = %q, want %q (files %v)", got, want, files)
			}
		})
	}
}

// mustRel is p relative to dir, slash-separated.
func mustRel(t *testing.T, dir, p string) string {
	t.Helper()
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}
