package git

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
)

// templates are directories of repositories made once per test process,
// by key, which the tests that start from the same repositories copy
// rather than make again with a dozen git processes each; TestMain removes
// them.
var templates struct {
	sync.Mutex
	root string
	dirs map[string]string
}

// fromTemplate gives t the hermetic environment newRepo gives and returns
// a fresh directory of t holding a copy of what build made in an empty
// directory on the first call with key. A copy is written now (new files,
// times and inodes): it is the directory build would make, where build
// writes no absolute path of its own directory.
func fromTemplate(t *testing.T, key string, build func(dir string)) string {
	t.Helper()
	testenv.Setenv(t)
	src := template(t, key, build)
	dst := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// template returns the directory build made for key, making it on the
// first call.
func template(t *testing.T, key string, build func(dir string)) string {
	t.Helper()
	templates.Lock()
	defer templates.Unlock()
	if dir, ok := templates.dirs[key]; ok {
		return dir
	}
	if templates.root == "" {
		root, err := os.MkdirTemp("", "git-test-templates-")
		if err != nil {
			t.Fatal(err)
		}
		templates.root, templates.dirs = root, map[string]string{}
	}
	dir, err := os.MkdirTemp(templates.root, "t-")
	if err != nil {
		t.Fatal(err)
	}
	build(dir)
	templates.dirs[key] = dir
	return dir
}

// TestMain runs the tests and removes the templates.
func TestMain(m *testing.M) {
	code := m.Run()
	if templates.root != "" {
		_ = os.RemoveAll(templates.root)
	}
	os.Exit(code)
}
