package config

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in dir with a hermetic environment and returns its
// trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.file.allow", "GIT_CONFIG_VALUE_0=always")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo makes a git repository holding files (a name ending in / is a
// directory; "a -> b" makes a symbolic link a pointing at b), with
// everything but gauntlet_logs/ committed, and returns its root.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	plain := map[string]string{".gitignore": "gauntlet_logs/\n"}
	var links [][2]string
	for name, content := range files {
		if link, target, ok := strings.Cut(name, " -> "); ok {
			links = append(links, [2]string{link, target})
			continue
		}
		plain[name] = content
	}
	root := writeTree(t, plain)
	for _, l := range links {
		p := filepath.Join(root, l[0])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l[1], p); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, root, "init", "-q")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-q", "-m", "initial")
	return root
}

const guardConfig = "cli: {default_preference: [claude]}\nentry_points: [{path: ., checks: [lint]}]\n"

// Every configured path is judged where it really is, after its symbolic
// links: `log_dir: .git` used to pass and the next passing run archived the
// whole git directory; a log_dir linked outside the project let clean
// delete files out there.
func TestLoadPathRules(t *testing.T) {
	outside := t.TempDir()
	const (
		cfg  = ".gauntlet/config.yml"
		lint = ".gauntlet/checks/lint.yml"
	)
	logDir := func(dir string) map[string]string {
		return map[string]string{cfg: guardConfig + "log_dir: " + dir + "\n"}
	}
	workDir := func(dir string) map[string]string {
		return map[string]string{lint: "command: x\nworking_directory: " + dir + "\n"}
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string // the one problem, "" when the configuration is valid; %R is the root
	}{
		{"log_dir .git", logDir(".git"), cfg + ": log_dir: must not be inside the git directory %R/.git (.git resolves into it)"},
		{"log_dir inside .git", logDir(".git/logs"), cfg + ": log_dir: must not be inside the git directory %R/.git (.git/logs resolves into it)"},
		{"log_dir .GIT", logDir(".GIT/logs"), cfg + ": log_dir: must not be inside a git directory (.GIT/logs passes through a .git directory)"},
		{"log_dir linked to .git", with(logDir("logs"), "logs -> .git"), cfg + ": log_dir: must not be inside the git directory %R/.git (logs resolves into it)"},
		{"log_dir linked outside", with(logDir("logs"), "logs -> "+outside), cfg + ": log_dir: must stay inside the project root (logs resolves to " + outside + ")"},
		{"log_dir linked to a missing dir outside", with(logDir("logs/sub"), "logs -> "+outside+"/missing"), cfg + ": log_dir: must stay inside the project root (logs/sub resolves to " + outside + "/missing/sub)"},
		{"log_dir linked to the root", with(logDir("logs"), "logs -> ."), cfg + ": log_dir: must be a directory inside the project root, not the root itself (logs resolves to it)"},
		{"log_dir linked to .gauntlet", with(logDir("logs"), "logs -> .gauntlet"), cfg + ": log_dir: must not be inside the .gauntlet directory (logs resolves into it)"},
		{"log_dir inside .gauntlet", logDir(".gauntlet/logs"), cfg + ": log_dir: must not be inside the .gauntlet directory (.gauntlet/logs resolves into it)"},
		{"log_dir holding tracked files", with(logDir("src"), "src/main.go"), cfg + ": log_dir: must not hold files tracked by git (src/main.go is tracked): clean would move them"},
		{"log_dir a file", logDir("README.md"), cfg + ": log_dir: must be a directory (README.md is a regular file)"},
		{"log_dir a path through a file", logDir("README.md/logs"), cfg + ": log_dir: must be a path of directories (README.md is a regular file)"},
		{"log_dir a nested work tree", with(logDir("vendor/lib"), "vendor/lib/.git/"), cfg + ": log_dir: must not be a git work tree (vendor/lib holds .git)"},
		{"log_dir through a nested .git", logDir("vendor/.git/logs"), cfg + ": log_dir: must not be inside a git directory (vendor/.git/logs passes through a .git directory)"},
		{"default log_dir linked outside", map[string]string{cfg: guardConfig, "gauntlet_logs -> " + outside: ""},
			cfg + ": log_dir: must stay inside the project root (gauntlet_logs resolves to " + outside + ") (the default log_dir, gauntlet_logs)"},
		{"log_dir ignored and untracked", with(logDir("build/logs"), "build/logs/"), ""},
		{"log_dir linked inside the project", with(logDir("logs"), "logs -> build/out", "build/out/"), ""},
		{"working_directory linked outside", with(workDir("wd"), "wd -> "+outside), lint + ": working_directory: must stay inside the project root (wd resolves to " + outside + ")"},
		{"working_directory .git", workDir(".git"), lint + ": working_directory: must not be inside the git directory %R/.git (.git resolves into it)"},
		{"working_directory .gauntlet", workDir(".gauntlet/checks"), lint + ": working_directory: must not be inside the .gauntlet directory (.gauntlet/checks resolves into it)"},
		{"working_directory a file", workDir("README.md"), lint + ": working_directory: must be a directory (README.md is a regular file)"},
		{"working_directory the root", workDir("."), ""},
		{"working_directory tracked sources", with(workDir("src"), "src/main.go"), ""},
		{"fix_instructions linked outside", with(map[string]string{lint: "command: x\nfix_instructions: fix.md\n"}, ".gauntlet/fix.md -> "+outside+"/secret"),
			lint + ": fix_instructions: must stay inside the project root (.gauntlet/fix.md resolves to " + outside + "/secret)"},
		{"fix_instructions linked into .git", with(map[string]string{lint: "command: x\nfix_instructions: fix.md\n"}, ".gauntlet/fix.md -> ../.git/config"),
			lint + ": fix_instructions: must not be inside the git directory %R/.git (.gauntlet/fix.md resolves into it)"},
		{"fix_instructions linked inside the project", with(map[string]string{lint: "command: x\nfix_instructions: fix.md\n"}, ".gauntlet/fix.md -> ../docs/fix.md", "docs/fix.md"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				cfg:         guardConfig,
				lint:        "command: x\n",
				"README.md": "hello\n",
			}
			for k, v := range tc.files {
				files[k] = v
			}
			root := repo(t, files)
			_, err := Load(t.Context(), root)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			var errs *Errors
			if !errors.As(err, &errs) || len(errs.Problems) != 1 {
				t.Fatalf("Load error = %v, want one problem", err)
			}
			want := strings.ReplaceAll(tc.want, "%R", root)
			if got := errs.Problems[0].String(); got != want {
				t.Errorf("problem:\n  %s\nwant:\n  %s", got, want)
			}
		})
	}
}

// with adds entries to files.
func with(files map[string]string, more ...string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	for _, m := range more {
		out[m] = "x\n"
	}
	return out
}

// The stop hook's fast path judges log_dir by every rule but the tracked
// files one, without running git.
func TestLoadProjectFilePathRules(t *testing.T) {
	root := repo(t, map[string]string{".gauntlet/config.yml": guardConfig + "log_dir: .git\n"})
	_, err := LoadProjectFile(root)
	want := ".gauntlet/config.yml: log_dir: must not be inside the git directory " + root + "/.git (.git resolves into it)"
	if err == nil || err.Error() != want {
		t.Errorf("LoadProjectFile error = %v, want %q", err, want)
	}
	root = repo(t, map[string]string{".gauntlet/config.yml": guardConfig + "log_dir: src\n", "src/main.go": ""})
	if _, err := LoadProjectFile(root); err != nil {
		t.Errorf("LoadProjectFile ran the tracked files rule: %v", err)
	}
}

// NoProjectLogDir, for clean without a project: gauntlet_logs in the
// working directory, judged as if that directory were the root.
func TestNoProjectLogDir(t *testing.T) {
	plain := t.TempDir()
	if got, err := NoProjectLogDir(t.Context(), plain); err != nil || got != filepath.Join(plain, DefaultLogDir) {
		t.Errorf("NoProjectLogDir = %q, %v", got, err)
	}
	bare := repo(t, map[string]string{"README.md": ""})
	_, err := NoProjectLogDir(t.Context(), filepath.Join(bare, ".git"))
	want := "log_dir: must not be inside the git directory " + bare + "/.git (gauntlet_logs resolves into it) (the default log_dir, gauntlet_logs: no .gauntlet/config.yml was found)"
	if err == nil || err.Error() != want {
		t.Errorf("NoProjectLogDir in .git = %v, want %q", err, want)
	}
	tracked := repo(t, map[string]string{"gauntlet_logs.keep": "", "README.md": ""})
	if err := os.MkdirAll(filepath.Join(tracked, "gauntlet_logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tracked, "gauntlet_logs", "kept.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, tracked, "add", "-f", "gauntlet_logs/kept.txt")
	_, err = NoProjectLogDir(t.Context(), tracked)
	want = "log_dir: must not hold files tracked by git (gauntlet_logs/kept.txt is tracked): clean would move them (the default log_dir, gauntlet_logs: no .gauntlet/config.yml was found)"
	if err == nil || err.Error() != want {
		t.Errorf("NoProjectLogDir with tracked files = %v, want %q", err, want)
	}
}

// findGitDirs finds what git rev-parse --git-dir and --git-common-dir name,
// without git: plain repositories, linked worktrees (.git files and
// commondir), submodules and separate git directories.
func TestFindGitDirsAgreesWithGit(t *testing.T) {
	main := repo(t, map[string]string{"README.md": ""})
	wt := filepath.Join(t.TempDir(), "wt")
	gitIn(t, main, "worktree", "add", "-q", wt)
	sub := repo(t, map[string]string{"lib.go": ""})
	gitIn(t, main, "submodule", "add", "-q", sub, "mods/lib")
	sep := filepath.Join(t.TempDir(), "sep")
	if err := os.MkdirAll(filepath.Join(sep, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, sep, "init", "-q", "--separate-git-dir", filepath.Join(sep, "store", "gitdir"))
	for name, dir := range map[string]string{
		"plain": main, "below the top": filepath.Join(main, "mods"), "worktree": wt,
		"submodule": filepath.Join(main, "mods", "lib"), "separate git dir": sep,
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(gitIn(t, dir, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"))
		got := findGitDirs(dir)
		if len(got) == 1 {
			got = append(got, got[0])
		}
		for i := range want {
			if len(got) != 2 || realPath(t, got[i]) != realPath(t, want[i]) {
				t.Errorf("%s: findGitDirs = %q, git says %q", name, got, want)
				break
			}
		}
	}
}

// realPath is p with its links resolved.
func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A git directory inside the project that is not named .git (git init
// --separate-git-dir) is refused as log_dir, and so is the directory
// holding it.
func TestLoadSeparateGitDir(t *testing.T) {
	root := writeTree(t, map[string]string{".gauntlet/config.yml": guardConfig, ".gauntlet/checks/lint.yml": "command: x\n", "store/": ""})
	gitIn(t, root, "init", "-q", "--separate-git-dir", filepath.Join(root, "store", "gitdir"))
	for logDir, want := range map[string]string{
		"store/gitdir/logs": "must not be inside the git directory " + root + "/store/gitdir (store/gitdir/logs resolves into it)",
		"store":             "must not hold the git directory " + root + "/store/gitdir",
	} {
		if err := os.WriteFile(filepath.Join(root, ".gauntlet", "config.yml"), []byte(guardConfig+"log_dir: "+logDir+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(t.Context(), root)
		if want = ".gauntlet/config.yml: log_dir: " + want; err == nil || err.Error() != want {
			t.Errorf("log_dir %s: %v, want %q", logDir, err, want)
		}
	}
}
