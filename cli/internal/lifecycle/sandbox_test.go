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
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/testbin"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// processTimeout bounds every process a step starts; one still running then
// is killed and reported (it measures no time).
const processTimeout = 90 * time.Second

// logDirName is the project's log directory (the default).
const logDirName = "gauntlet_logs"

// gauntletBinary returns the agent-gauntlet binary (testbin.Path).
func gauntletBinary() (string, error) { return testbin.Path() }

// projectConfig is what a sequence chooses of its project: the knobs of
// .gauntlet/config.yml and the repository's shape.
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
	// VerifyOnContinue is stop_hook.verify_on_continue: a stop that
	// follows a block is verified again instead of allowed.
	VerifyOnContinue bool
	// Brace: the glob entry point is web/**/*.{ts,tsx}, else web/**/*.ts.
	Brace bool
	// Trusted: a person ran `agent-gauntlet trust` when the project was
	// set up (as init does); otherwise the project has no trusted record
	// yet (a project set up before trust existed).
	Trusted bool
	// NoCommits: the repository has no commit yet; the agent works on the
	// unborn main.
	NoCommits bool
}

// String renders the configuration as the first line of a replay file.
func (c projectConfig) String() string {
	s := fmt.Sprintf("config max_retries=%d interval=%d baseline=%t", c.MaxRetries, c.Interval, c.Baseline)
	if c.Cache != "" {
		s += " cache=" + c.Cache
	}
	for _, f := range []struct {
		name string
		on   bool
	}{{"continue", c.VerifyOnContinue}, {"brace", c.Brace}, {"trusted", c.Trusted}, {"nocommits", c.NoCommits}} {
		if f.on {
			s += " " + f.name
		}
	}
	return s
}

// parseConfigLine reads the first line of a replay file (String's form;
// files written before baselines have no baseline= field, those before the
// cache no cache= field, those before trust records none of the words).
func parseConfigLine(l string) (projectConfig, error) {
	var c projectConfig
	if _, err := fmt.Sscanf(l, "config max_retries=%d interval=%d baseline=%t", &c.MaxRetries, &c.Interval, &c.Baseline); err != nil {
		c = projectConfig{}
		if _, err := fmt.Sscanf(l, "config max_retries=%d interval=%d", &c.MaxRetries, &c.Interval); err != nil {
			return c, err
		}
	}
	for _, w := range strings.Fields(l)[1:] {
		switch {
		case strings.HasPrefix(w, "cache="):
			c.Cache = strings.TrimPrefix(w, "cache=")
		case w == "continue":
			c.VerifyOnContinue = true
		case w == "brace":
			c.Brace = true
		case w == "trusted":
			c.Trusted = true
		case w == "nocommits":
			c.NoCommits = true
		case strings.Contains(w, "="):
		default:
			return c, fmt.Errorf("unknown word %q", w)
		}
	}
	return c, nil
}

// junitOut is the JUnit file of the junit gate, relative to its working
// directory; junitDir holds it (ignored by git, not the user's).
const (
	junitOut = "out/junit.xml"
	junitDir = "jt/out"
)

// gateScripts are the check gates' programs, kept outside the repository.
// lint, test and docs fail when a file of their working directory holds
// their marker, with one error line per such file (`./a.txt:1: error:
// LINTFAIL`, the same wherever the marker stands in it: what a text
// baseline compares); lint also sleeps when one holds SLEEPME, after
// writing its process group to $MARKS/sleeping, so that a signal lands
// while it runs. The others report structured results: vet one go vet
// diagnostic per line holding VETFAIL-<n> (its message names the marker),
// unit a failing go test TestU<n> per marker UTFAIL-<n>, junit a failing
// JUnit test case test_<n> per marker JFAIL-<n>.
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
	"vet.sh": `out=$(grep -rnoI 'VETFAIL-[0-9]*' --include='*.go' . | sort | sed 's/^\(.*\):\([0-9]*\):\(.*\)$/\1:\2:2: unreachable code (\3)/')
if [ -n "$out" ]; then echo "# example.com/vet"; echo "$out"; exit 1; fi
`,
	"unit.sh": `toks=$(grep -rhoI 'UTFAIL-[0-9]*' . | sort -u)
if [ -z "$toks" ]; then echo PASS; printf 'ok  \texample.com/ut\t0.001s\n'; exit 0; fi
for t in $toks; do n=${t#UTFAIL-}; echo "--- FAIL: TestU$n (0.00s)"; echo "    u_test.go:$n: $t"; done
echo FAIL; printf 'FAIL\texample.com/ut\t0.001s\n'; exit 1
`,
	"junit.sh": `mkdir -p out
toks=$(grep -rhoI --exclude-dir=out 'JFAIL-[0-9]*' . | sort -u)
n=0; for t in $toks; do n=$((n+1)); done
{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo "<testsuites><testsuite name=\"jt\" tests=\"$((n+1))\" failures=\"$n\">"
  echo '<testcase classname="jt.suite" name="test_ok" time="0.001"/>'
  for t in $toks; do echo "<testcase classname=\"jt.suite\" name=\"test_${t#JFAIL-}\" time=\"0.001\"><failure message=\"$t\">$t failed</failure></testcase>"; done
  echo '</testsuite></testsuites>'
} > out/junit.xml.tmp && mv out/junit.xml.tmp out/junit.xml
if [ "$n" -gt 0 ]; then echo "$n failed, 1 passed"; exit 1; fi
echo "1 passed"
`,
}

// initialFiles are the files committed on main before a sequence starts.
var initialFiles = map[string]string{
	"src/a.txt":     "plain\n",
	"lib/x/t.txt":   "plain\n",
	"docs/guide.md": "plain\n",
	"pkg_a/p.txt":   "plain\n",
	"top.txt":       "plain\n",
	"web/a.ts":      "plain\n",
	"vet/a.go":      "plain\n",
	"ut/a_test.go":  "plain\n",
	"jt/a.txt":      "plain\n",
	".gitignore":    logDirName + "/\n" + junitDir + "/\n",
}

// sandbox is one throwaway git repository with a hermetic environment.
type sandbox struct {
	// base holds home/, bin/ (the stand-in reviewer), gates/, marks/,
	// elsewhere/ (a directory outside the project) and repo/.
	base, repo, marks, bin, gates string
	env                           []string
	host                          string
	// sleepers are processes a step started to hold a process id (a lock
	// whose pid was reused); close kills them.
	sleepers []*exec.Cmd
}

// outside is a directory outside the project and any repository.
func (s *sandbox) outside() string { return filepath.Join(s.base, "elsewhere") }

// newSandbox creates a repository in a new directory under parent: the
// project committed on main, then a branch "work" checked out (or, for a
// repository with no commits, the project not committed, on the unborn
// main). When cfg says so, bin trusts the configuration, as init does.
func newSandbox(parent, gauntlet string, cfg projectConfig) (*sandbox, error) {
	base, err := os.MkdirTemp(parent, "seq-")
	if err != nil {
		return nil, err
	}
	s := &sandbox{base: base, repo: filepath.Join(base, "repo"), marks: filepath.Join(base, "marks"),
		bin: filepath.Join(base, "bin"), gates: filepath.Join(base, "gates")}
	s.host, _ = os.Hostname()
	env, err := testenv.New(filepath.Join(base, "home"))
	if err != nil {
		return nil, err
	}
	s.env = env.Environ(s.bin+string(os.PathListSeparator)+pathWithout(reviewerName),
		"TMPDIR="+os.TempDir(), "LC_ALL=C", "MARKS="+s.marks)
	for _, d := range []string{s.repo, s.marks, s.gates, s.bin, s.outside()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
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
	files := cfg.gauntletFiles(s.gates)
	for p, c := range initialFiles {
		files[p] = c
	}
	for p, c := range files {
		if err := s.writeFile(p, c); err != nil {
			return nil, err
		}
	}
	steps := [][]string{{"init", "-q", "-b", "main"}, {"init", "-q", "--bare", s.remote()}, {"remote", "add", "origin", s.remote()},
		{"add", "-A"}, {"commit", "-q", "-m", "base"}, {"checkout", "-q", "-b", "work"}}
	if cfg.NoCommits {
		steps = steps[:3]
	}
	for _, args := range steps {
		if _, err := s.git(args...); err != nil {
			return nil, err
		}
	}
	if cfg.Trusted {
		if out, err := s.run(gauntlet, "trust", "--yes"); err != nil {
			return nil, fmt.Errorf("agent-gauntlet trust --yes: %w\n%s", err, out)
		}
	}
	return s, nil
}

// remote is the person's remote, origin: a bare repository beside the
// project.
func (s *sandbox) remote() string { return filepath.Join(s.base, "remote.git") }

// pathWithout is $PATH without the directories that hold an executable
// named name: a stand-in that goes missing must not be replaced by a real
// CLI installed on the machine.
func pathWithout(name string) string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && !fi.IsDir() {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// run runs a program in the repository with the sandbox's environment and
// returns its combined output.
func (s *sandbox) run(prog string, args ...string) (string, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = s.repo, s.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// remove kills the sandbox's sleepers and deletes it.
func (s *sandbox) remove() {
	for _, c := range s.sleepers {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	_ = os.RemoveAll(s.base)
}

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
	return s.startIn(s.repo, nil, bin, stdin, args...)
}

// startIn starts agent-gauntlet in dir with the extra environment extra.
func (s *sandbox) startIn(dir string, extra []string, bin, stdin string, args ...string) (*proc, error) {
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	p := &proc{args: args, done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, bin, args...)
	p.cmd.Dir, p.cmd.Env = dir, append(slices.Clone(s.env), extra...)
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

// userTree reads the user's files: the repository but .git/, the log
// directory and the JUnit gate's output.
func (s *sandbox) userTree() (map[string]string, error) {
	return readTree(s.repo, ".git", logDirName, junitDir)
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
		switch {
		case !d.Type().IsRegular():
			data = []byte(fmt.Sprintf("<%s>", d.Type()))
		case strings.HasSuffix(rel, "/.git/index"):
			// A nested repository's index: git may refresh its stat data.
			data = []byte("<index>")
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
