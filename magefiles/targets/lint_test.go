package targets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestCrossProblems pins that lint vets every module, tests included, for
// each release OS and build tag set: a test file using a Unix-only
// syscall (as ten did before Windows was fixed) is reported for Windows,
// once per tag set, though the module builds everywhere.
func TestCrossProblems(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the Unix-only test file is this system's own")
	}
	var out, errOut bytes.Buffer
	oldOut, oldErr := Out, Err
	Out, Err = &out, &errOut
	defer func() { Out, Err = oldOut, oldErr }()
	t.Setenv("GOWORK", "off")
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, "m", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("go.mod", "module example.com/m\n\ngo 1.25\n")
	write("m.go", "// Package m is portable.\npackage m\n")
	ctx := context.Background()
	if got := crossProblems(ctx, root, "m"); len(got) != 0 {
		t.Fatalf("a portable module: %q\n%s", got, errOut.String())
	}

	write("m_test.go", "package m\n\nimport (\n\t\"syscall\"\n\t\"testing\"\n)\n\nfunc TestFIFO(t *testing.T) { _ = syscall.Mkfifo }\n")
	var want []string
	for _, tags := range lintTags {
		want = append(want, "go "+strings.Join(withTags([]string{"vet"}, tags), " ")+" failed in m for windows")
	}
	if got := crossProblems(ctx, root, "m"); !slices.Equal(got, want) {
		t.Errorf("a Unix-only test file: %q, want %q\n%s", got, want, errOut.String())
	}
}
