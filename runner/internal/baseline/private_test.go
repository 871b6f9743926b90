package baseline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// treeDigest is a digest of every entry below dir: its path, mode, link
// target or content. Two equal digests mean byte-identical trees.
func treeDigest(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := info.Mode().String()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			v += " " + hex.EncodeToString(sum[:])
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree reports the entries that differ between two digests.
func sameTree(t *testing.T, name string, before, after map[string]string) {
	t.Helper()
	var diff []string
	for k, v := range before {
		if after[k] != v {
			diff = append(diff, k+": "+v+" => "+after[k])
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			diff = append(diff, k+": new "+v)
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("%s changed by the base run:\n%s", name, strings.Join(diff, "\n"))
	}
}

// A base run that tries to write everything it can reach (the
// repository's refs, stash, config, hooks, index, worktree list and
// objects; the dependency directories, through their own paths, through
// absolute links and text that name the project, and through the
// environment of an activated virtual environment) changes nothing of the
// user's: the repository and the dependency directories are
// byte-identical afterwards, and what the base run read through those
// paths was the base's code, not the work tree's.
func TestBaseRunWorldIsPrivate(t *testing.T) {
	root, commit := repo(t, map[string]string{
		".gitignore":          "node_modules/\n.venv/\n",
		"packages/lib/lib.js": "base lib\n",
		"src/pkg/code.py":     "base code\n",
	})
	run(t, root, "git", "stash", "list")
	// The work tree moves on: the agent's code.
	for p, content := range map[string]string{"packages/lib/lib.js": "AGENT lib\n", "src/pkg/code.py": "AGENT code\n"} {
		if err := os.WriteFile(filepath.Join(root, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Dependencies that name the project by its absolute path: a link npm
	// left, an editable install's .pth and finder, an activated venv.
	deps := map[string]string{
		".venv/bin/activate": "VIRTUAL_ENV='" + root + "/.venv'\n",
		".venv/bin/pip":      "#!" + root + "/.venv/bin/python\necho pip\n",
		".venv/lib/site-packages/__editable__.pkg.pth":          root + "/src\n",
		".venv/lib/site-packages/__editable___finder.py":        "MAPPING = {'pkg': '" + root + "/src/pkg'}\n",
		".venv/lib/site-packages/pkg.dist-info/direct_url.json": `{"url": "file://` + root + `", "dir_info": {"editable": true}}` + "\n",
		".venv/lib/site-packages/other.pth":                     root + "2/src\n", // another project: not ours
		"node_modules/dep/index.js":                             "module.exports = 1\n",
	}
	for p, content := range deps {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "packages", "lib"), filepath.Join(root, "node_modules", "lib")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VIRTUAL_ENV", filepath.Join(root, ".venv"))
	t.Setenv("PATH", filepath.Join(root, ".venv", "bin")+string(filepath.ListSeparator)+os.Getenv("PATH"))
	t.Setenv("PYTHONPATH", filepath.Join(root, "src"))
	t.Setenv("GIT_DIR", filepath.Join(root, ".git"))
	gitBefore, depsBefore := treeDigest(t, filepath.Join(root, ".git")), treeDigest(t, filepath.Join(root, ".venv"))
	nodeBefore := treeDigest(t, filepath.Join(root, "node_modules"))

	w := NewWorktrees(root)
	defer w.Close()
	cmd := `set -x
cat node_modules/lib/lib.js "$PYTHONPATH/pkg/code.py"
cat .venv/lib/site-packages/__editable__.pkg.pth .venv/lib/site-packages/other.pth
echo "venv: $VIRTUAL_ENV"
echo scratch > scratch.txt && git add scratch.txt && git stash push -q -m base-run-stash
git config core.hooksPath .husky; git config user.email base@run
mkdir -p .git/hooks && printf '#!/bin/sh\nexit 1\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
git -c user.name=b -c user.email=b@b commit -q --allow-empty -m base-run --no-verify
git branch base-run-branch; git tag base-run-tag; git update-ref refs/heads/main HEAD
git worktree add -q ../extra-worktree HEAD
git remote add up "$PWD/.." ; git push -q origin HEAD:refs/heads/pushed 2>&1
echo broken > "$VIRTUAL_ENV/lib/site-packages/__editable__.pkg.pth"
rm -rf node_modules/dep node_modules/lib/lib.js
exit 1`
	log := logFile(t)
	if _, err := w.Base(context.Background(), Request{Commit: commit, Job: checkJob(cmd, ".", nil, nil), Log: log}); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(log.Name())
	for _, want := range []string{"base lib\nbase code\n", "/tree/src\n" + root + "2/src\n", "venv: " + w.trees[commit].dir + "/.venv\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the base run did not read its own world (%q):\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "AGENT") {
		t.Errorf("the base run read the work tree's code:\n%s", out)
	}
	w.Close()
	sameTree(t, "the repository", gitBefore, treeDigest(t, filepath.Join(root, ".git")))
	sameTree(t, ".venv", depsBefore, treeDigest(t, filepath.Join(root, ".venv")))
	sameTree(t, "node_modules", nodeBefore, treeDigest(t, filepath.Join(root, "node_modules")))
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "extra-worktree")); err == nil {
		t.Errorf("a worktree the base run added is beside the project")
	}
	os.Unsetenv("GIT_DIR")
	if n := worktreeCount(t, root); n != 1 {
		t.Errorf("the worktree list has %d entries", n)
	}
}

// relocation.text replaces the project's directory only where it stands
// as a path of its own.
func TestRelocationText(t *testing.T) {
	r := newRelocation("/w/proj", "/tmp/b/tree")
	for in, want := range map[string]string{
		"/w/proj":                         "/tmp/b/tree",
		"/w/proj/src":                     "/tmp/b/tree/src",
		"PATH=/w/proj/.venv/bin:/usr/bin": "PATH=/tmp/b/tree/.venv/bin:/usr/bin",
		"'/w/proj/src/pkg'":               "'/tmp/b/tree/src/pkg'",
		"/w/proj2/src":                    "/w/proj2/src",
		"/x/w/proj/src":                   "/x/w/proj/src",
		"file:///w/proj":                  "file:///tmp/b/tree",
		"/w/proj.old":                     "/w/proj.old",
		"none":                            "none",
	} {
		if got, _ := r.text(in); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkWorld fingerprints a node_modules of 30,000 files (1,000
// packages of 30): the cost a cached base result adds to every failure
// it answers.
func BenchmarkWorld(b *testing.B) {
	root := b.TempDir()
	for p := range 1000 {
		dir := filepath.Join(root, "node_modules", fmt.Sprintf("pkg%d", p), "lib")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 30 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", f)), []byte("module.exports = 1;\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	env := os.Environ()
	b.ResetTimer()
	for range b.N {
		World(root, ".", env)
	}
}

// World changes with what the base run sees beyond the base commit: an
// entry of a dependency directory (down to the working directory) added,
// resized or touched, an environment value naming the project; not with
// the rest of the environment.
func TestWorld(t *testing.T) {
	root := t.TempDir()
	dep := filepath.Join(root, "web", "node_modules", "fmtlib", "index.js")
	if err := os.MkdirAll(filepath.Dir(dep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dep, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=/home/u", "PATH=/usr/bin"}
	w0 := World(root, "web", env)
	if World(root, "web", append(env, "TERM=xterm")) != w0 {
		t.Error("an unrelated variable changed the world")
	}
	if World(root, ".", env) == w0 {
		t.Error("node_modules of the working directory not seen")
	}
	for name, change := range map[string]func() []string{
		"a variable naming the project": func() []string { return append(env, "PYTHONPATH="+root+"/src") },
		"a dependency upgraded": func() []string {
			if err := os.WriteFile(dep, []byte("v1.0.1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return env
		},
		"a file added": func() []string {
			if err := os.WriteFile(filepath.Join(filepath.Dir(dep), "new.js"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return env
		},
		"a same-size edit, its time put back": func() []string {
			info, err := os.Stat(dep)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(tick)
			if err := os.WriteFile(dep, []byte("v9.9.9\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(dep, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
			return env
		},
	} {
		before := World(root, "web", env)
		if World(root, "web", change()) == before {
			t.Errorf("%s: the world did not change", name)
		}
	}
	before := World(root, "web", env)
	cache := filepath.Join(root, "web", "node_modules", ".cache", "babel", "x.json")
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if World(root, "web", env) != before {
		t.Error("a tool's cache in node_modules, which the base run is not given, changed the world")
	}
}

// Held: a dependency directory that is a link out of the project (a
// shared store's node_modules, an external virtual environment) is
// copied from its target: the base run empties or appends to its copy,
// the store and the environment stay as they were, and the environment's
// paths into it name the copy.
func TestBaseRunLinkedDependencies(t *testing.T) {
	root, commit := repo(t, map[string]string{".gitignore": "node_modules\n.venv\n", "a.txt": "x\n"})
	store := t.TempDir()
	for p, content := range map[string]string{"nm/pkg/index.js": "module.exports = 1\n", "venv/bin/activate": "VIRTUAL_ENV=" + store + "/venv\n"} {
		full := filepath.Join(store, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"node_modules": "nm", ".venv": "venv"} {
		if err := os.Symlink(filepath.Join(store, target), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("VIRTUAL_ENV", filepath.Join(store, "venv"))
	before := treeDigest(t, store)
	w := NewWorktrees(root)
	defer w.Close()
	cmd := `cat node_modules/pkg/index.js; echo "venv: $VIRTUAL_ENV"
rm -rf node_modules/* && echo more >> .venv/bin/activate && echo more >> "$VIRTUAL_ENV/bin/activate"; exit 1`
	log := logFile(t)
	if _, err := w.Base(context.Background(), Request{Commit: commit, Job: checkJob(cmd, ".", nil, nil), Log: log}); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(log.Name())
	if !strings.Contains(string(out), "module.exports = 1\nvenv: "+w.trees[commit].dir+"/.venv\n") {
		t.Errorf("the base run did not see its copies:\n%s", out)
	}
	w.Close()
	sameTree(t, "the linked store", before, treeDigest(t, store))
}

// Held: more than maxCopiedBytes of dependencies are not copied (the
// base run goes without them); the work tree's stay.
func TestBaseRunHugeDependencies(t *testing.T) {
	root, commit := repo(t, map[string]string{".gitignore": "node_modules\n", "a.txt": "x\n"})
	big := filepath.Join(root, "node_modules", "big", "blob.bin")
	if err := os.MkdirAll(filepath.Dir(big), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxCopiedBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	w := NewWorktrees(root)
	defer w.Close()
	log := logFile(t)
	if _, err := w.Base(context.Background(), Request{Commit: commit, Job: checkJob("ls node_modules; exit 1", ".", nil, nil), Log: log}); err != nil {
		t.Fatal(err)
	}
	if out, _ := os.ReadFile(log.Name()); !strings.Contains(string(out), "No such file") {
		t.Errorf("node_modules was copied:\n%s", out)
	}
	if st, err := os.Stat(big); err != nil || st.Size() != maxCopiedBytes+1 {
		t.Errorf("the work tree's file changed: %v %v", st, err)
	}
}

// Held: with TMPDIR inside the project, the checkout goes into the git
// directory, where no change detection looks; the work tree shows no
// change, and nothing is left after Close.
func TestBaseRunTmpdirInsideProject(t *testing.T) {
	root, commit := repo(t, map[string]string{".gitignore": ".tmp/\n", "a.txt": "x\n"})
	tmp := filepath.Join(root, ".tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	w := NewWorktrees(root)
	defer w.Close()
	log := logFile(t)
	if _, err := w.Base(context.Background(), Request{Commit: commit, Job: checkJob("pwd; exit 1", ".", nil, nil), Log: log}); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(log.Name())
	if !strings.Contains(string(out), filepath.Join(root, ".git", tempPattern)) {
		t.Errorf("the checkout is not in the git directory:\n%s", out)
	}
	if st := run(t, root, "git", "status", "--porcelain"); st != "" {
		t.Errorf("the work tree shows changes: %q", st)
	}
	w.Close()
	if m, _ := filepath.Glob(filepath.Join(root, ".git", tempPattern+"*")); len(m) > 0 {
		t.Errorf("left: %v", m)
	}
}

// Held: every link in a copied dependency directory leads, from the copy,
// to what it led to from the work tree when that lies outside the project
// (relative or absolute), and to the base checkout's file when it lies in
// the project.
func TestPrivateCopyLinks(t *testing.T) {
	w := t.TempDir()
	proj, base := filepath.Join(w, "proj"), filepath.Join(w, "tmp", "run", "base") // base deeper: a relative path out leads elsewhere
	files := map[string]string{
		"shared/index.js":                    "outside\n",
		"proj/packages/lib/index.js":         "work lib\n",
		"tmp/run/base/packages/lib/index.js": "base lib\n",
		"proj/node_modules/pkg/bin.js":       "pkg bin\n",
		"proj/node_modules/@s/x/keep.js":     "x\n",
	}
	for p, c := range files {
		full := filepath.Join(w, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ link, target, want string }{
		{".bin/pkg", "../pkg/bin.js", "pkg bin\n"},                              // inside the directory
		{"lib-rel", "../packages/lib/index.js", "base lib\n"},                   // relative, into the project
		{"lib-abs", filepath.Join(proj, "packages/lib/index.js"), "base lib\n"}, // absolute, into the project
		{"shared", "../../shared/index.js", "outside\n"},                        // relative, out of the project
		{"@s/shared", "../../../shared/index.js", "outside\n"},                  // deeper, out
		{"shared-abs", filepath.Join(w, "shared/index.js"), "outside\n"},        // absolute, out
		{"@s/x/up", "../../../packages/lib/index.js", "base lib\n"},             // deeper, into the project
	}
	nm := filepath.Join(proj, "node_modules")
	for _, c := range cases {
		p := filepath.Join(nm, filepath.FromSlash(c.link))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(c.target, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := privateCopy(nm, filepath.Join(base, "node_modules"), "node_modules", newRelocation(proj, base)); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, err := os.ReadFile(filepath.Join(base, "node_modules", filepath.FromSlash(c.link)))
		if string(got) != c.want {
			t.Errorf("%s -> %s: the copy reads %q (%v), want %q", c.link, c.target, got, err, c.want)
		}
	}
}
