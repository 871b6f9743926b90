package stophook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// newlyHidden names the untracked paths under the entry points that a
// changed rule file ignores by a line it did not hold before: for every
// way the earlier content is known or not, and for a negation the change
// removed, the paths named are exactly those the rules newly hide (a
// superset where the earlier content is unknown); a listing git cannot
// make says so, and a long list is counted past maxHiddenNamed.
func TestNewlyHidden(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, tc := range []struct {
		name string
		// head is the root .gitignore committed; now the work tree's;
		// exclude info/exclude's content after the change.
		head, now, exclude string
		// from is the root .gitignore's fingerprint before the change:
		// "head" for HEAD's content, else as is.
		from string
		// excludeBefore are info/exclude's rules before the change, as
		// the book keeps them (nil: absent, unknown: not kept).
		excludeBefore []string
		unknown       bool
		// files are the untracked files made under src.
		files []string
		want  []string
	}{
		{name: "new line of HEAD's gitignore", head: "old.LOG\n", now: "old.LOG\nnew.LOG\n", from: "head",
			files: []string{"old.LOG", "new.LOG", "other.txt"}, want: []string{"src/new.LOG"}},
		{name: "negation removed", head: "*.LOG\n!keep.LOG\n", now: "*.LOG\n", from: "head",
			files: []string{"keep.LOG", "x.LOG"}, want: []string{"src/keep.LOG", "src/x.LOG"}},
		{name: "earlier content unknown", head: "old.LOG\n", now: "old.LOG\nnew.LOG\n", from: "deadbeef",
			files: []string{"old.LOG", "new.LOG"}, want: []string{"src/new.LOG", "src/old.LOG"}},
		{name: "new gitignore", now: "*.LOG\n", from: "absent", files: []string{"a.LOG"}, want: []string{"src/a.LOG"}},
		{name: "info exclude new", head: "old.LOG\n", now: "old.LOG\n", from: "head", exclude: "*.LOG\n",
			files: []string{"old.LOG", "e.LOG"}, want: []string{"src/e.LOG"}},
		{name: "info exclude older line kept", now: "", from: "absent", exclude: "o.LOG\nnew.LOG\n", excludeBefore: []string{"o.LOG"},
			files: []string{"o.LOG", "new.LOG"}, want: []string{"src/new.LOG"}},
		{name: "info exclude older line unknown", now: "", from: "absent", exclude: "o.LOG\nnew.LOG\n", unknown: true,
			files: []string{"o.LOG", "new.LOG"}, want: []string{"src/new.LOG", "src/o.LOG"}},
		{name: "info exclude negation removed", now: "", from: "absent", exclude: "*.LOG\n", excludeBefore: []string{"*.LOG", "!keep.LOG"},
			files: []string{"keep.LOG", "x.LOG"}, want: []string{"src/keep.LOG", "src/x.LOG"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			gitIn(t, dir, "init", "-q")
			write(t, filepath.Join(dir, "src", "t.txt"), "tracked\n")
			if tc.head != "" {
				write(t, filepath.Join(dir, ".gitignore"), tc.head)
			}
			gitIn(t, dir, "add", "-A")
			gitIn(t, dir, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-qm", "base")
			write(t, filepath.Join(dir, ".gitignore"), tc.now)
			for _, f := range tc.files {
				write(t, filepath.Join(dir, "src", f), "x\n")
			}
			p, err := place.Locate(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			exclude := filepath.Join(p.CommonDir, "info", "exclude")
			c := &verdicts.TrustChange{From: verdicts.TrustSeen{Files: map[string]string{".gitignore": tc.from, exclude: "absent"}},
				To: verdicts.TrustSeen{Files: map[string]string{".gitignore": fingerprintOf([]byte(tc.now)), exclude: "absent"}}}
			if tc.from == "head" {
				c.From.Files[".gitignore"] = fingerprintOf([]byte(tc.head))
			}
			if tc.exclude != "" {
				write(t, exclude, tc.exclude)
				c.To.Files[exclude] = fingerprintOf([]byte(tc.exclude))
			}
			if tc.excludeBefore != nil || tc.unknown {
				c.From.Files[exclude] = "earlier"
			}
			if tc.excludeBefore != nil {
				c.From.Lines = map[string][]string{exclude: tc.excludeBefore}
			}
			got := newlyHidden(context.Background(), p, c, []string{"src"}, os.Getenv)
			if !slices.Equal(got.paths, tc.want) || got.cut != "" {
				t.Errorf("named %q (cut %q), want %q", got.paths, got.cut, tc.want)
			}
		})
	}
}

// A list longer than maxHiddenNamed is counted past it, and one git
// cannot make says so instead of naming none.
func TestHiddenFilesText(t *testing.T) {
	var many []string
	for i := range maxHiddenNamed + 2 {
		many = append(many, fmt.Sprintf("src/f%02d.LOG", i))
	}
	for _, tc := range []struct {
		f    hiddenFiles
		want string
	}{
		{hiddenFiles{}, "none in the work tree now"},
		{hiddenFiles{paths: many}, "src/f09.LOG and 2 more"},
		{hiddenFiles{paths: many[:1], cut: "bounded"}, "src/f00.LOG; the list may be short: bounded"},
		{hiddenFiles{cut: "bounded"}, "the list may be short: bounded"},
	} {
		if got := tc.f.text(); !strings.HasSuffix(got, tc.want) {
			t.Errorf("text %q, want it to end %q", got, tc.want)
		}
	}
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	p, err := place.Locate(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	p.TopLevel = filepath.Join(dir, "gone")
	if got := newlyHidden(context.Background(), p, nil, []string{"."}, os.Getenv); len(got.paths) != 0 || !strings.Contains(got.text(), "git could not list") {
		t.Errorf("a listing git cannot make: %q", got.text())
	}
}

// write writes content to f, making its directory.
func write(t *testing.T, f, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
