//go:build unix

package cachediff

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/testbin"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// processTimeout bounds every process a step starts.
const processTimeout = 2 * time.Minute

// gauntletBinary returns the agent-gauntlet binary (testbin.Path).
func gauntletBinary() (string, error) { return testbin.Path() }

// Gates and their scripts. Every check reads the disk as a program does:
// every file of its working directory but .git, the ignored out/ and the
// log directory, a repository of its own inside included.
var gateScripts = map[string]string{
	"content.sh": visible + `
found=0
for f in $(files f); do if grep -q BAD "$f"; then echo "$f:1: error: BAD"; found=1; fi; done
for d in $(files d); do if [ -z "$(ls -A "$d")" ]; then echo "$d:1: error: empty directory"; found=1; fi; done
for f in $(files l); do
  if [ -f "$f" ] && grep -q BAD "$f"; then echo "$f:1: error: BAD through a link"; found=1; fi
  if [ -d "$f" ] && grep -RqsD skip --exclude-dir=.git BAD "$f/"; then echo "$f:1: error: BAD in a directory a link leads to"; found=1; fi
done
exit $found
`,
	"crlf.sh": visible + `
cr=$(printf '\r')
for f in $(files f); do if grep -q "$cr" "$f"; then echo "$f:1: error: CRLF"; exit 1; fi; done
exit 0
`,
	"exec.sh": visible + `
for f in $(files f); do if [ -x "$f" ]; then echo "$f:1: error: executable"; exit 1; fi; done
exit 0
`,
	"links.sh": visible + `
for f in $(files l); do case "$(readlink "$f")" in *bad*) echo "$f:1: error: link to $(readlink "$f")"; exit 1;; esac; done
exit 0
`,
	"old.sh": visible + `
found=0
for f in $(files f); do
  grep -n OLD "$f" | while IFS=: read -r n rest; do echo "$f:$n: error: OLD $rest"; done
  if grep -q OLD "$f"; then found=1; fi
done
exit $found
`,
	"scoped.sh": `
for f; do if grep -q BAD "$f"; then echo "$f:1: error: BAD"; exit 1; fi; done
exit 0
`,
}

// visible is the shell function the check scripts list files with.
const visible = `files() { find . \( -name .git -o -name out -o -name gauntlet_logs \) -prune -o -type "$1" -print | sort; }`

// checkGates are the checks by name, with the command each runs (%s is the
// directory of the scripts) and whether it is given the changed files.
var checkGates = []struct {
	name, command string
	scoped        bool
}{
	{"content", "sh %s/content.sh", false},
	{"crlf", "sh %s/crlf.sh", false},
	{"exec", "sh %s/exec.sh", false},
	{"links", "sh %s/links.sh", false},
	{"old", "sh %s/old.sh", false},
	{"scoped", "sh %s/scoped.sh ${CHANGED_FILES}", true},
}

// sandbox is one sequence's directory: the repository, the gates' scripts,
// the stand-in reviewer, a hermetic home.
type sandbox struct {
	base, repo, gates, bin string
	env                    []string
}

// baseFiles are the files the base branch holds; lib/x/old.txt is a
// failure of the `old` check the base has too.
var baseFiles = map[string]string{
	"r.txt":           "root ok\n",
	"src/a.txt":       "a ok\n",
	"src/b.txt":       "b ok\n",
	"lib/x/y.txt":     "y ok\n",
	"lib/x/old.txt":   "OLD from the base\n",
	"lib/z/w.txt":     "w ok\n",
	".gitignore":      "gauntlet_logs/\nout/\n",
	"out/ignored.txt": "ignored\n",
	"conf/c.txt":      "c ok\n",
}

// newSandbox makes the sandbox of a sequence with configuration cfg under
// parent: the base branch committed, the feature branch checked out.
func newSandbox(parent string, cfg setup) (*sandbox, error) {
	base, err := os.MkdirTemp(parent, "seq-")
	if err != nil {
		return nil, err
	}
	s := &sandbox{base: base, repo: filepath.Join(base, "repo"), gates: filepath.Join(base, "gates"), bin: filepath.Join(base, "bin")}
	env, err := testenv.New(filepath.Join(base, "home"))
	if err != nil {
		return nil, err
	}
	s.env = append(env.Environ(s.bin+string(os.PathListSeparator)+os.Getenv("PATH")), "GAUNTLET_STOP_HOOK_ACTIVE=")
	for _, d := range []string{s.repo, s.gates, s.bin, filepath.Join(s.outside(), "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for name, body := range map[string]string{"ok.txt": "ok\n", "bad.txt": "BAD\n"} {
		if err := os.WriteFile(filepath.Join(s.outside(), name), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Symlink("ok.txt", filepath.Join(s.outside(), "hop")); err != nil {
		return nil, err
	}
	for name, body := range gateScripts {
		if err := os.WriteFile(filepath.Join(s.gates, name), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := os.Symlink(self, filepath.Join(s.bin, reviewerName)); err != nil {
		return nil, err
	}
	files := map[string]string{".gauntlet/config.yml": cfg.configYAML(),
		".gauntlet/reviews/quality.md": "---\ncli_preference: [claude]\nnum_reviews: 1\ntimeout: 60\n---\nReview the change: flag every line that adds the marker.\n"}
	for _, g := range checkGates {
		files[".gauntlet/checks/"+g.name+".yml"] = cfg.checkYAML(g.name, fmt.Sprintf(g.command, s.gates))
	}
	for p, c := range baseFiles {
		files[p] = c
	}
	for p, c := range files {
		if err := s.write(p, c); err != nil {
			return nil, err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "gc.auto", "0"}, {"add", "-A"},
		{"commit", "-q", "-m", "base"}, {"checkout", "-q", "-b", "feature"}} {
		if _, err := s.git(args...); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// outside is the directory beside the repository that links may lead to
// (OUT/ in a step): ok.txt, bad.txt, hop (a link to one of them), dir.
func (s *sandbox) outside() string { return filepath.Join(s.base, "outside") }

// remove deletes the sandbox.
func (s *sandbox) remove() { _ = os.RemoveAll(s.base) }

// path is the absolute path of a repository path.
func (s *sandbox) path(rel string) string { return filepath.Join(s.repo, filepath.FromSlash(rel)) }

// write writes a file of the repository, making its directory.
func (s *sandbox) write(rel, content string) error {
	p := s.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// git runs git in dir (the repository when "").
func (s *sandbox) gitIn(dir string, args ...string) (string, error) {
	if dir == "" {
		dir = s.repo
	}
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// git runs git in the repository.
func (s *sandbox) git(args ...string) (string, error) { return s.gitIn("", args...) }

// report is what `run --format json` says, as far as the test reads it.
type report struct {
	Status string `json:"status"`
	Gates  []struct {
		ID     string          `json:"id"`
		Status string          `json:"status"`
		Cached json.RawMessage `json:"cached"`
	} `json:"gates"`
}

// run runs `agent-gauntlet run --format json` (with args) in the repository
// at repo and returns its report.
func (s *sandbox) run(bin, repo string, args ...string) (report, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"run", "--format", "json"}, args...)...)
	cmd.Dir, cmd.Env = repo, s.env
	// At the deadline the run is asked to end, so it ends its gates'
	// process groups too; a SIGKILL would leave them running.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var r report
	if jerr := json.Unmarshal(out.Bytes(), &r); jerr != nil {
		return r, errb.String(), fmt.Errorf("run %v: %v (exit %v)\nstdout:\n%s\nstderr:\n%s", args, jerr, err, out.String(), errb.String())
	}
	return r, errb.String(), nil
}

// copyRepo copies the repository (its git directory and logs included)
// into a fresh directory and returns it.
func (s *sandbox) copyRepo() (string, error) {
	dst, err := os.MkdirTemp(s.base, "copy-")
	if err != nil {
		return "", err
	}
	out, err := exec.Command("cp", "-a", s.repo+"/.", dst).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("cp: %v\n%s", err, out)
	}
	return dst, nil
}

// fingerprint is what a gate whose scope is dir (relative to the
// repository) can see: every file and link below it, as the check scripts
// list them, with its mode and bytes, and for each link where it leads
// (the path it resolves to) and, when that is outside dir, what is there:
// the bytes and mode of a file, what a directory holds (read the same way,
// its links followed), or that nothing is there. unheld is true when a
// link leads to what no cache key can hold (a directory outside the
// repository, a device, an ignored directory): no gate is then expected
// from the cache.
func (s *sandbox) fingerprint(dir string) (fp string, unheld bool, err error) {
	lines, unheld, err := s.seen(s.path(dir), s.path(dir), 0)
	if err != nil {
		return "", false, err
	}
	dirs, err := s.fileless()
	if err != nil {
		return "", false, err
	}
	lines = append(lines, dirs...)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:12]), unheld, nil
}

// fileless lists the directories of the whole repository that hold no
// file and no link at any depth (a FIFO is neither), the walk's skipped
// ones left out: a gate sees them whatever its scope, and the key holds
// them so.
func (s *sandbox) fileless() ([]string, error) {
	var dirs []string
	var walk func(p, rel string) (bool, error)
	walk = func(p, rel string) (bool, error) {
		ents, err := os.ReadDir(p)
		if err != nil {
			return false, err
		}
		holds := false
		for _, e := range ents {
			switch {
			case e.Name() == ".git" || (e.IsDir() && skipped[e.Name()]):
			case e.IsDir():
				in, err := walk(filepath.Join(p, e.Name()), filepath.Join(rel, e.Name()))
				if err != nil {
					return false, err
				}
				holds = holds || in
			case e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0:
				holds = true
			}
		}
		if !holds && rel != "" {
			dirs = append(dirs, "dir "+rel)
		}
		return holds, nil
	}
	_, err := walk(s.repo, "")
	slices.Sort(dirs)
	return dirs, err
}

// maxHops bounds how deep seen follows links to directories that lead to
// more links.
const maxHops = 8

// seen lists what a reader of root sees, for fingerprint: the walk of root
// (of its resolved form for a directory reached through a link: the
// repository-relative names stay those below root), with what each link
// reaches outside scope (the walked scope directory) followed hops deep.
func (s *sandbox) seen(root, scope string, hops int) (lines []string, unheld bool, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipped[d.Name()] {
			return filepath.SkipDir
		}
		if d.Name() == ".git" {
			return nil // a .git file
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			reach, inner, held, err := s.reach(p, scope, hops)
			if err != nil {
				return err
			}
			unheld = unheld || !held
			lines = append(lines, "link "+rel+" "+target+" "+reach)
			for _, l := range inner {
				lines = append(lines, "  through "+rel+": "+l)
			}
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			lines = append(lines, fmt.Sprintf("file %s %o %s", rel, fi.Mode().Perm()&0o100, hex.EncodeToString(sum[:8])))
		}
		return nil
	})
	slices.Sort(lines)
	return lines, unheld, err
}

// skipped are the directories the walk of fingerprint leaves out: the git
// directory, the ignored out/ and the log directory.
var skipped = map[string]bool{".git": true, "out": true, "gauntlet_logs": true}

// walkSkips reports whether the repository-relative path rel is in a
// directory the walk leaves out: a link there reads what no walk sees.
func walkSkips(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if skipped[part] {
			return true
		}
	}
	return false
}

// reach is where the link at p leads (the repository-relative path it
// resolves to, or the absolute one outside the repository) and, when that
// is outside scope or in what the walk leaves out, what is there: the mode
// and bytes of a file (reach), the lines of what a directory in the
// repository holds (inner), "missing" for nothing. held is false for what
// no key can hold (a directory outside the repository or an ignored one, a
// device).
func (s *sandbox) reach(p, scope string, hops int) (reach string, inner []string, held bool, err error) {
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "missing", nil, true, nil
	}
	where := resolved
	rel, rerr := filepath.Rel(s.repo, resolved)
	inRepo := rerr == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !walkSkips(rel)
	if inRepo {
		where = "repo:" + filepath.ToSlash(rel)
	}
	if inRepo && (resolved == scope || strings.HasPrefix(resolved, scope+string(filepath.Separator))) {
		return where, nil, true, nil // the walk of scope sees it
	}
	fi, err := os.Stat(resolved)
	switch {
	case err != nil:
		return where, nil, false, nil
	case fi.IsDir() && rel == ".":
		return where, nil, false, nil // it holds the ignored out/
	case fi.IsDir() && inRepo && hops < maxHops:
		inner, unheld, err := s.seen(resolved, scope, hops+1)
		return where + " dir", inner, !unheld, err
	case !fi.Mode().IsRegular():
		return where, nil, false, nil
	}
	data, err := os.ReadFile(resolved)
	if err != nil {
		return where, nil, false, nil
	}
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s %o %s", where, fi.Mode().Perm()&0o100, hex.EncodeToString(sum[:8])), nil, true, nil
}
