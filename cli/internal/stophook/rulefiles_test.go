package stophook

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filestat"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv/fifotest"
)

// TestRuleFileProblems: every kind of file at every place git reads rules
// from is looked at without an open: a FIFO, a socket, a device, or a
// link to one is named with what it is, a directory too where git fails
// on one (an exclude file), and a regular file, a dangling link, a
// directory git skips, and anything inside a repository of its own (its
// own git reads it) are not. The walk never opens what it finds, so no
// row can wait.
func TestRuleFileProblems(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and sockets are unix file kinds")
	}
	kinds := []struct {
		name  string
		make  func(t *testing.T, path string)
		odd   string // what the finding says; "" for none
		asDir string // what it says as an exclude file
	}{
		{"regular file", func(t *testing.T, p string) { ruleWrite(t, p) }, "", ""},
		{"FIFO", func(t *testing.T, p string) { ruleMkfifo(t, p) }, "a named pipe (FIFO)", "a named pipe (FIFO)"},
		{"socket", ruleMksocket, "a socket", "a socket"},
		{"link to a FIFO", func(t *testing.T, p string) { ruleMkfifo(t, p+".fifo"); ruleLink(t, p+".fifo", p) }, "a named pipe (FIFO)", "a named pipe (FIFO)"},
		{"link to a device", func(t *testing.T, p string) { ruleLink(t, "/dev/zero", p) }, "a character device", "a character device"},
		{"directory", func(t *testing.T, p string) { ruleMkdir(t, p) }, "", "a directory"},
		{"dangling link", func(t *testing.T, p string) { ruleLink(t, p+".none", p) }, "", ""},
	}
	places := []struct {
		name, rel string // rel: relative to the top level, or to XDG_CONFIG_HOME with "xdg:"
		exclude   bool
		shown     string // "" for never named (inside a repository of its own)
	}{
		{"top gitignore", ".gitignore", false, ".gitignore"},
		{"deep gitignore", "a/b/c/.gitignore", false, "a/b/c/.gitignore"},
		{"gitattributes", "a/.gitattributes", false, "a/.gitattributes"},
		{"inside a repository of its own", "inner/x/.gitignore", false, ""},
		{"info exclude", ".git/info/exclude", true, ".git/info/exclude"},
		{"info attributes", ".git/info/attributes", false, ".git/info/attributes"},
		{"sparse-checkout", ".git/info/sparse-checkout", false, ".git/info/sparse-checkout"},
		{"global ignore", "xdg:git/ignore", true, "git/ignore"},
		{"global attributes", "xdg:git/attributes", false, "git/attributes"},
	}
	ctx := context.Background()
	for _, pl := range places {
		for _, k := range kinds {
			t.Run(pl.name+"/"+k.name, func(t *testing.T) {
				top, xdg := t.TempDir(), t.TempDir()
				ruleGitInit(t, top)
				ruleGitInit(t, filepath.Join(top, "inner"))
				p, err := place.Locate(ctx, top)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(top, filepath.FromSlash(pl.rel))
				if x, ok := strings.CutPrefix(pl.rel, "xdg:"); ok {
					path = filepath.Join(xdg, filepath.FromSlash(x))
				}
				ruleMkdir(t, filepath.Dir(path))
				os.Remove(path)
				k.make(t, path)
				getenv := func(k string) string {
					if k == "XDG_CONFIG_HOME" {
						return xdg
					}
					return ""
				}
				found := ruleFileProblems(ctx, p, getenv)
				want := k.odd
				if pl.exclude {
					want = k.asDir
				}
				if pl.shown == "" {
					want = ""
				}
				if want == "" {
					if len(found) > 0 {
						t.Fatalf("found %q, want nothing", found)
					}
					return
				}
				if len(found) != 1 || !strings.HasSuffix(found[0], pl.shown+" ("+want+")") {
					t.Fatalf("found %q, want one ending %q", found, pl.shown+" ("+want+")")
				}
			})
		}
	}
}

func ruleGitInit(t *testing.T, dir string) {
	t.Helper()
	ruleMkdir(t, dir)
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
}

func ruleWrite(t *testing.T, p string) {
	t.Helper()
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ruleMkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func ruleLink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func ruleMkfifo(t *testing.T, p string) {
	t.Helper()
	fifotest.Create(t, p)
}

func ruleMksocket(t *testing.T, p string) {
	t.Helper()
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Skipf("cannot make a socket at %s: %v", p, err) // a path longer than a socket address takes
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	t.Cleanup(func() { l.Close() })
}

// BenchmarkRuleFileProblems is the look at git's rule files a stop takes
// before git runs, in a work tree of 20,000 files in 400 directories with
// an ignore file in each.
func BenchmarkRuleFileProblems(b *testing.B) {
	top := b.TempDir()
	if out, err := exec.Command("git", "-C", top, "init", "-q").CombinedOutput(); err != nil {
		b.Fatalf("git init: %v: %s", err, out)
	}
	for d := range 400 {
		dir := filepath.Join(top, "d"+strconv.Itoa(d/20), "e"+strconv.Itoa(d%20))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 50 {
			name := "f" + strconv.Itoa(f)
			if f == 0 {
				name = ".gitignore"
			}
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	p, err := place.Locate(ctx, top)
	if err != nil {
		b.Fatal(err)
	}
	getenv := func(string) string { return "" }
	b.ResetTimer()
	for b.Loop() {
		if found := ruleFileProblems(ctx, p, getenv); len(found) > 0 {
			b.Fatal(found)
		}
	}
}

// With a valid listing memo, the look at the work tree's rule files takes
// the directories git walks from it instead of walking: it must find what
// the walk finds. Each kind of non-file at each rule name of a walked
// directory is made either before the listing (a FIFO .gitattributes: git
// status reads no attributes, so the listing finishes and the memo is
// kept with it) or after it (which changes its directory, so the memo is
// not taken): both are found, and in the first the memo is shown taken.
func TestRuleFileProblemsWithMemo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the listing memo is kept on Linux only")
	}
	old := filestat.Margin
	filestat.Margin = 15 * time.Millisecond
	t.Cleanup(func() { filestat.Margin = old })
	ctx := context.Background()
	getenv := func(string) string { return "" }
	for _, before := range []bool{true, false} {
		for _, name := range []string{"a/.gitattributes", "a/b/.gitattributes", ".gitattributes", "a/.gitignore", "a/b/.gitignore"} {
			if before && strings.HasSuffix(name, ".gitignore") {
				continue // git status would wait on it: no listing
			}
			t.Run(fmt.Sprintf("%s before %v", name, before), func(t *testing.T) {
				top := t.TempDir()
				ruleGitInit(t, top)
				ruleMkdir(t, filepath.Join(top, "a", "b"))
				ruleWrite(t, filepath.Join(top, "a", "b", "f"))
				p, err := place.Locate(ctx, top)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(top, filepath.FromSlash(name))
				if before {
					ruleMkfifo(t, path)
				}
				_, rulesOf := outerRules(ctx, p, getenv)
				time.Sleep(20 * time.Millisecond)
				for range 2 { // the second is past the margin of the first
					if _, _, err := gitignoreListing(ctx, p, getenv, rulesOf); err != nil {
						t.Fatal(err)
					}
					time.Sleep(20 * time.Millisecond)
				}
				if before && validMemo(p, getenv, rulesOf) == nil {
					t.Fatal("the memo was not kept")
				}
				if !before {
					ruleMkfifo(t, path)
				}
				found := ruleFileProblems(ctx, p, getenv)
				if len(found) != 1 || found[0] != name+" (a named pipe (FIFO))" {
					t.Fatalf("found %q, want %s", found, name)
				}
			})
		}
	}
}

// With a valid listing memo, the look at the work tree's rule files stats
// only those the memo names (listingMemo.Looks): it must find exactly what
// the walk finds, whatever was at each rule name when the memo was kept
// (nothing, a regular file, a link to a file outside, a link to a FIFO, a
// FIFO git does not read) and whatever changed after (nothing, the link's
// target swapped for a FIFO, the file replaced by a FIFO, a FIFO made where
// nothing was, the file's content rewritten, the memo damaged, removed,
// written by an earlier version or taken from another repository). The
// steady rows must take the memo (the fast path is taken at all).
func TestRuleFileLooksMatchTheWalk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the listing memo is kept on Linux only")
	}
	old := filestat.Margin
	filestat.Margin = 15 * time.Millisecond
	t.Cleanup(func() { filestat.Margin = old })
	ctx := context.Background()
	getenv := func(string) string { return "" }
	befores := []struct {
		name string
		make func(t *testing.T, path, outside string)
	}{
		{"nothing", func(*testing.T, string, string) {}},
		{"regular file", func(t *testing.T, p, _ string) { ruleWrite(t, p) }},
		{"link to a file outside", func(t *testing.T, p, out string) { ruleWrite(t, out); ruleLink(t, out, p) }},
		{"link to a FIFO outside", func(t *testing.T, p, out string) { ruleMkfifo(t, out); ruleLink(t, out, p) }},
		{"FIFO", func(t *testing.T, p, _ string) { ruleMkfifo(t, p) }},
	}
	memoFile := func(p place.Place) string { return filepath.Join(p.GitDir, filepath.FromSlash(listingMemoName)) }
	afters := []struct {
		name   string
		change func(t *testing.T, p place.Place, path, outside, other string)
		steady bool // nothing the memo watches changed (but a .gitignore's content)
	}{
		{"nothing", func(*testing.T, place.Place, string, string, string) {}, true},
		{"link target swapped for a FIFO", func(t *testing.T, _ place.Place, _, out, _ string) {
			if _, err := os.Lstat(out); err == nil {
				os.Remove(out)
				ruleMkfifo(t, out)
			}
		}, true},
		{"file replaced by a FIFO", func(t *testing.T, _ place.Place, path, _, _ string) { os.Remove(path); ruleMkfifo(t, path) }, false},
		{"content rewritten", func(t *testing.T, _ place.Place, path, _, _ string) {
			if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
				if err := os.WriteFile(path, []byte("other\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}, true},
		{"memo damaged", func(t *testing.T, p place.Place, _, _, _ string) {
			if err := os.WriteFile(memoFile(p), []byte(`{"tag":`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"memo removed", func(t *testing.T, p place.Place, _, _, _ string) { os.Remove(memoFile(p)) }, false},
		{"memo of an earlier version", func(t *testing.T, p place.Place, _, _, _ string) {
			data, err := os.ReadFile(memoFile(p))
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			m["tag"] = "agent-gauntlet ignore listing v2"
			delete(m, "looks")
			data, _ = json.Marshal(m)
			if err := os.WriteFile(memoFile(p), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"memo of another repository", func(t *testing.T, p place.Place, _, _, other string) {
			data, err := os.ReadFile(filepath.Join(other, ".git", filepath.FromSlash(listingMemoName)))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(memoFile(p), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	// listed keeps a listing memo of the work tree at top.
	listed := func(t *testing.T, top string) (place.Place, func([]string) map[string]string) {
		t.Helper()
		p, err := place.Locate(ctx, top)
		if err != nil {
			t.Fatal(err)
		}
		_, rulesOf := outerRules(ctx, p, getenv)
		time.Sleep(20 * time.Millisecond)
		for range 2 { // the second is past the margin of the first
			if _, _, err := gitignoreListing(ctx, p, getenv, rulesOf); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return p, rulesOf
	}
	other := t.TempDir()
	ruleGitInit(t, other)
	ruleWrite(t, filepath.Join(other, ".gitignore"))
	listed(t, other)
	for _, name := range []string{"a/.gitattributes", "a/b/.gitignore"} {
		for _, b := range befores {
			if b.name != "nothing" && b.name != "regular file" && b.name != "link to a file outside" && strings.HasSuffix(name, ".gitignore") {
				continue // git status would wait on it: no listing
			}
			for _, a := range afters {
				t.Run(fmt.Sprintf("%s/%s/%s", name, b.name, a.name), func(t *testing.T) {
					top, outside := t.TempDir(), filepath.Join(t.TempDir(), "target")
					ruleGitInit(t, top)
					ruleMkdir(t, filepath.Join(top, "a", "b"))
					ruleWrite(t, filepath.Join(top, "a", "b", "f"))
					ruleWrite(t, filepath.Join(top, "a", ".gitignore"))
					path := filepath.Join(top, filepath.FromSlash(name))
					b.make(t, path, outside)
					p, rulesOf := listed(t, top)
					if validMemo(p, getenv, rulesOf) == nil {
						t.Fatal("the memo was not kept (the row proves nothing)")
					}
					a.change(t, p, path, outside, other)
					fromMemo := validMemo(p, getenv, rulesOf) != nil
					// A .gitignore's content is part of what the memo watches.
					steady := a.steady && (a.name == "nothing" || strings.HasSuffix(name, ".gitattributes"))
					if steady && !fromMemo {
						t.Fatal("nothing the memo watches changed, and it was not taken")
					}
					fast := treeRuleProblems(ctx, p, getenv)
					saved, _ := os.ReadFile(memoFile(p))
					os.Remove(memoFile(p))
					walked := treeRuleProblems(ctx, p, getenv)
					if saved != nil {
						if err := os.WriteFile(memoFile(p), saved, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					slices.Sort(fast)
					slices.Sort(walked)
					if !slices.Equal(fast, walked) {
						t.Fatalf("from the memo (taken %v): %q; the walk: %q", fromMemo, fast, walked)
					}
				})
			}
		}
	}
}
