//go:build installtest

package release

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installTestVersion is the version the test serves the modules at: a
// pre-release no real release will ever have.
const installTestVersion = "v0.0.0-installtest"

// TestInstallGoFromProxy proves `go install Command@<version>` as a user
// runs it: the working tree's modules served at a test version by a
// file-based module proxy (zips made with golang.org/x/mod/zip), an empty
// GOPATH, that proxy first in GOPROXY and the default proxy after it; the
// installed binary then answers --version with that version and a stop
// hook with one JSON line.
func TestInstallGoFromProxy(t *testing.T) {
	ctx := context.Background()
	s, err := Load(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(log.String())
		}
	})
	p, err := Prepare(ctx, s, installTestVersion, t.TempDir(), &log)
	if err != nil {
		t.Fatal(err)
	}
	for dir, f := range p.Files {
		if bytes.Contains(f.Mod, []byte("\nreplace")) {
			t.Errorf("%s/go.mod at %s has a replace directive:\n%s", dir, installTestVersion, f.Mod)
		}
	}
	bin, err := p.GoInstall(ctx, Command, t.TempDir(), &log)
	if err != nil {
		t.Fatal(err)
	}

	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	if got := strings.TrimSpace(string(out)); got != installTestVersion {
		t.Errorf("--version = %q, want %q (the module version go install recorded)", got, installTestVersion)
	}

	project := t.TempDir()
	hook := exec.CommandContext(ctx, bin, "stop-hook", "--agent", "claude")
	hook.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"Stop","stop_hook_active":false,"cwd":` + quote(project) + `}`)
	hook.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	hook.Stdout, hook.Stderr = &stdout, &stderr
	if err := hook.Run(); err != nil {
		t.Fatalf("stop-hook: %v\nstderr: %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	var answer struct{ Decision, Status string }
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &answer) != nil {
		t.Fatalf("stop-hook printed %q, want one JSON line", stdout.String())
	}
	if answer.Decision != "approve" || answer.Status != "no_config" {
		t.Errorf("stop-hook answered %s, want approve with status no_config", lines[0])
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// repoRoot returns the directory holding go.work above the test's.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.work above the test directory")
		}
		dir = parent
	}
}
