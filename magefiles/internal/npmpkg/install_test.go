//go:build installtest && unix

package npmpkg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Set by `go tool mage installtest`, which builds dist/ first.
const (
	tarballsEnv = "GAUNTLET_NPM_TARBALLS"
	versionEnv  = "GAUNTLET_DIST_VERSION"
)

// installFlags are the flags of every npm install of these tests: from the
// tarballs alone, no registry.
var installFlags = []string{"install", "--offline", "--no-audit", "--no-fund"}

// TestInstallNpm installs the npm tarballs `go tool mage dist` wrote (the
// main package and this machine's platform package) with `npm install
// --offline`, and runs agent-gauntlet through npx and through the installed
// command: --version by both names, a stop hook that blocks on a failing
// gate (stdin and stdout pass through: one JSON line, exit 0), exit codes,
// and signals. A normal install (project, global, npx) makes the command
// the platform package's binary itself (the install script); with
// --ignore-scripts, or when the script cannot (no platform package, a
// binary of another version), the install succeeds and the command is the
// Node launcher, which keeps every one of those guarantees. An upgrade
// replaces the command cleanly.
func TestInstallNpm(t *testing.T) {
	tarballs, version := distTarballs(t)
	host := Platform{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}

	t.Run("npm install: the commands are the binary", func(t *testing.T) {
		n := newNpmTest(t)
		dir := n.dir(t, "project-deps")
		npm(t, dir, n.env, append(installFlags, tarballs...)...)
		assertCommands(t, filepath.Join(dir, "node_modules", ".bin"), platformBinary(dir, host), true)
		checkCommands(t, n, dir, version, true)
	})

	t.Run("--ignore-scripts: the commands are the launcher", func(t *testing.T) {
		n := newNpmTest(t)
		dir := n.dir(t, "project-deps")
		npm(t, dir, n.env, append(append(installFlags, "--ignore-scripts"), tarballs...)...)
		assertCommands(t, filepath.Join(dir, "node_modules", ".bin"), platformBinary(dir, host), false)
		checkCommands(t, n, dir, version, false)
	})

	t.Run("npm install -g: the prefix's commands are the binary", func(t *testing.T) {
		n := newNpmTest(t)
		prefix := n.dir(t, "prefix")
		npm(t, n.work, n.env, append(append(installFlags, "--global", "--prefix", prefix), tarballs...)...)
		bin := filepath.Join(prefix, "bin")
		assertCommands(t, bin, platformBinary(filepath.Join(prefix, "lib"), host), true)
		for _, name := range Bins {
			if r := runIn(t, n.work, n.env, "", filepath.Join(bin, name), "--version"); r.code != 0 || strings.TrimSpace(r.stdout) != "v"+version {
				t.Errorf("%s --version: %s", name, r)
			}
		}
		checkStopHook(t, n, bin, "project-global", filepath.Join(bin, "agent-gauntlet"))
	})

	t.Run("npx without an install: its cache's commands are the binary", func(t *testing.T) {
		n := newNpmTest(t)
		dir := n.dir(t, "empty")
		args := []string{"--yes", "--offline"}
		for _, tb := range tarballs {
			args = append(args, "--package", tb)
		}
		for _, name := range Bins {
			if r := runIn(t, dir, n.env, "", "npx", append(args, name, "--version")...); r.code != 0 || strings.TrimSpace(r.stdout) != "v"+version {
				t.Errorf("npx %s --version: %s", name, r)
			}
		}
		bins, _ := filepath.Glob(filepath.Join(n.cache, "_npx", "*", "node_modules", ".bin"))
		if len(bins) != 1 {
			t.Fatalf("npx's installs in its cache: %v, want one", bins)
		}
		assertCommands(t, bins[0], platformBinary(filepath.Dir(filepath.Dir(bins[0])), host), true)
	})

	for _, tc := range []struct {
		flags []string
		why   string
	}{
		// npm cannot fetch the platform package offline and goes on
		// without it: nobody asked to omit it
		{nil, "npm did not install it"},
		{[]string{"--omit=optional"}, "--omit=optional left it out"},
	} {
		t.Run(fmt.Sprintf("no platform package (%q): the install succeeds, with the launcher", tc.flags), func(t *testing.T) {
			n := newNpmTest(t)
			dir := n.dir(t, "project-deps")
			args := append(append(append([]string{}, installFlags...), tc.flags...), "--foreground-scripts", tarballs[0])
			r := runIn(t, dir, n.env, "", "npm", args...)
			assertScriptLine(t, r, host.Package()+", which holds the agent-gauntlet binary for this machine, is not installed: "+tc.why)
			assertCommands(t, filepath.Join(dir, "node_modules", ".bin"), "", false)
			// The launcher says what is missing, with exit 1 (never 2, a
			// block), without blaming an option nobody passed to it.
			if r := runIn(t, dir, n.env, "", filepath.Join(dir, "node_modules", ".bin", "agent-gauntlet"), "--version"); r.code != 1 ||
				!strings.Contains(r.stderr, "is not installed: npm did not install it") {
				t.Errorf("the launcher without a binary: %s", r)
			}
		})
	}

	t.Run("a binary of another version: the install succeeds, with the launcher", func(t *testing.T) {
		n := newNpmTest(t)
		other := n.pack(t, "other", version, "#!/bin/sh\necho v0.0.0-other\n")
		dir := n.dir(t, "project-deps")
		r := runIn(t, dir, n.env, "", "npm", append(append(installFlags, "--foreground-scripts"), other...)...)
		assertScriptLine(t, r, `--version printed "v0.0.0-other", not "v`+version+`"`)
		assertCommands(t, filepath.Join(dir, "node_modules", ".bin"), platformBinary(dir, host), false)
		if r := runIn(t, dir, n.env, "", filepath.Join(dir, "node_modules", ".bin", "agent-gauntlet"), "--version"); r.code != 0 || r.stdout != "v0.0.0-other\n" {
			t.Errorf("the launcher runs the binary there is: %s", r)
		}
	})

	t.Run("an upgrade and a rebuild replace the command cleanly", func(t *testing.T) {
		n := newNpmTest(t)
		old := n.pack(t, "old", "0.0.0-old", "#!/bin/sh\necho v0.0.0-old\n")
		dir := n.dir(t, "project-deps")
		bin := filepath.Join(dir, "node_modules", ".bin")
		npm(t, dir, n.env, append(installFlags, old...)...)
		assertCommands(t, bin, platformBinary(dir, host), true)
		npm(t, dir, n.env, append(installFlags, tarballs...)...)
		assertCommands(t, bin, platformBinary(dir, host), true)
		// npm rebuild runs the script again on the binary, and links and
		// chmods the commands again: nothing changes.
		npm(t, dir, n.env, "rebuild")
		assertCommands(t, bin, platformBinary(dir, host), true)
		for _, name := range Bins {
			if r := runIn(t, dir, n.env, "", filepath.Join(bin, name), "--version"); r.code != 0 || strings.TrimSpace(r.stdout) != "v"+version {
				t.Errorf("%s --version after the upgrade: %s", name, r)
			}
		}
	})
}

// distTarballs returns the tarballs of the main package and of this
// machine's platform package (in that order) that `go tool mage dist`
// wrote, and their version.
func distTarballs(t *testing.T) ([]string, string) {
	t.Helper()
	tarballs := strings.Fields(os.Getenv(tarballsEnv))
	version := os.Getenv(versionEnv)
	if len(tarballs) == 0 || version == "" {
		t.Fatalf("%s and %s are not set: run `go tool mage installtest`, which builds the tarballs first", tarballsEnv, versionEnv)
	}
	host := Platform{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	want := []string{Name + "-" + version + ".tgz", host.Package() + "-" + version + ".tgz"}
	found := make([]string, len(want))
	for _, tb := range tarballs {
		for i, w := range want {
			if filepath.Base(tb) == w {
				found[i] = tb
			}
		}
	}
	for i, f := range found {
		if f == "" {
			t.Fatalf("want %s among %v", want[i], tarballs)
		}
	}
	return found, version
}

// npmTest is the throwaway world of one test: a directory, a HOME and an
// npm cache of its own.
type npmTest struct {
	work, cache string
	env         []string
}

func newNpmTest(t *testing.T) npmTest {
	t.Helper()
	work := t.TempDir()
	n := npmTest{work: work, cache: filepath.Join(work, "npm-cache")}
	n.env = hermeticEnv(n.dir(t, "home"), n.cache)
	return n
}

// dir creates the directory name in the test's world.
func (n npmTest) dir(t *testing.T, name string) string {
	t.Helper()
	d := filepath.Join(n.work, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// pack writes and packs (Write, Pack) the main package and this machine's
// platform package at version, the binary being script, and returns their
// tarballs, the main package's first.
func (n npmTest) pack(t *testing.T, name, version, script string) []string {
	t.Helper()
	dir := n.dir(t, name)
	bin := filepath.Join(dir, "agent-gauntlet")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dirs, err := Write(filepath.Join(dir, "packages"), version, []Binary{{Platform{runtime.GOOS, runtime.GOARCH}, bin}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("npm_config_cache", n.cache)
	tarballs, err := Pack(context.Background(), dirs, dir, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return []string{tarballs[1], tarballs[0]}
}

// platformBinary is the platform package's binary in the node_modules under
// dir.
func platformBinary(dir string, host Platform) string {
	return filepath.Join(dir, "node_modules", host.Package(), "bin", host.Exe())
}

// assertCommands checks that each command in binDir is the platform
// package's binary (native: byte for byte, what npm and the install script
// left of it) or the launcher, and that the directory of the file it
// names holds nothing else (no temporary file left behind).
func assertCommands(t *testing.T, binDir, binary string, native bool) {
	t.Helper()
	want := launcher
	if native {
		var err error
		if want, err = os.ReadFile(binary); err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(want, []byte("#!/usr/bin/env node")) {
			t.Fatalf("%s is a Node script", binary)
		}
	}
	for _, name := range Bins {
		cmd := filepath.Join(binDir, name)
		got, err := os.ReadFile(cmd)
		if err != nil || !bytes.Equal(got, want) {
			what := map[bool]string{true: "the binary " + binary, false: "the launcher"}[native]
			t.Errorf("%s (%d bytes, %v) is not %s (%d bytes)", cmd, len(got), err, what, len(want))
			continue
		}
		file, err := filepath.EvalSymlinks(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if entries, err := os.ReadDir(filepath.Dir(file)); err != nil || len(entries) != 1 {
			t.Errorf("%s holds %d files (%v), want only %s", filepath.Dir(file), len(entries), err, filepath.Base(file))
		}
	}
}

// assertScriptLine checks that an npm install run with --foreground-scripts
// succeeded, and that the install script printed exactly one line, naming
// why.
func assertScriptLine(t *testing.T, r result, why string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("the install failed: %s", r)
	}
	var lines []string
	for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
		if strings.HasPrefix(l, Name+": ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "the command stays the Node launcher: ") || !strings.Contains(lines[0], why) {
		t.Errorf("want the install script's one line saying %q: %q\n%s", why, lines, r)
	}
}

// checkCommands runs agent-gauntlet installed in dir through npx and
// through node_modules/.bin: --version by both names, a stop hook, exit
// codes and signals; native says whether the command is the binary or the
// launcher.
func checkCommands(t *testing.T, n npmTest, dir, version string, native bool) {
	t.Helper()
	bin := filepath.Join(dir, "node_modules", ".bin", "agent-gauntlet")
	env := n.env

	// --version through npx, by both command names
	for _, name := range Bins {
		r := runIn(t, dir, env, "", "npx", "--offline", name, "--version")
		if r.code != 0 || strings.TrimSpace(r.stdout) != "v"+version {
			t.Errorf("npx %s --version: %s", name, r)
		}
	}

	// a stop hook through npx and through the command
	checkStopHook(t, n, dir, "project-npx", "npx", "--offline", "agent-gauntlet")
	checkStopHook(t, n, dir, "project-bin", bin)

	// exit codes pass through: 2 for a usage error, 1 for a failed run
	project := gauntletProject(t, n.work, "project-codes", "test -f fixed", env)
	if r := runIn(t, project, env, "", bin, "frobnicate"); r.code != 2 || !strings.Contains(r.stderr, "frobnicate") {
		t.Errorf("agent-gauntlet frobnicate: want exit 2 naming the argument: %s", r)
	}
	if r := runIn(t, project, env, "", bin, "run"); r.code != 1 || !strings.Contains(r.stderr, "Status: Failed") {
		t.Errorf("agent-gauntlet run on a failing gate: want exit 1: %s", r)
	}

	t.Run("SIGTERM reaches the binary", func(t *testing.T) {
		marks := t.TempDir()
		p := gauntletProject(t, n.work, "slow-term", "touch "+filepath.Join(marks, "started")+" && exec sleep 300", env)
		run := start(t, p, env, "", bin, "run")
		waitForFile(t, filepath.Join(marks, "started"), run)
		if err := run.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		r := run.wait(t)
		// 128+15: the binary's exit code for a run SIGTERM ended (not a
		// signal death of the launcher, which would show no "interrupted").
		if r.code != 128+int(syscall.SIGTERM) || !strings.Contains(strings.ToLower(r.stderr), "interrupted") {
			t.Errorf("want the binary's own answer to SIGTERM (exit 143, interrupted): %s", r)
		}
		if _, err := os.Stat(filepath.Join(p, "gauntlet_logs", ".gauntlet-run.lock")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the lock is left behind: the binary did not get SIGTERM (%v)", err)
		}
	})

	t.Run("a signal death passes through", func(t *testing.T) {
		marks := t.TempDir()
		p := gauntletProject(t, n.work, "slow-kill", "touch "+filepath.Join(marks, "started")+" && exec sleep 300", env)
		run := start(t, p, env, "", bin, "run")
		waitForFile(t, filepath.Join(marks, "started"), run)
		data, err := os.ReadFile(filepath.Join(p, "gauntlet_logs", ".gauntlet-run.lock"))
		if err != nil {
			t.Fatal(err)
		}
		var lock struct{ PID int }
		if err := json.Unmarshal(data, &lock); err != nil {
			t.Fatalf("lock %s: %v", data, err)
		}
		// The binary holds the lock: the command itself when it is the
		// binary, the launcher's child otherwise.
		if (lock.PID == run.cmd.Process.Pid) != native {
			t.Fatalf("the lock's pid is %d, the command's %d: want them %s", lock.PID, run.cmd.Process.Pid,
				map[bool]string{true: "equal (no Node in between)", false: "different (the launcher's child)"}[native])
		}
		if err := syscall.Kill(lock.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if r := run.wait(t); r.signal != syscall.SIGKILL {
			t.Errorf("the binary was killed by SIGKILL: want the command killed by it: %s", r)
		}
	})
}

// checkStopHook runs a stop hook (argv, then `stop-hook --agent claude`)
// in dir on a new project, name, whose gate fails: one JSON line that
// blocks, exit 0.
func checkStopHook(t *testing.T, n npmTest, dir, name string, argv ...string) {
	t.Helper()
	project := gauntletProject(t, n.work, name, "test -f fixed", n.env)
	input := `{"session_id":"s","hook_event_name":"Stop","stop_hook_active":false,"cwd":` + quote(project) + "}\n"
	r := runIn(t, dir, n.env, input, argv[0], append(argv[1:], "stop-hook", "--agent", "claude")...)
	var answer struct{ Decision, Status, Reason string }
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &answer) != nil {
		t.Fatalf("stop hook through %v: want one JSON line and exit 0: %s", argv, r)
	}
	if answer.Decision != "block" || answer.Status != "failed" || !strings.Contains(answer.Reason, "gate") {
		t.Errorf("stop hook through %v: want a block for the failing gate: %s", argv, r)
	}
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case err := <-p.done:
		p.done <- err
		return true
	default:
		return false
	}
}

// waitForFile waits for path to exist, failing when p ends first.
func waitForFile(t *testing.T, path string, p *process) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if p.exited() {
			t.Fatalf("%v ended before %s appeared: %s", p.cmd.Args, path, p.wait(t))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %v", path, waitLimit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
