package cli

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// hostileScripts are the scenarios that look for the machine's tools: init
// (which stacks, checks and review CLIs the machine has), health and hooks
// (review CLIs, agents), and the review gates (which CLI answers).
var hostileScripts = []string{"init_*.txtar", "health_*.txtar", "hooks_*.txtar", "review_*.txtar"}

// hostileTools are programs as a machine may have them, each one a way to
// change what a script finds if the machine's PATH reached it: a python3
// that imports every module (Debian's python3-pytest makes the real one
// import pytest), a rustup without a default toolchain (its cargo and rustc
// fail), linters, build tools and package managers that succeed at
// anything, and review CLIs that find a critical problem in every diff.
var hostileTools = map[string]string{
	"python3":       anything,
	"python":        anything,
	"pytest":        anything,
	"ruff":          anything,
	"mypy":          anything,
	"uv":            anything,
	"poetry":        anything,
	"rustup":        noToolchain,
	"cargo":         noToolchain,
	"rustc":         noToolchain,
	"cargo-clippy":  noToolchain,
	"golangci-lint": anything,
	"gradle":        anything,
	"mvn":           anything,
	"java":          anything,
	"pnpm":          anything,
	"yarn":          anything,
	"bun":           anything,
	"tsc":           anything,
	"eslint":        anything,
	"claude":        reviewer,
	"codex":         reviewer,
	"gemini":        reviewer,
	"copilot":       reviewer,
	"agent":         reviewer,
}

const (
	anything    = "#!/bin/sh\necho \"$(basename \"$0\") 8.0.0 (on this machine)\"\nexit 0\n"
	noToolchain = "#!/bin/sh\necho \"error: rustup could not choose a version of $(basename \"$0\") to run, because one wasn't specified explicitly, and no default is configured.\" >&2\necho \"help: run 'rustup default stable' to download the latest stable release of Rust and set it as your default toolchain.\" >&2\nexit 1\n"
	reviewer    = "#!/bin/sh\ncat >/dev/null\necho '{\"status\":\"fail\",\"violations\":[{\"file\":\"x\",\"line\":1,\"issue\":\"the machine's own reviewer\",\"fix\":\"none\",\"priority\":\"critical\",\"status\":\"new\"}]}'\n"
)

// TestScriptHostileHost runs the scenarios that look for the machine's
// tools with hostileTools first on the PATH they are given: each must pass
// as it does anywhere else, since a script sees only the machine's programs
// of scripttest.HostTools and the stand-ins it makes.
func TestScriptHostileHost(t *testing.T) {
	hostile := t.TempDir()
	for name, script := range hostileTools {
		if err := os.WriteFile(filepath.Join(hostile, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join("..", "testdata", "script")
	var files []string
	for _, pattern := range hostileScripts {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no script matches %q in %s", hostileScripts, dir)
	}
	p := ScriptParams("")
	p.Files = files // testscript reads Files only when Dir is empty
	setup := p.Setup
	p.Setup = func(e *testscript.Env) error {
		e.Setenv("PATH", hostile+string(os.PathListSeparator)+e.Getenv("PATH"))
		return setup(e)
	}
	testscript.Run(t, p)
}
