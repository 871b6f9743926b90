package release

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepareTidiesAgainstTheWorkingTree prepares two small modules, b
// importing a, in a throwaway repository (no third-party dependency, so
// nothing is downloaded). b's go.mod does not require a yet (a new import
// of a sibling): it gets the requirement at the version and its go.sum a's
// hashes; Tidied keeps only the released hash b had; the proxy serves both
// modules.
func TestPrepareTidiesAgainstTheWorkingTree(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.work":     "go 1.25.0\n\nuse (\n\t./a\n\t./b\n)\n\nreplace " + sib + "a v0.3.0 => ./a\n\nreplace " + sib + "b v0.3.0 => ./b\n",
		"a/go.mod":    gomod("a")[1],
		"a/a.go":      "package a\n\n// A is a.\nconst A = 1\n",
		"b/go.mod":    gomod("b")[1],
		"b/b.go":      "package b\n\nimport \"" + sib + "a\"\n\n// B is b.\nconst B = a.A\n",
		"b/README.md": "b\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	s, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	s.Modules[1].Sum = []byte(sib + "a v0.3.0 h1:RELEASED=\n")

	var log bytes.Buffer
	p, err := Prepare(context.Background(), s, "v0.3.0", t.TempDir(), &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if got := p.Order[0].Dir + "," + p.Order[1].Dir; got != "a,b" {
		t.Errorf("order %s, want a,b", got)
	}
	b := p.Files["b"]
	if !strings.Contains(string(b.Mod), "require "+sib+"a v0.3.0\n") || strings.Contains(string(b.Mod), "// indirect") {
		t.Errorf("b/go.mod at v0.3.0:\n%s", b.Mod)
	}
	if !strings.Contains(string(b.Sum), sib+"a v0.3.0 h1:") || !strings.Contains(string(b.Sum), sib+"a v0.3.0/go.mod h1:") ||
		strings.Contains(string(b.Sum), "RELEASED") {
		t.Errorf("b/go.sum at v0.3.0 lacks a's hashes of the working tree:\n%s", b.Sum)
	}
	if got := string(p.Tidied(s.Modules[1]).Sum); got != sib+"a v0.3.0 h1:RELEASED=\n" {
		t.Errorf("Tidied b/go.sum = %q, want only the released hash b had", got)
	}
	for _, m := range []string{"a", "b"} {
		zip := filepath.Join(strings.TrimPrefix(p.Proxy, "file://"), filepath.FromSlash(RepoPath), m, "@v", "v0.3.0.zip")
		if _, err := os.Stat(zip); err != nil {
			t.Errorf("the proxy does not serve %s: %v", m, err)
		}
	}
}
