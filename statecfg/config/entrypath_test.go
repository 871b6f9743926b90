package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An entry point path is canonical before anything compares it: every
// spelling of one directory, file, wildcard or glob loads as the one git's
// paths are compared with, and a spelling that cannot be (out of the
// root, a ".." element, through a symbolic link) is refused naming why
// and what to write.
func TestEntryPathSpellings(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"lib/sub", "web/app", ".github"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"src": "lib", "web/ui": "app", "out": "/tmp", "dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	proj := newProject(root)
	canonical := map[string][]string{
		".":                 {".", "./", "./."},
		"lib":               {"lib", "./lib", "lib/", "lib/.", "lib//", "./lib/./", ".//lib"},
		"lib/sub":           {"lib/sub", "lib/./sub", "./lib//sub/"},
		"lib/*":             {"lib/*", "./lib/*", "lib//*", "lib/./*"},
		"web/**/*.{ts,tsx}": {"web/**/*.{ts,tsx}", "./web/**/*.{ts,tsx}", "web/./**/*.{ts,tsx}"},
		"a..b":              {"a..b", "./a..b"},
		"lib/..hidden":      {"lib/..hidden"},
		".github":           {".github", "./.github/"},
		"missing/dir":       {"missing/dir", "./missing/dir/"},
	}
	for want, spellings := range canonical {
		for _, s := range spellings {
			got, msg := proj.entryPath(s)
			if msg != "" || got != want {
				t.Errorf("entryPath(%q) = %q, %q; want %q", s, got, msg, want)
			}
		}
	}
	refused := map[string]string{
		"/":              "must be a path relative to the project root, not an absolute path",
		"/src":           "must be a path relative to the project root, not an absolute path",
		"..":             `must stay inside the project root (".." leads out of it)`,
		"../src":         `must stay inside the project root ("../src" leads out of it)`,
		"./../x/*":       `must stay inside the project root ("./../x/*" leads out of it)`,
		"src/../../x":    `must stay inside the project root ("src/../../x" leads out of it)`,
		"lib/sub/..":     `must not hold a .. element (write "lib")`,
		"lib/../web":     `must not hold a .. element (write "web")`,
		"a/..":           `must not hold a .. element (write ".")`,
		"src":            `must not pass through a symbolic link: git lists the files where it leads (src -> lib; write "lib")`,
		"./src/":         `must not pass through a symbolic link: git lists the files where it leads (src -> lib; write "lib")`,
		"src/.":          `must not pass through a symbolic link: git lists the files where it leads (src -> lib; write "lib")`,
		"src/sub":        `must not pass through a symbolic link: git lists the files where it leads (src -> lib; write "lib/sub")`,
		"src/**/*.ts":    `must not pass through a symbolic link: git lists the files where it leads (src -> lib; write "lib/**/*.ts")`,
		"src/*":          `must not pass through a symbolic link: git lists the files where it leads (src -> lib; write "lib/*")`,
		"web/ui/x":       `must not pass through a symbolic link: git lists the files where it leads (web/ui -> app; write "web/app/x")`,
		"out":            `must not pass through a symbolic link: git lists the files where it leads (out -> /tmp)`,
		"dangling/a.txt": `must not pass through a symbolic link: git lists the files where it leads (dangling -> nowhere)`,
	}
	for s, want := range refused {
		if got, msg := proj.entryPath(s); msg != want {
			t.Errorf("entryPath(%q) = %q, %q; want the problem %q", s, got, msg, want)
		}
	}
}

// validate refuses a symlinked entry point and an exclude through one,
// naming the file and the field; every other spelling loads canonical.
func TestEntryPathsLoadCanonical(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("lib", filepath.Join(root, "src")); err != nil {
		t.Fatal(err)
	}
	write := func(entry string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, Dir, "checks"), 0o755); err != nil {
			t.Fatal(err)
		}
		data := "base_branch: main\ncli: {default_preference: [claude]}\nentry_points:\n" + entry
		if err := os.WriteFile(filepath.Join(root, Dir, ProjectFile), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, Dir, "checks", "lint.yml"), []byte("command: \"true\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("  - {path: ./lib/., exclude: [./lib/gen/, lib//x/*], checks: [lint]}\n")
	cfg, err := LoadProjectFile(root)
	if err != nil {
		t.Fatal(err)
	}
	if ep := cfg.EntryPoints[0]; ep.Path != "lib" || strings.Join(ep.Exclude, ",") != "lib/gen,lib/x/*" {
		t.Errorf("loaded %q excluding %q; want lib excluding lib/gen, lib/x/*", ep.Path, ep.Exclude)
	}
	write("  - {path: src, exclude: [src/gen], checks: [lint]}\n")
	_, err = LoadProjectFile(root)
	for _, want := range []string{
		`.gauntlet/config.yml: entry_points[0].path: must not pass through a symbolic link: git lists the files where it leads (src -> lib; write "lib")`,
		`.gauntlet/config.yml: entry_points[0].exclude[0]: must not pass through a symbolic link: git lists the files where it leads (src -> lib; write "lib/gen")`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load: %v\nwant the problem %s", err, want)
		}
	}
}
