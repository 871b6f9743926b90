package owned_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// writerCall matches a call that creates, writes, moves or removes a path
// (a temporary file or directory included).
var writerCall = regexp.MustCompile(`\bos\.(RemoveAll|Remove|MkdirAll|Mkdir|WriteFile|Rename|OpenFile|Create|CreateTemp|MkdirTemp)\(`)

// How the calls of a file are kept from following a link or taking a
// person's entry.
const (
	routed    = "routed: owned.MkdirAll / FileParent, store.MakeDir or procgroup's scratch (TestFaults)"
	noFollow  = "exclusive or O_NOFOLLOW create of a file it then owns, or removal of a file it created"
	fresh     = "a temporary directory or file it makes fresh (MkdirTemp/CreateTemp) and removes itself"
	testOnly  = "test helpers and stand-ins, never in the shipped binary's paths"
	atomic    = "a temporary file renamed over the target: a link there is replaced, never written through"
	rooted    = "the log directory itself (the root the gauntlet owns), then an O_NOFOLLOW open or an atomic write"
	readOnly  = "an O_RDONLY open: reads, never creates or writes"
	installed = "a fresh pending directory of its own, its logs created exclusively there, moved onto nothing or onto the gauntlet's own file (logdir.Vacant), never through a link, then removed"
	checked   = "os.Remove of a name (never followed) in a directory made or checked first without a link (owned.MkdirAll / CheckDir, the snapshot's storeDir)"
	open      = "NOT YET ROUTED: a directory between the owned one and the file may be followed"
)

// sites are the reviewed writers and removers of statecfg/, runner/ and
// cli/ (test files aside): per file, how many calls and why they are
// safe. A new call makes its file's count differ, and the test fails
// until the call goes through this package (or procgroup's scratch
// directory) and the table says so.
var sites = map[string]struct {
	n   int
	why string
}{
	"cli/cmd_reports.go":                                 {1, open},
	"cli/internal/ciwork/files.go":                       {4, open},
	"cli/internal/install/gitignore.go":                  {1, routed},
	"cli/internal/install/install.go":                    {1, routed},
	"cli/internal/install/plan.go":                       {1, routed},
	"cli/internal/modelstub/serve.go":                    {4, testOnly},
	"cli/internal/monorepo/monorepo.go":                  {5, testOnly},
	"cli/internal/scripttest/scripttest.go":              {2, testOnly},
	"cli/internal/stophook/layout.go":                    {4, fresh},
	"cli/internal/stophook/notice.go":                    {2, atomic},
	"cli/internal/testbin/testbin.go":                    {2, testOnly},
	"runner/headconfig.go":                               {2, fresh},
	"runner/internal/baseline/private.go":                {4, open},
	"runner/internal/baseline/worktree.go":               {4, fresh},
	"runner/internal/cache/outside.go":                   {1, readOnly},
	"runner/internal/check/exec.go":                      {4, routed},
	"runner/internal/console/console.go":                 {3, installed},
	"runner/internal/debuglog/debuglog.go":               {1, rooted},
	"runner/internal/git/checkout.go":                    {2, fresh},
	"runner/internal/git/emptymemo.go":                   {1, checked},
	"runner/internal/git/extract.go":                     {2, fresh},
	"runner/internal/git/keephold.go":                    {2, noFollow},
	"runner/internal/git/keptindex.go":                   {3, checked},
	"runner/internal/git/literal.go":                     {2, checked},
	"runner/internal/git/nested.go":                      {2, fresh},
	"runner/internal/git/reach.go":                       {1, readOnly},
	"runner/internal/git/reviewdiff.go":                  {7, fresh},
	"runner/internal/git/snapshot.go":                    {4, fresh},
	"runner/internal/git/worktree.go":                    {3, fresh},
	"runner/internal/run/pending.go":                     {1, fresh},
	"runner/internal/review/adapter/invoke.go":           {2, fresh},
	"runner/internal/review/internal/standin/standin.go": {2, testOnly},
	"runner/internal/run/prepare.go":                     {1, routed},
	"runner/trial.go":                                    {2, fresh},
	"statecfg/kit/atomicfile/atomicfile.go":              {4, atomic},
	"statecfg/kit/fsread/fsread.go":                      {1, noFollow},
	"statecfg/kit/fsread/os_unix.go":                     {1, noFollow},
	"statecfg/kit/gitindex/gitindex.go":                  {4, noFollow},
	"statecfg/kit/procgroup/registry.go":                 {7, routed},
	"statecfg/ledger/ledger.go":                          {3, checked},
	"statecfg/lock/lock.go":                              {7, noFollow},
	"statecfg/lock/os_unix.go":                           {1, noFollow},
	"statecfg/lock/os_windows.go":                        {1, noFollow},
	"statecfg/lock/probe.go":                             {1, noFollow},
	"statecfg/logdir/pending.go":                         {5, installed},
	"statecfg/logdir/os_unix.go":                         {1, noFollow},
	"statecfg/logdir/os_windows.go":                      {1, noFollow},
	"statecfg/state/state.go":                            {2, rooted},
	"statecfg/store/store.go":                            {2, routed},
	"statecfg/testenv/testenv.go":                        {2, testOnly},
	"statecfg/verdicts/store.go":                         {1, routed},
}

// TestWriterSites enumerates, from the code, every call that writes or
// removes a path in the three modules and checks it against sites, so
// that a writer added without this package's checks fails here. The
// files marked open are the ones still to route.
func TestWriterSites(t *testing.T) {
	top := repoRoot(t)
	got := map[string]int{}
	for _, mod := range []string{"statecfg", "runner", "cli"} {
		err := filepath.WalkDir(filepath.Join(top, mod), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if n := len(writerCall.FindAll(data, -1)); n > 0 {
				rel, _ := filepath.Rel(top, p)
				got[filepath.ToSlash(rel)] = n
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for name := range got {
		names = append(names, name)
	}
	for name := range sites {
		if _, ok := got[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if want := sites[name]; got[name] != want.n {
			t.Errorf("%s: %d call(s) that write or remove a path, %d reviewed (%s): route the new one through statecfg/kit/owned (or procgroup's scratch directory) and update sites", name, got[name], want.n, want.why)
		}
	}
}

// repoRoot is the directory holding go.work above this package.
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
			t.Skip("no go.work above the package: the writer sites are checked in the repository only")
		}
		dir = parent
	}
}
