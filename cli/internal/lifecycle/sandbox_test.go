//go:build unix

package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// mainPackage is the agent-gauntlet command under test.
const mainPackage = "github.com/agent-gauntlet/agent-gauntlet/cli/cmd/agent-gauntlet"

// processTimeout bounds every process a step starts; one still running then
// is killed and reported (it measures no time).
const processTimeout = 90 * time.Second

// logDirName is the project's log directory (the default).
const logDirName = "gauntlet_logs"

var (
	buildOnce sync.Once
	buildDir  string
	binPath   string
	buildErr  error
)

// gauntletBinary returns the agent-gauntlet binary, built once per test
// process without -race (the test measures the real program).
func gauntletBinary() (string, error) {
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "gauntlet-lifecycle-")
		if buildErr != nil {
			return
		}
		bin := filepath.Join(buildDir, "agent-gauntlet")
		cmd := exec.Command("go", "build", "-o", bin, mainPackage)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("go build %s: %w\n%s", mainPackage, err, out.Bytes())
			return
		}
		binPath = bin
	})
	return binPath, buildErr
}

// projectConfig is the part of .gauntlet/config.yml a sequence chooses.
type projectConfig struct {
	// MaxRetries is max_retries: max_retries+1 runs per episode.
	MaxRetries int
	// Interval is stop_hook.run_interval_minutes.
	Interval int
	// Baseline is config.yml's baseline: every check's failure is compared
	// with the same check on the merge base, and one the base has too is
	// pre-existing and does not block.
	Baseline bool
	// Cache is the check gates' cache setting: "" (keyed by the whole
	// tree) or "entry_point".
	Cache string
}

// String renders the configuration as the first line of a replay file.
func (c projectConfig) String() string {
	s := fmt.Sprintf("config max_retries=%d interval=%d baseline=%t", c.MaxRetries, c.Interval, c.Baseline)
	if c.Cache != "" {
		s += " cache=" + c.Cache
	}
	return s
}

// parseConfigLine reads the first line of a replay file (String's form;
// files written before baselines have no baseline= field, those before the
// cache no cache= field).
func parseConfigLine(l string) (projectConfig, error) {
	var c projectConfig
	if _, err := fmt.Sscanf(l, "config max_retries=%d interval=%d baseline=%t", &c.MaxRetries, &c.Interval, &c.Baseline); err != nil {
		c = projectConfig{}
		if _, err := fmt.Sscanf(l, "config max_retries=%d interval=%d", &c.MaxRetries, &c.Interval); err != nil {
			return c, err
		}
	}
	if _, v, ok := strings.Cut(l, " cache="); ok {
		c.Cache = strings.TrimSpace(v)
	}
	return c, nil
}

// checkYAML is the file of check gate g, whose program is in gates.
func (c projectConfig) checkYAML(gates, g string) string {
	s := fmt.Sprintf("command: sh %s\ntimeout: 60\n", filepath.Join(gates, g+".sh"))
	if c.Cache != "" {
		s += "cache: " + c.Cache + "\n"
	}
	return s
}

// configYAML is .gauntlet/config.yml: a directory entry point with an
// exclude, a check and a review; two wildcard entry points; a file entry
// point; and pkg_a, whose job id sanitizes like pkg/a's.
func (c projectConfig) configYAML() string {
	return fmt.Sprintf(`base_branch: main
max_retries: %d
baseline: %t
cli:
  default_preference: [claude]
stop_hook:
  run_interval_minutes: %d
entry_points:
  - path: src
    exclude: [src/vendor]
    checks: [lint]
    reviews: [quality]
  - path: lib/*
    checks: [test]
  - path: docs/guide.md
    checks: [docs]
  - path: pkg/*
    checks: [lint]
  - path: pkg_a
    checks: [lint]
`, c.MaxRetries, c.Baseline, c.Interval)
}

// gateScripts are the check gates' programs, kept outside the repository.
// Each fails when a file of its working directory holds its marker, with
// one error line per such file (`./a.txt:1: error: LINTFAIL`, the same
// wherever the marker stands in it: what a baseline compares); lint also
// sleeps when one holds SLEEPME, after writing its process group to
// $MARKS/sleeping, so that a signal lands while it runs.
var gateScripts = map[string]string{
	"lint.sh": `if grep -rqs SLEEPME .; then
  cut -d' ' -f5 /proc/$$/stat > "$MARKS/sleeping.tmp" && mv "$MARKS/sleeping.tmp" "$MARKS/sleeping"
  sleep 30
fi
if grep -rqs LINTFAIL .; then echo "LINTFAIL in:"; grep -rl LINTFAIL . | sort | sed 's/$/:1: error: LINTFAIL/'; exit 1; fi
echo lint ok
`,
	"test.sh": `if grep -rqs TESTFAIL .; then echo "TESTFAIL in:"; grep -rl TESTFAIL . | sort | sed 's/$/:1: error: TESTFAIL/'; exit 1; fi
echo test ok
`,
	"docs.sh": `if grep -qs DOCSFAIL guide.md; then echo "DOCSFAIL in guide.md"; echo "guide.md:1: error: DOCSFAIL"; exit 1; fi
echo docs ok
`,
}

// initialFiles are the files committed on main before a sequence starts.
var initialFiles = map[string]string{
	"src/a.txt":     "plain\n",
	"lib/x/t.txt":   "plain\n",
	"docs/guide.md": "plain\n",
	"pkg_a/p.txt":   "plain\n",
	"top.txt":       "plain\n",
	".gitignore":    logDirName + "/\n",
}

// sandbox is one throwaway git repository with a hermetic environment.
type sandbox struct {
	// base holds home/, bin/ (the stand-in reviewer), gates/, marks/ and repo/.
	base, repo, marks string
	env               []string
	host              string
}

// newSandbox creates a repository in a new directory under parent: the
// project committed on main, then a branch "work" checked out.
func newSandbox(parent string, cfg projectConfig) (*sandbox, error) {
	base, err := os.MkdirTemp(parent, "seq-")
	if err != nil {
		return nil, err
	}
	s := &sandbox{base: base, repo: filepath.Join(base, "repo"), marks: filepath.Join(base, "marks")}
	s.host, _ = os.Hostname()
	env, err := testenv.New(filepath.Join(base, "home"))
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(base, "bin")
	s.env = env.Environ(bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TMPDIR="+os.TempDir(), "LC_ALL=C", "MARKS="+s.marks)
	gates := filepath.Join(base, "gates")
	for _, d := range []string{s.repo, s.marks, gates, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for name, body := range gateScripts {
		if err := os.WriteFile(filepath.Join(gates, name), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := os.Symlink(self, filepath.Join(bin, reviewerName)); err != nil {
		return nil, err
	}
	files := map[string]string{".gauntlet/config.yml": cfg.configYAML()}
	for _, g := range []string{"lint", "test", "docs"} {
		files[".gauntlet/checks/"+g+".yml"] = cfg.checkYAML(gates, g)
	}
	files[".gauntlet/reviews/quality.md"] = "---\ncli_preference: [claude]\nnum_reviews: 1\ntimeout: 60\n---\nReview the change: every REVIEWME marker is a problem.\n"
	for p, c := range initialFiles {
		files[p] = c
	}
	for p, c := range files {
		if err := s.writeFile(p, c); err != nil {
			return nil, err
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}, {"checkout", "-q", "-b", "work"},
	} {
		if _, err := s.git(args...); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// remove deletes the sandbox.
func (s *sandbox) remove() { _ = os.RemoveAll(s.base) }

// path is the absolute path of a repository-relative path.
func (s *sandbox) path(rel string) string { return filepath.Join(s.repo, filepath.FromSlash(rel)) }

// logDir is the absolute log directory.
func (s *sandbox) logDir() string { return s.path(logDirName) }

// writeFile writes a repository-relative file, creating its directories.
func (s *sandbox) writeFile(rel, content string) error {
	p := s.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// git runs git in the repository and returns its trimmed stdout.
func (s *sandbox) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = s.repo, s.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// proc is one started agent-gauntlet process.
type proc struct {
	args           []string
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	res            result
}

// result is what a finished process left.
type result struct {
	code    int
	signal  syscall.Signal
	stdout  string
	stderr  string
	timeout bool
	err     error
}

// start starts agent-gauntlet with args in the repository, stdin as input.
func (s *sandbox) start(bin, stdin string, args ...string) (*proc, error) {
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	p := &proc{args: args, done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, bin, args...)
	p.cmd.Dir, p.cmd.Env = s.repo, s.env
	p.cmd.Stdin = strings.NewReader(stdin)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start agent-gauntlet %s: %w", strings.Join(args, " "), err)
	}
	go func() {
		defer close(p.done)
		defer cancel()
		err := p.cmd.Wait()
		p.res = result{stdout: p.stdout.String(), stderr: p.stderr.String(), code: p.cmd.ProcessState.ExitCode()}
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.res.signal = ws.Signal()
		}
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			p.res.err = err
		}
		p.res.timeout = ctx.Err() != nil
	}()
	return p, nil
}

// wait waits for the process (bounded by processTimeout).
func (p *proc) wait() result {
	<-p.done
	return p.res
}

// waitFor polls cond every 10 ms until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupGone reports whether no live process is left in process group pgid
// (zombies waiting for their reaper count as gone).
func groupGone(pgid int) bool {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 || i+2 >= len(data) {
			continue
		}
		f := strings.Fields(string(data[i+2:]))
		if len(f) > 2 && f[2] == fmt.Sprint(pgid) && f[0] != "Z" {
			return false
		}
	}
	return true
}

// readTree returns the regular files below root (slash-separated relative
// paths to contents), leaving out the directories named in skip (relative
// to root).
func readTree(root string, skip ...string) (map[string]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, s := range skip {
				if rel == s {
					return filepath.SkipDir
				}
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			data = []byte(fmt.Sprintf("<%s>", d.Type()))
		}
		files[rel] = string(data)
		return nil
	})
	return files, err
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
