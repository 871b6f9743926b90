//go:build unix

package cachediff

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"pgregory.net/rapid"
)

// setup is what a sequence chooses of the project's configuration: each
// check's `cache:` setting ("true", "entry_point" or "false") and whether
// the review gate is on.
type setup struct {
	Cache  map[string]string
	Review bool
}

// String renders the setup as the first line of a replay file.
func (c setup) String() string {
	var parts []string
	for _, g := range checkGates {
		parts = append(parts, g.name+"="+c.Cache[g.name])
	}
	return fmt.Sprintf("config %s review=%t", strings.Join(parts, " "), c.Review)
}

// parseSetup reads String's form.
func parseSetup(l string) (setup, error) {
	c := setup{Cache: map[string]string{}}
	f := strings.Fields(l)
	if len(f) == 0 || f[0] != "config" {
		return c, fmt.Errorf("not a config line: %q", l)
	}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		if k == "review" {
			c.Review = v == "true"
		} else {
			c.Cache[k] = v
		}
	}
	return c, nil
}

// drawSetup draws a setup.
func drawSetup(t *rapid.T) setup {
	c := setup{Cache: map[string]string{}}
	for _, g := range checkGates {
		c.Cache[g.name] = rapid.SampledFrom([]string{"true", "true", "entry_point", "false"}).Draw(t, "cache-"+g.name)
	}
	c.Review = rapid.Bool().Draw(t, "review")
	return c
}

// checkYAML is the file of check name running command.
func (c setup) checkYAML(name, command string) string {
	s := fmt.Sprintf("command: %q\ntimeout: 60\n", command)
	if name == "old" {
		s += "baseline: true\n"
	}
	return s + "cache: " + c.Cache[name] + "\n"
}

// configYAML is .gauntlet/config.yml: the project root, a directory, a
// wildcard and a glob entry point.
func (c setup) configYAML() string {
	review := ""
	if c.Review {
		review = "    reviews: [quality]\n"
	}
	return `base_branch: main
max_retries: 100
cli:
  default_preference: [claude]
stop_hook:
  run_interval_minutes: 0
entry_points:
  - path: "."
    checks: [content, crlf, exec, links]
  - path: src
    checks: [scoped, content]
` + review + `  - path: lib/*
    checks: [old, content]
  - path: "lib/**/*.txt"
    checks: [crlf]
`
}

// Pools the steps draw from.
var (
	paths = []string{"r.txt", "src/a.txt", "src/b.txt", "src/new.txt", "lib/x/y.txt", "lib/z/w.txt", "lib/x/old.txt", "dep/f", "out/o.txt",
		"conf/c.txt"}
	contents = []string{"ok", "BAD", "bad", "OLD new", "other", "OLD from the base"}
	attrs    = []string{"none", "text=auto", "eol=lf", "-diff", "binary", "filter"}
	// outsideTargets are where a link may lead outside the repository
	// (OUT/ is the sandbox's outside directory): files, one that may not
	// exist, a link there, a directory, a device, back into the tree, and
	// into its ignored out/.
	outsideTargets = []string{"OUT/ok.txt", "OUT/bad.txt", "OUT/none.txt", "OUT/hop", "OUT/dir", "/dev/null", "OUT/../repo/r.txt",
		"OUT/../repo/out/o.txt"}
	// treeTargets are where a link may lead inside the repository (REPO/
	// is its top level; the link is written relative to its directory):
	// files and directories outside an entry point (conf/, the root's
	// r.txt, another entry point), a path that may not exist, and paths
	// that may themselves be links (a chain).
	treeTargets = []string{"REPO/conf/c.txt", "REPO/conf", "REPO/r.txt", "REPO/src/a.txt", "REPO/src", "REPO/lib/x/y.txt",
		"REPO/lib/z", "REPO/conf/none.txt", "REPO/dep"}
	// hopTargets are where the link OUT/hop may be led: files outside the
	// repository, and back into it (a chain that leaves the work tree and
	// comes back).
	hopTargets = []string{"ok", "BAD", "in-r", "in-conf"}
	// dirPaths are where a directory may be made, removed or given a
	// FIFO: in an entry point, outside every one, in a new directory, in
	// the nested repository, in the ignored out/.
	dirPaths = []string{"src/e", "lib/x/e", "conf/e/f", "newdir/e", "dep/e", "out/e"}
)

// drawStep draws one step, in the replay form (see apply).
func drawStep(t *rapid.T) string {
	p := rapid.SampledFrom(paths).Draw(t, "path")
	switch rapid.IntRange(0, 21).Draw(t, "kind") {
	case 0, 1, 2:
		return fmt.Sprintf("write %s %s %s", p, strings.ReplaceAll(rapid.SampledFrom(contents).Draw(t, "content"), " ", "_"),
			rapid.SampledFrom([]string{"lf", "lf", "crlf"}).Draw(t, "eol"))
	case 3:
		return "crlf " + p
	case 4:
		return "chmod " + p + " " + rapid.SampledFrom([]string{"+x", "-x"}).Draw(t, "mode")
	case 5:
		return "config " + rapid.SampledFrom([]string{"core.fileMode", "core.symlinks", "core.ignorecase", "core.autocrlf"}).Draw(t, "key") +
			" " + rapid.SampledFrom([]string{"true", "false"}).Draw(t, "value")
	case 6:
		return "attributes " + rapid.SampledFrom([]string{".gitattributes", "info"}).Draw(t, "where") + " " + rapid.SampledFrom(attrs).Draw(t, "attr")
	case 7:
		return "flag " + p + " " + rapid.SampledFrom([]string{"skip-worktree", "assume-unchanged", "none"}).Draw(t, "flag")
	case 8:
		return "nested " + rapid.SampledFrom([]string{"make", "commit", "init", "ignore", "exclude"}).Draw(t, "nested")
	case 9:
		return "rename " + p + " " + rapid.SampledFrom(paths).Draw(t, "to")
	case 10:
		return "revert " + p
	case 11:
		return "delete " + p
	case 12:
		return "commit"
	case 13:
		return "symlink " + p + " " + rapid.SampledFrom([]string{"ok.target", "bad.target"}).Draw(t, "target")
	case 14:
		return "symlink " + p + " " + rapid.SampledFrom(outsideTargets).Draw(t, "target")
	case 15:
		file := rapid.SampledFrom([]string{"ok.txt", "none.txt", "hop"}).Draw(t, "file")
		if file == "hop" {
			return "outside hop " + rapid.SampledFrom(hopTargets).Draw(t, "content")
		}
		return "outside " + file + " " + rapid.SampledFrom([]string{"ok", "BAD"}).Draw(t, "content")
	case 16, 17:
		// A link inside an entry point (or anywhere) to what is outside it.
		return "symlink " + rapid.SampledFrom(linkPaths).Draw(t, "link") + " " + rapid.SampledFrom(treeTargets).Draw(t, "target")
	case 18, 19:
		// A directory git lists no file under: empty, or holding only a
		// FIFO, beside files or inside the nested repository.
		return rapid.SampledFrom([]string{"mkdir", "mkdir", "rmdir", "fifo"}).Draw(t, "dir-op") + " " + rapid.SampledFrom(dirPaths).Draw(t, "dir")
	default:
		return fmt.Sprintf("write %s %s lf", p, rapid.SampledFrom(contents[:2]).Draw(t, "content"))
	}
}

// apply performs a step in the sandbox. A step that does not apply to the
// state (a file that is not there) does nothing.
func (s *sandbox) apply(step string) error {
	f := strings.Fields(step)
	exists := func(p string) bool { _, err := os.Lstat(s.path(p)); return err == nil }
	if len(f) > 1 && strings.HasPrefix(f[1], "dep/") && !exists("dep/.git") {
		return nil // no repository of its own yet
	}
	switch f[0] {
	case "write":
		text := strings.ReplaceAll(f[2], "_", " ") + "\n"
		if f[3] == "crlf" {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
		return s.write(f[1], text)
	case "crlf":
		data, err := os.ReadFile(s.path(f[1]))
		if err != nil {
			return nil
		}
		return s.write(f[1], strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n", "\r\n"))
	case "chmod":
		mode := os.FileMode(0o644)
		if f[2] == "+x" {
			mode = 0o755
		}
		if fi, err := os.Lstat(s.path(f[1])); err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		return os.Chmod(s.path(f[1]), mode)
	case "config":
		_, err := s.git("config", f[1], f[2])
		return err
	case "attributes":
		return s.attributes(f[1], f[2])
	case "flag":
		return s.flag(f[1], f[2])
	case "nested":
		return s.nested(f[1])
	case "rename":
		if !exists(f[1]) || f[1] == f[2] || strings.HasPrefix(f[2], "dep/") {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(s.path(f[2])), 0o755); err != nil {
			return err
		}
		return os.Rename(s.path(f[1]), s.path(f[2]))
	case "mkdir":
		return os.MkdirAll(s.path(f[1]), 0o755)
	case "rmdir":
		if err := os.Remove(s.path(f[1])); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) {
			return err
		}
		return nil
	case "fifo":
		if err := os.MkdirAll(s.path(f[1]), 0o755); err != nil {
			return err
		}
		if err := syscall.Mkfifo(filepath.Join(s.path(f[1]), "p"), 0o644); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return nil
	case "revert":
		content, ok := baseFiles[f[1]]
		if !ok {
			return nil
		}
		return s.write(f[1], content)
	case "delete":
		if !exists(f[1]) {
			return nil
		}
		return os.Remove(s.path(f[1]))
	case "commit":
		add := []string{"add", "-A", "--", "."}
		if _, err := s.gitIn(s.path("dep"), "rev-parse", "-q", "--verify", "HEAD"); err != nil && exists("dep/.git") {
			add = append(add, ":(exclude)dep") // a repository without a commit: git cannot add it
		}
		if _, err := s.git(add...); err != nil {
			return err
		}
		_, err := s.git("commit", "-q", "--allow-empty", "-m", "work")
		return err
	case "symlink":
		if err := os.MkdirAll(filepath.Dir(s.path(f[1])), 0o755); err != nil {
			return err
		}
		_ = os.RemoveAll(s.path(f[1]))
		target := f[2]
		if rest, ok := strings.CutPrefix(target, "OUT/"); ok {
			target = filepath.Join(s.outside(), rest)
		}
		if rest, ok := strings.CutPrefix(target, "REPO/"); ok {
			rel, err := filepath.Rel(filepath.Dir(s.path(f[1])), s.path(rest))
			if err != nil {
				return err
			}
			target = rel
		}
		return os.Symlink(target, s.path(f[1]))
	case "outside":
		// An edit outside the repository, of a file links may reach: "hop"
		// is led to ok.txt, to bad.txt for BAD, or back into the
		// repository.
		p := filepath.Join(s.outside(), f[1])
		if f[1] == "hop" {
			_ = os.Remove(p)
			return os.Symlink(map[string]string{"ok": "ok.txt", "BAD": "bad.txt", "in-r": "../repo/r.txt",
				"in-conf": "../repo/conf/c.txt"}[f[2]], p)
		}
		return os.WriteFile(p, []byte(f[2]+"\n"), 0o644)
	}
	return fmt.Errorf("unknown step %q", step)
}

// attributes writes (or removes) an attributes file: .gitattributes at the
// root or .git/info/attributes. "filter" names a clean filter, configured
// in .git/config, that turns BAD into bad as git reads a file.
func (s *sandbox) attributes(where, attr string) error {
	p := s.path(".gitattributes")
	if where == "info" {
		p = filepath.Join(s.repo, ".git", "info", "attributes")
	}
	line := map[string]string{"text=auto": "* text=auto", "eol=lf": "*.txt eol=lf", "-diff": "*.txt -diff",
		"binary": "*.txt binary", "filter": "*.txt filter=hide"}[attr]
	if attr == "filter" {
		if _, err := s.git("config", "filter.hide.clean", "sed s/BAD/bad/"); err != nil {
			return err
		}
	}
	if line == "" {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(line+"\n"), 0o644)
}

// flag sets or clears an index flag of a tracked file.
func (s *sandbox) flag(p, flag string) error {
	if out, err := s.git("ls-files", "--", p); err != nil || strings.TrimSpace(out) == "" {
		return nil
	}
	args := []string{"update-index", "--no-skip-worktree", "--no-assume-unchanged", "--", p}
	if flag != "none" {
		args = []string{"update-index", "--" + flag, "--", p}
	}
	_, err := s.git(args...)
	return err
}

// nested makes dep/ a repository of its own with a commit ("make") or
// without one ("init"), commits what it holds, or makes its own ignore
// rules (its .gitignore, its info/exclude) ignore everything in it.
func (s *sandbox) nested(what string) error {
	dep := s.path("dep")
	if what == "init" {
		if _, err := os.Lstat(filepath.Join(dep, ".git")); err == nil {
			return nil
		}
		if err := s.write("dep/f", "dep ok\n"); err != nil {
			return err
		}
		_, err := s.gitIn(dep, "init", "-q", "-b", "main")
		return err
	}
	if what == "ignore" || what == "exclude" {
		if _, err := os.Lstat(filepath.Join(dep, ".git")); err != nil {
			return nil
		}
		if what == "ignore" {
			return s.write("dep/.gitignore", "*\n")
		}
		return s.write("dep/.git/info/exclude", "*\n")
	}
	if what == "make" {
		if _, err := os.Lstat(filepath.Join(dep, ".git")); err == nil {
			return nil
		}
		if err := s.write("dep/f", "dep ok\n"); err != nil {
			return err
		}
		if _, err := s.gitIn(dep, "init", "-q", "-b", "main"); err != nil {
			return err
		}
	} else if _, err := os.Lstat(filepath.Join(dep, ".git")); err != nil {
		return nil
	}
	if _, err := s.gitIn(dep, "add", "-A"); err != nil {
		return err
	}
	_, err := s.gitIn(dep, "commit", "-q", "--allow-empty", "-m", "dep")
	return err
}

// linkPaths are where a link to what is outside an entry point may be
// made: in each entry point, and outside every one but the root (conf/,
// for chains).
var linkPaths = []string{"src/l.txt", "src/a.txt", "lib/x/l.txt", "lib/z/w.txt", "conf/l.txt", "r.txt"}

// gateScope is the directory whose content is what the gate of job id can
// see, as its `cache:` setting declares it: its entry point's fixed
// directory under "entry_point" (src, lib for lib/* and lib/**/*.txt, the
// root), else the whole repository.
func gateScope(id, setting string) string {
	f := strings.Split(id, ":")
	if setting != "entry_point" || len(f) < 3 {
		return "."
	}
	ep := strings.Join(f[1:len(f)-1], ":")
	first, _, _ := strings.Cut(ep, "/")
	if first == "" || first == "." || strings.ContainsAny(first, "*?[") {
		return "."
	}
	return first
}

// gateCache is the cache setting of a gate job id ("true" for the
// review).
func (c setup) gateCache(id string) (setting string, scoped bool) {
	f := strings.Split(id, ":")
	name := f[len(f)-1]
	if f[0] == "review" {
		return "true", false
	}
	for _, g := range checkGates {
		if g.name == name {
			return c.Cache[name], g.scoped
		}
	}
	return "false", false
}
