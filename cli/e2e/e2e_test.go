//go:build e2e

// Package e2e drives the real agent CLIs (Claude Code, Codex, Gemini CLI,
// Copilot CLI, Qwen Code, Factory Droid) through whole turns against the loopback model stand-ins of
// cli/internal/modelstub, with agent-gauntlet as their stop hook. The
// scenarios are ../../testdata/e2e/*.txtar. Run them with `go tool mage e2e`,
// which installs the pinned CLIs first, or by hand:
//
//	GAUNTLET_E2E_NODE_PREFIX=$PWD/.e2e-cache/node go -C cli test -tags e2e -run TestE2E ./e2e/
//
// Custom script commands: waitaddr FILE VAR (wait for a stand-in's address
// file, set VAR to its URL), modelreqs LOG (one line per recorded request,
// for stdout assertions), hookfed LINES LOG MIN (a block's reason reached
// the model whole), modcopy MODULE DIR (a writable copy of a module
// from the Go module cache, a real project to run init on) and unpath NAME
// (drop from PATH every directory holding NAME). Programs: agent-gauntlet
// and `modelstub serve` (run it in the background with &). $REPO is the
// repository root (its Claude Code plugin marketplace). $NODE_PATH_FIRST is
// PATH with, first, a node recent enough for every client (set
// GAUNTLET_E2E_NODE_BIN to its directory when the machine's is older):
// `env PATH=$NODE_PATH_FIRST` in a scenario whose client needs it.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/modelstub"
	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// nodePrefixEnv names the npm prefix that holds the real agent CLIs.
const nodePrefixEnv = "GAUNTLET_E2E_NODE_PREFIX"

// nodeBinEnv names a directory holding a node recent enough for every
// client, "" when the machine's is.
const nodeBinEnv = "GAUNTLET_E2E_NODE_BIN"

// agentCLIs are the executables every scenario folder may use; all must be
// installed, or the suite fails.
var agentCLIs = []string{"claude", "codex", "gemini", "copilot", "qwen", "droid"}

// waitAddrTimeout bounds how long waitaddr waits for a stand-in to listen.
const waitAddrTimeout = 30 * time.Second

// TestMain lets testscript run this test binary as agent-gauntlet and as the
// modelstub stand-in server.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agent-gauntlet": func() {
			os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"modelstub": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := modelstub.Main(ctx, os.Args[1:], os.Stderr)
			stop()
			os.Exit(code)
		},
	})
}

// TestE2E runs the scenarios in ../../testdata/e2e against the real agent
// CLIs installed under $GAUNTLET_E2E_NODE_PREFIX; it fails when they are not.
func TestE2E(t *testing.T) {
	bin, err := nodeBin(os.Getenv(nodePrefixEnv))
	if err != nil {
		t.Fatalf("end-to-end tests need the real agent CLIs (run `go tool mage e2e`): %v", err)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "e2e"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("GAUNTLET_UPDATE_GOLDEN") != "",
		Setup: func(e *testscript.Env) error {
			if err := scripttest.HermeticHome(e); err != nil {
				return err
			}
			e.Setenv("PATH", e.Getenv("PATH")+string(os.PathListSeparator)+bin)
			e.Setenv("NODE_PATH_FIRST", e.Getenv("PATH"))
			if dir := os.Getenv(nodeBinEnv); dir != "" {
				e.Setenv("NODE_PATH_FIRST", dir+string(os.PathListSeparator)+e.Getenv("PATH"))
			}
			e.Setenv("REPO", repo)
			e.Setenv("NO_PROXY", "127.0.0.1,localhost")
			e.Setenv("no_proxy", "127.0.0.1,localhost")
			// The machine's Go caches, which the hermetic HOME would hide:
			// a real module's tests run in the init scenario.
			for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
				if v := goEnv(k); v != "" {
					e.Setenv(k, v)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitaddr":  cmdWaitAddr,
			"modelreqs": cmdModelReqs,
			"modcopy":   cmdModCopy,
			"unpath":    cmdUnpath,
			"hookfed":   cmdHookFed,
		},
	})
}

// nodeBin returns the directory of the agent CLIs' executables in an npm
// prefix (node_modules/.bin for `npm install --prefix`, bin for `-g`).
func nodeBin(prefix string) (string, error) {
	if prefix == "" {
		return "", fmt.Errorf("%s is not set", nodePrefixEnv)
	}
	prefix, err := filepath.Abs(prefix)
	if err != nil {
		return "", fmt.Errorf("%s: %w", nodePrefixEnv, err)
	}
	var missing []string
	for _, dir := range []string{filepath.Join(prefix, "node_modules", ".bin"), filepath.Join(prefix, "bin")} {
		missing = missing[:0]
		for _, name := range agentCLIs {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%s=%s: not installed there: %s", nodePrefixEnv, prefix, strings.Join(missing, ", "))
}

// cmdWaitAddr waits for a stand-in's address file and sets an env var:
//
//	waitaddr FILE VAR
//
// sets VAR to http://127.0.0.1:PORT once FILE exists (30 s at most).
func cmdWaitAddr(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitaddr FILE VAR")
	}
	file := ts.MkAbs(args[0])
	deadline := time.Now().Add(waitAddrTimeout)
	for {
		b, err := os.ReadFile(file)
		if err == nil && strings.TrimSpace(string(b)) != "" {
			ts.Setenv(args[1], "http://"+strings.TrimSpace(string(b)))
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitaddr: %s did not appear within %v (did the stand-in start?)", file, waitAddrTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdModelReqs prints one line per request recorded by a stand-in, for
// stdout assertions (see modelstub.Summarize):
//
//	modelreqs LOG
func cmdModelReqs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: modelreqs LOG")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	entries, err := modelstub.ReadLog(f)
	ts.Check(err)
	ts.Check(modelstub.Summarize(entries, ts.Stdout()))
}

// cmdHookFed checks that a stop hook's block reason reached the model
// whole:
//
//	hookfed LINES LOG MIN
//
// LINES holds the hook's answers as the client read them (one JSON line
// each); the first must be at least MIN bytes long and a block whose reason
// and stopReason are the same text. A request of the stand-in's log LOG
// must carry that whole text in its last user message. It prints
// `hook line N bytes, reason M bytes: in turn T, whole`.
func cmdHookFed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: hookfed LINES LOG MIN")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	line, _, _ := strings.Cut(string(data), "\n")
	min, err := strconv.Atoi(args[2])
	ts.Check(err)
	if len(line) < min {
		ts.Fatalf("hookfed: the hook's line is %d bytes, want at least %d", len(line), min)
	}
	var answer struct {
		Decision, Reason, StopReason string
	}
	ts.Check(json.Unmarshal([]byte(line), &answer))
	if answer.Decision != "block" || answer.Reason == "" || answer.Reason != answer.StopReason {
		ts.Fatalf("hookfed: the hook's first answer is not a block with the same reason and stopReason: %.200s", line)
	}
	f, err := os.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	defer f.Close()
	entries, err := modelstub.ReadLog(f)
	ts.Check(err)
	for _, e := range entries {
		if e.Turn && strings.Contains(modelstub.LastUserText(e.API, e.Body), answer.Reason) {
			fmt.Fprintf(ts.Stdout(), "hook line %d bytes, reason %d bytes: in turn %d, whole\n", len(line), len(answer.Reason), e.N)
			return
		}
	}
	ts.Fatalf("hookfed: no request of %s carries the whole reason (%d bytes)", args[1], len(answer.Reason))
}

// goEnv is `go env KEY` of the test process ("" when go cannot say).
func goEnv(key string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// cmdModCopy copies a module that the cli module requires out of the Go
// module cache, writable (the cache's files are read-only):
//
//	modcopy MODULE DIR
func cmdModCopy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: modcopy MODULE DIR")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", args[0]).Output()
	ts.Check(err)
	src := strings.TrimSpace(string(out))
	if src == "" {
		ts.Fatalf("modcopy: %s is not in the module cache (go mod download %s)", args[0], args[0])
	}
	dst := ts.MkAbs(args[1])
	ts.Check(filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	}))
}

// cmdUnpath removes from PATH every directory that holds NAME, so that the
// script runs as on a machine without it:
//
//	unpath NAME
func cmdUnpath(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: unpath NAME")
	}
	var keep []string
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, args[0])); err != nil {
			keep = append(keep, dir)
		}
	}
	ts.Setenv("PATH", strings.Join(keep, string(os.PathListSeparator)))
}
