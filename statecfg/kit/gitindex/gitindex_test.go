package gitindex

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo is a throwaway git repository.
type repo struct {
	t    *testing.T
	root string
}

// newRepo makes a repository, with args for git init.
func newRepo(t *testing.T, args ...string) *repo {
	t.Helper()
	// A hermetic git (statecfg/testenv imports this package's importers).
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = t\n\temail = t@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, root: t.TempDir()}
	r.git(append([]string{"init", "-q", "-b", "main"}, args...)...)
	return r
}

// run runs git in the repository with more environment.
func (r *repo) run(env []string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.root}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	return strings.TrimSpace(r.run(nil, args...))
}
func (r *repo) rawGit(args ...string) string { r.t.Helper(); return r.run(nil, args...) }
func (r *repo) gitEnv(env []string, args ...string) string {
	r.t.Helper()
	return strings.TrimSpace(r.run(env, args...))
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commitAll(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// Names that break shell-based or line-based tools.
const (
	spaced  = "dir with space/file one.txt"
	unicode = "ünï/cödé ✓.txt"
	quoted  = `q/it's "quoted".txt`
	dashed  = "-dash.txt"
)

// Index files git writes (versions 2, 3 and 4, SHA-1 and SHA-256, with
// flags and extensions) parse to the entries `git ls-files` shows, and the
// entries written back are an index git reads the same.
func TestIndexFileRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		init    []string
		version string
	}{
		{"version 2", nil, "2"},
		{"version 3 (extended flags)", nil, "3"},
		{"version 4 (prefix-compressed paths)", nil, "4"},
		{"SHA-256, version 4", []string{"--object-format=sha256"}, "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, tc.init...)
			for _, f := range []string{"a.txt", "d/e/f.txt", "d/e/g.txt", "d/h.txt", spaced, unicode, quoted, dashed,
				strings.Repeat("long/", 60) + "x.txt"} {
				r.write(f, f+"\n")
			}
			r.commitAll("base")
			r.write("new.txt", "n\n")
			r.git("add", "-N", "new.txt")
			r.git("update-index", "--skip-worktree", "a.txt")
			r.git("update-index", "--assume-unchanged", "d/h.txt")
			r.git("update-index", "--index-version", tc.version)
			p := filepath.Join(r.root, ".git", "index")
			idx, err := Read(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := idx.Version; tc.version != "2" && got != uint32(tc.version[0]-'0') {
				t.Errorf("version %d, want %s", got, tc.version)
			}
			var lines []string
			for _, e := range idx.Entries {
				tag := "H"
				switch {
				case e.SkipWorktree():
					tag = "S"
				case e.Flags&FlagAssumeValid != 0:
					tag = "h"
				}
				lines = append(lines, tag+" "+strings.TrimLeft(octal(e.Mode), "0")+" "+hex.EncodeToString(e.OID)+" "+e.Path)
			}
			want := strings.Split(strings.TrimSuffix(r.rawGit("ls-files", "-z", "--format=%(objectmode) %(objectname) %(path)"), "\x00"), "\x00")
			var wantLines []string
			tags := strings.Split(r.rawGit("ls-files", "-v", "-z"), "\x00")
			for i, l := range want {
				wantLines = append(wantLines, tags[i][:1]+" "+l)
			}
			if got := strings.Join(lines, "\n"); got != strings.Join(wantLines, "\n") {
				t.Fatalf("parsed:\n%s\ngit:\n%s", got, strings.Join(wantLines, "\n"))
			}
			if !hasIntentToAdd(idx) {
				t.Error("the intent-to-add entry lost its flag")
			}
			// Written back, git reads the same entries.
			out := filepath.Join(r.root, ".git", "copy-index")
			if err := Write(out, idx.Entries, idx.HashSize); err != nil {
				t.Fatal(err)
			}
			copyList := r.gitEnv([]string{"GIT_INDEX_FILE=" + out}, "ls-files", "-v", "-s")
			if orig := r.git("ls-files", "-v", "-s"); copyList != orig {
				t.Fatalf("written back:\n%s\ngit's:\n%s", copyList, orig)
			}
			if _, err := os.Stat(out + ".lock"); !os.IsNotExist(err) {
				t.Fatalf("the lock file is left: %v", err)
			}
		})
	}
}

// hasIntentToAdd reports whether an entry of idx is intent-to-add.
func hasIntentToAdd(idx *File) bool {
	for i := range idx.Entries {
		if idx.Entries[i].IntentToAdd() {
			return true
		}
	}
	return false
}

// octal formats a mode as git prints it.
func octal(m uint32) string {
	const digits = "01234567"
	var b [7]byte
	for i := 6; i >= 0; i-- {
		b[i] = digits[m&7]
		m >>= 3
	}
	return string(b[:])
}

// Damaged and foreign files are errors, never entries.
func TestIndexFileDamage(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	data, err := os.ReadFile(filepath.Join(r.root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte{}, data...)
	flipped[20] ^= 1
	for name, content := range map[string][]byte{
		"empty":     nil,
		"not DIRC":  []byte("XXXX" + string(data[4:])),
		"truncated": data[:len(data)-5],
		"flipped":   flipped,
	} {
		if _, err := Parse(content); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	// A busy lock is never overwritten.
	out := filepath.Join(r.root, ".git", "busy-index")
	if err := os.WriteFile(out+".lock", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, nil, 20); err == nil {
		t.Error("wrote through another process's lock")
	}
}
