package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Every entry of .gauntlet/ a gate can run or read is part of the trusted
// configuration and compared: a regular file, its executable bit, a
// symbolic link (by its target as written, wherever it leads: inside
// .gauntlet/, into the project, out of it, to a directory, nowhere), the
// files of a subdirectory. The class: each kind of entry × each way of
// changing it. Whether the record was made from the work tree (trust) or
// adopted from HEAD, the change is a difference naming the entry, never
// the trusted configuration; with nothing changed, the work tree, HEAD and
// the record agree.
func TestEntriesCompared(t *testing.T) {
	base := map[string]string{
		".gauntlet/config.yml":      configYML,
		".gauntlet/checks/lint.yml": "command: ../.gauntlet/lint.sh\n",
		".gauntlet/run.sh":          "#!/bin/sh\nexit 1\n",
		".gauntlet/data/d.txt":      "data\n",
		"scripts/lint.sh":           "#!/bin/sh\n! grep -r BAD .\n",
		"scripts/other.sh":          "#!/bin/sh\nexit 0\n",
	}
	links := map[string]string{
		".gauntlet/lint.sh":  "../scripts/lint.sh", // into the project
		".gauntlet/inner.sh": "run.sh",             // inside .gauntlet/
		".gauntlet/dirlink":  "data",               // a directory inside
		".gauntlet/out":      "/bin/sh",            // out of the project
	}
	link := func(t *testing.T, top, name, target string) {
		t.Helper()
		p := filepath.Join(top, filepath.FromSlash(name))
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	chmod := func(t *testing.T, top, name string, mode os.FileMode) {
		t.Helper()
		if err := os.Chmod(filepath.Join(top, filepath.FromSlash(name)), mode); err != nil {
			t.Fatal(err)
		}
	}
	replace := func(t *testing.T, top, name, content string) {
		t.Helper()
		p := filepath.Join(top, filepath.FromSlash(name))
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		write(t, top, map[string]string{name: content})
	}
	type change struct {
		name, entry string
		do          func(t *testing.T, top string)
	}
	changes := []change{
		{"link retargeted out of the project", ".gauntlet/lint.sh", func(t *testing.T, top string) { link(t, top, ".gauntlet/lint.sh", "/bin/true") }},
		{"link retargeted inside the project", ".gauntlet/lint.sh", func(t *testing.T, top string) { link(t, top, ".gauntlet/lint.sh", "../scripts/other.sh") }},
		{"link retargeted to a directory", ".gauntlet/lint.sh", func(t *testing.T, top string) { link(t, top, ".gauntlet/lint.sh", "../scripts") }},
		{"link left dangling", ".gauntlet/lint.sh", func(t *testing.T, top string) { link(t, top, ".gauntlet/lint.sh", "../gone.sh") }},
		{"link to a file replaced by the file's content", ".gauntlet/lint.sh", func(t *testing.T, top string) {
			replace(t, top, ".gauntlet/lint.sh", base["scripts/lint.sh"])
		}},
		{"link replaced by a file forging a link's entry", ".gauntlet/lint.sh", func(t *testing.T, top string) {
			replace(t, top, ".gauntlet/lint.sh", string(config.TreeEntry(false, true, []byte("../scripts/lint.sh"))))
		}},
		{"link inside retargeted inside", ".gauntlet/inner.sh", func(t *testing.T, top string) { link(t, top, ".gauntlet/inner.sh", "data/d.txt") }},
		{"link inside replaced by its target's content", ".gauntlet/inner.sh", func(t *testing.T, top string) {
			replace(t, top, ".gauntlet/inner.sh", base[".gauntlet/run.sh"])
			chmod(t, top, ".gauntlet/inner.sh", 0o755)
		}},
		{"link to a directory retargeted", ".gauntlet/dirlink", func(t *testing.T, top string) { link(t, top, ".gauntlet/dirlink", "../scripts") }},
		{"link to a directory replaced by the directory", ".gauntlet/dirlink/d.txt", func(t *testing.T, top string) {
			if err := os.Remove(filepath.Join(top, ".gauntlet", "dirlink")); err != nil {
				t.Fatal(err)
			}
			write(t, top, map[string]string{".gauntlet/dirlink/d.txt": "data\n"})
		}},
		{"link out retargeted out", ".gauntlet/out", func(t *testing.T, top string) { link(t, top, ".gauntlet/out", "/bin/true") }},
		{"file replaced by a link to a file of the same content", ".gauntlet/run.sh", func(t *testing.T, top string) {
			write(t, top, map[string]string{"scripts/run.sh": base[".gauntlet/run.sh"]})
			chmod(t, top, "scripts/run.sh", 0o755)
			link(t, top, ".gauntlet/run.sh", "../scripts/run.sh")
		}},
		{"executable made not executable", ".gauntlet/run.sh", func(t *testing.T, top string) { chmod(t, top, ".gauntlet/run.sh", 0o644) }},
		{"data made executable", ".gauntlet/data/d.txt", func(t *testing.T, top string) { chmod(t, top, ".gauntlet/data/d.txt", 0o755) }},
		{"file edited", ".gauntlet/run.sh", func(t *testing.T, top string) {
			write(t, top, map[string]string{".gauntlet/run.sh": "#!/bin/sh\nexit 0\n"})
		}},
		{"file added in a subdirectory", ".gauntlet/data/new.sh", func(t *testing.T, top string) {
			write(t, top, map[string]string{".gauntlet/data/new.sh": "exit 0\n"})
		}},
		{"file removed from a subdirectory", ".gauntlet/data/d.txt", func(t *testing.T, top string) {
			if err := os.Remove(filepath.Join(top, ".gauntlet", "data", "d.txt")); err != nil {
				t.Fatal(err)
			}
		}},
		{"link added", ".gauntlet/new", func(t *testing.T, top string) { link(t, top, ".gauntlet/new", "/bin/true") }},
	}
	setup := func(t *testing.T) string {
		t.Helper()
		top := repo(t, base)
		chmod(t, top, ".gauntlet/run.sh", 0o755)
		for name, target := range links {
			link(t, top, name, target)
		}
		git(t, top, "add", "-A")
		git(t, top, "commit", "-qm", "links and modes")
		return top
	}
	for _, from := range []string{"trust", "HEAD"} {
		for _, c := range changes {
			t.Run(from+"/"+c.name, func(t *testing.T) {
				top := setup(t)
				if from == "trust" {
					work, err := config.ReadFiles(top)
					if err != nil {
						t.Fatal(err)
					}
					if err := WriteRecord(locate(t, top), Record{How: HowYes, Files: work}); err != nil {
						t.Fatal(err)
					}
				}
				st, _, err := Inspect(t.Context(), top)
				if err != nil || !st.Trusted {
					t.Fatalf("unchanged, trusted from %s: Inspect = %+v, %v", from, st, err)
				}
				c.do(t, top)
				st, _, err = Inspect(t.Context(), top)
				if err != nil {
					t.Fatal(err)
				}
				all := slices.Concat(st.Added, st.Removed, st.Changed)
				if st.Trusted || !slices.Contains(all, c.entry) {
					t.Errorf("%s: Inspect = trusted %v, %s; want %s named", c.name, st.Trusted, st.Diff, c.entry)
				}
			})
		}
	}
}

// A record made before entries were kept (links followed inside
// .gauntlet/, those leading out left out, no mode) reads the unchanged
// work tree as trusted: an upgrade alone is no change.
func TestRecordBeforeEntries(t *testing.T) {
	top := repo(t, map[string]string{".gauntlet/config.yml": configYML, ".gauntlet/checks/lint.yml": lintYML,
		".gauntlet/run.sh": "exit 1\n", "scripts/x.sh": "x\n"})
	if err := os.Chmod(filepath.Join(top, ".gauntlet", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{".gauntlet/inner.sh": "run.sh", ".gauntlet/out.sh": "../scripts/x.sh"} {
		if err := os.Symlink(target, filepath.Join(top, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	work, err := config.ReadFiles(top)
	if err != nil {
		t.Fatal(err)
	}
	old := &Record{Others: true, Files: files(".gauntlet/config.yml", configYML, ".gauntlet/checks/lint.yml", lintYML,
		".gauntlet/run.sh", "exit 1\n", ".gauntlet/inner.sh", "exit 1\n")}
	if d := Compare(old.Files, old.Comparable(top, work)); !d.Empty() {
		t.Errorf("a record made before entries differs after an upgrade alone: %s", d)
	}
	if d := TextDiff(".gauntlet/out.sh", nil, work[".gauntlet/out.sh"], 10); !strings.Contains(strings.Join(d, "\n"), "symbolic link to ../scripts/x.sh") {
		t.Errorf("a link's diff does not say where it leads: %q", d)
	}
}

// A directory of .gauntlet/ that is a link to another one inside it (the
// checks shared with another project, say) loads from a commit as it loads
// from the disk: the loader reads through it, and the copy holds the link.
func TestLinkedDirectoryLoadsFromHEAD(t *testing.T) {
	top := repo(t, map[string]string{".gauntlet/config.yml": configYML, ".gauntlet/shared/lint.yml": lintYML})
	if err := os.Symlink("shared", filepath.Join(top, ".gauntlet", "checks")); err != nil {
		t.Fatal(err)
	}
	git(t, top, "add", "-A")
	git(t, top, "commit", "-qm", "linked checks")
	c, err := HeadFiles(t.Context(), locate(t, top))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFiles(t.Context(), top, c.Files)
	if err != nil || len(cfg.Checks) != 1 {
		t.Fatalf("HEAD's configuration with a linked checks directory: %v, %v", cfg, err)
	}
	st, _, err := Inspect(t.Context(), top)
	if err != nil || !st.Trusted {
		t.Errorf("the same on disk differs from HEAD's: %+v, %v", st, err)
	}
}
