package cache

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// hermeticEnviron is an environment whose home and PATH are under dir:
// HOME=dir/home, PATH=dir/bin:dir/absent (the second directory does not
// exist).
func hermeticEnviron(t *testing.T, dir string) []string {
	t.Helper()
	for _, d := range []string{"home", "bin"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"HOME=" + filepath.Join(dir, "home"), "PATH=" + filepath.Join(dir, "bin") + ":" + filepath.Join(dir, "absent")}
}

// pastTick waits for the file system's clock to move on, so that a change
// time taken after it differs from one taken before (Linux keeps change
// times at the resolution of its clock tick).
func pastTick() { time.Sleep(20 * time.Millisecond) }

// putBackInPlace rewrites the file p in place with other content of the
// same size and then its own content, and puts its modification time
// back: only its change time tells.
func putBackInPlace(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	pastTick()
	for _, content := range [][]byte{[]byte(strings.Repeat("X", len(data))), data} {
		if err := os.WriteFile(p, content, fi.Mode()); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// The class: every file or directory of the user's home that the review
// CLIs and tool runtimes read (userFiles, each one enumerated): creating
// it (a file, or an entry of a listed directory) changes the environment's
// identity, and so does editing it in place and putting it back with its
// time (by its change time, on Linux). Files of the system (/etc) are
// left out: a test cannot write them.
func TestEnvIdentityUserFiles(t *testing.T) {
	dir := t.TempDir()
	environ := hermeticEnviron(t, dir)
	home := filepath.Join(dir, "home")
	// a Python user site, as pip --user leaves it: userFiles lists it
	site := filepath.Join(home, ".local", "lib", "python3.12", "site-packages")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	lookup := func(k string) string { return map[string]string{"HOME": home}[k] }
	ws := userFiles(lookup)
	if !slices.ContainsFunc(ws, func(w watched) bool { return w.path == site && w.list }) {
		t.Fatalf("the user site %s is not watched: %+v", site, ws)
	}
	for _, w := range ws {
		if !strings.HasPrefix(w.path, home) {
			continue
		}
		rel, _ := filepath.Rel(home, w.path)
		t.Run(rel, func(t *testing.T) {
			before := EnvIdentity(environ)
			p := w.path
			if w.list {
				if err := os.MkdirAll(w.path, 0o755); err != nil {
					t.Fatal(err)
				}
				before = EnvIdentity(environ)
				p = filepath.Join(w.path, "usercustomize.py")
			} else if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("approve everything\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			written := EnvIdentity(environ)
			if written == before {
				t.Fatalf("%s written: identity unchanged", p)
			}
			if runtime.GOOS != "linux" {
				return
			}
			putBackInPlace(t, p)
			if EnvIdentity(environ) == written {
				t.Errorf("%s edited in place and put back: identity unchanged", p)
			}
		})
	}
}

// A program added to a directory on PATH and removed, a directory on PATH
// made, and a program in one rewritten in place and put back: each changes
// the identity (the last through ProgramsIdentity, for the words that
// name it).
func TestEnvIdentityPathDirs(t *testing.T) {
	dir := t.TempDir()
	environ := hermeticEnviron(t, dir)
	bin := filepath.Join(dir, "bin")
	path := bin + ":" + filepath.Join(dir, "absent")
	tool := filepath.Join(bin, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	words := ProgramWords([]string{"tool --all"})
	before, programs := EnvIdentity(environ), ProgramsIdentity(words, path)
	pastTick()
	grep := filepath.Join(bin, "grep")
	if err := os.WriteFile(grep, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(grep); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && EnvIdentity(environ) == before {
		t.Error("a program added to a PATH directory and removed: identity unchanged")
	}
	now := EnvIdentity(environ)
	if err := os.Mkdir(filepath.Join(dir, "absent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if EnvIdentity(environ) == now {
		t.Error("a directory on PATH made: identity unchanged")
	}
	if runtime.GOOS != "linux" {
		return
	}
	putBackInPlace(t, tool)
	if ProgramsIdentity(words, path) == programs {
		t.Error("a program a command names rewritten in place and put back: its identity unchanged")
	}
}

// The converse: the variables that name a connection, terminal or window
// (perConnectionEnv, each one) leave the identity as it is, and a variable
// a gate can act on (DISPLAY) does not.
func TestEnvIdentityPerConnection(t *testing.T) {
	environ := hermeticEnviron(t, t.TempDir())
	id := EnvIdentity(environ)
	for _, name := range PerConnectionEnv() {
		if EnvIdentity(append(slices.Clone(environ), name+"=/tmp/another-connection")) != id {
			t.Errorf("%s: identity changed", name)
		}
	}
	if EnvIdentity(append(slices.Clone(environ), "DISPLAY=:1")) == id {
		t.Error("DISPLAY: identity unchanged")
	}
}

// The words of a command that can name a program: the shell always, no
// flags, no paths' dots; sorted and unique.
func TestProgramWords(t *testing.T) {
	for _, c := range []struct {
		commands []string
		want     []string
	}{
		{[]string{"npm test"}, []string{"npm", "sh", "test"}},
		{[]string{"! grep -r BAD ."}, []string{"BAD", "grep", "sh"}},
		{[]string{"./scripts/lint.sh --fix && go vet ./..."}, []string{"go", "lint.sh", "scripts", "sh", "vet"}},
		{[]string{"python3 -m pytest", "$(command -v ruff) check"}, []string{"check", "command", "pytest", "python3", "ruff", "sh"}},
		{nil, []string{"sh"}},
	} {
		if got := ProgramWords(c.commands); !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.commands, got, c.want)
		}
	}
}

// BenchmarkProgramsIdentity measures what a check's key adds for the
// programs its command names, on this process's PATH: a stat of each word
// in every PATH directory until it is found.
func BenchmarkProgramsIdentity(b *testing.B) {
	words := ProgramWords([]string{"npm run lint && go vet ./... && ! grep -rn TODO src"})
	path := os.Getenv("PATH")
	for b.Loop() {
		ProgramsIdentity(words, path)
	}
}
