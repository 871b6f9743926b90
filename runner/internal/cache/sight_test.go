package cache

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// sightFiles are the files of the repository the table of
// TestEntryPointKeySeesWhatTheGateSees starts from: the entry point src,
// a sibling directory conf, a file at the root, a directory outside the
// repository (OUT/).
var sightFiles = map[string]string{
	"src/main.txt": "main\n", "conf/c.txt": "c\n", "conf/d/e.txt": "e\n", "r.txt": "r\n", "other/o.txt": "o\n",
	".gitignore": "gauntlet_logs/\n", "OUT/x.txt": "x\n", "OUT/y.txt": "y\n",
}

// TestEntryPointKeySeesWhatTheGateSees holds the key of a gate to the
// invariant of the result cache, for every `cache:` mode: the key covers
// the bytes and modes on disk of everything the gate can see through its
// scope, what the links inside it lead to included (files, directories,
// chains of links, links through links outside the repository, dangling
// links), so a change to anything it can see changes the key; and a
// change to nothing it can see keeps it (the cache is hit). Each row sets
// the repository up, computes the key of a check with entry point src,
// edits, and computes it again. Rows marked limit are what the key does
// not cover by design; docs/cache.md names each and how to mark such a
// gate.
func TestEntryPointKeySeesWhatTheGateSees(t *testing.T) {
	type row struct {
		name string
		// command and wd are the check's (wd "" is the entry point).
		command, wd string
		// setup and edit are steps (see sightStep).
		setup, edit []string
		// sees is whether the gate sees the edit: the key must change
		// exactly then, under modes (default: tree and entry_point).
		sees  bool
		modes []config.CacheScope
		limit bool
	}
	rows := []row{
		{name: "link in the entry point to a sibling file, the file edited",
			setup: []string{"link src/cfg.txt ../conf/c.txt"}, edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "the link's target made executable",
			setup: []string{"link src/cfg.txt ../conf/c.txt"}, edit: []string{"chmod conf/c.txt"}, sees: true},
		{name: "link to a sibling directory, a file in it edited",
			setup: []string{"link src/conf ../conf"}, edit: []string{"write conf/d/e.txt BAD"}, sees: true},
		{name: "link to a sibling directory, a file added to it",
			setup: []string{"link src/conf ../conf"}, edit: []string{"write conf/new.txt BAD"}, sees: true},
		{name: "chain: a link to a link outside the entry point, the file edited",
			setup: []string{"link src/cfg.txt ../conf/l.txt", "link conf/l.txt ../r.txt"}, edit: []string{"write r.txt BAD"}, sees: true},
		{name: "chain: the middle link led elsewhere",
			setup: []string{"link src/cfg.txt ../conf/l.txt", "link conf/l.txt ../r.txt"}, edit: []string{"link conf/l.txt ../other/o.txt"}, sees: true},
		{name: "chain through a linked directory: a link inside it led elsewhere",
			setup: []string{"link src/conf ../conf", "link conf/l.txt ../r.txt"}, edit: []string{"link conf/l.txt ../other/o.txt"}, sees: true},
		{name: "link out of the repository, the file edited",
			setup: []string{"link src/x.txt OUT/x.txt"}, edit: []string{"write OUT/x.txt BAD"}, sees: true},
		{name: "link to a link out of the repository, that one led elsewhere",
			setup: []string{"link src/x.txt OUT/hop", "link OUT/hop x.txt"}, edit: []string{"link OUT/hop y.txt"}, sees: true},
		{name: "link out of the repository and back in, led to another file",
			setup: []string{"link src/x.txt OUT/hop", "link OUT/hop ../repo/r.txt"}, edit: []string{"link OUT/hop ../repo/other/o.txt"}, sees: true},
		{name: "link out of the repository and back in, the file edited",
			setup: []string{"link src/x.txt OUT/hop", "link OUT/hop ../repo/r.txt"}, edit: []string{"write r.txt BAD"}, sees: true},
		{name: "dangling link, its target made",
			setup: []string{"link src/cfg.txt ../conf/none.txt"}, edit: []string{"write conf/none.txt BAD"}, sees: true},
		{name: "working directory outside the entry point, a file in it edited",
			wd: "conf", command: "grep -r BAD .", edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a path the command names through a linked directory",
			command: "cat ../lnk/c.txt", setup: []string{"link lnk conf"}, edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a path named in a script given to sh -c",
			command: "sh -c 'cat ../conf/c.txt'", edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a path the command names through ..",
			command: "cat ../conf/c.txt", edit: []string{"write conf/c.txt BAD"}, sees: true},
		// A glob word names every path it matches now and any it may
		// match later: a match edited, added or removed moves the key.
		{name: "a glob word naming files outside the entry point, a match edited",
			command: "! grep BAD ../conf/*.txt", edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a glob word, a new match made",
			command: "! grep BAD ../conf/*.txt", edit: []string{"write conf/new.txt BAD"}, sees: true},
		{name: "a glob word, a match removed",
			command: "! grep BAD ../conf/*.txt", edit: []string{"remove conf/c.txt"}, sees: true},
		{name: "a glob word as an option's value",
			command: "lint --files=../conf/*.txt", edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a glob in a directory segment",
			command: "cat ../con?/c.txt", edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a bracket class",
			command: "cat ../conf/[cd].txt", edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a brace word",
			command: "cat ../conf/{c,d/e}.txt", edit: []string{"write conf/d/e.txt BAD"}, sees: true},
		{name: "a brace word leading up",
			command: "cat {../conf,x}/c.txt", edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a glob word with .. past the wildcard",
			command: "cat ../other/*/../../conf/c.txt", edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a glob word, a match through a link",
			command: "cat ../lnk/*.txt", setup: []string{"link lnk conf"}, edit: []string{"write conf/c.txt BAD"}, sees: true},
		{name: "a glob word, a file beside its matches edited (below its fixed directory: keyed too)",
			command: "! grep BAD ../conf/*.txt", edit: []string{"write conf/d/e.txt BAD"}, sees: true},
		{name: ".gitignore outside the entry point, un-ignoring a file in it (its bytes join the key)",
			setup: []string{"write .gitignore *.tmp", "write src/new.tmp BAD"}, edit: []string{"write .gitignore gauntlet_logs/"}, sees: true},
		// What the gate does not see keeps the key.
		{name: "a file outside the entry point no link leads to",
			setup: []string{"link src/cfg.txt ../conf/c.txt"}, edit: []string{"write other/o.txt BAD"}, modes: []config.CacheScope{config.CacheEntryPoint}},
		{name: "the target out of the repository of a link outside the entry point",
			setup: []string{"link other/x.txt OUT/x.txt"}, edit: []string{"write OUT/x.txt BAD"}, modes: []config.CacheScope{config.CacheEntryPoint}},
		{name: ".gitignore outside the entry point changed (the bytes the gate reads stay)",
			edit: []string{"write .gitignore gauntlet_logs/ *.tmp"}, modes: []config.CacheScope{config.CacheEntryPoint}},
		{name: "a glob word: a file outside its fixed directory edited",
			command: "! grep BAD ../conf/*.txt", edit: []string{"write other/o.txt BAD"}, modes: []config.CacheScope{config.CacheEntryPoint}},
		{name: ".gitattributes outside the entry point (the bytes on disk stay)",
			edit: []string{"write .gitattributes * text=auto"}, modes: []config.CacheScope{config.CacheEntryPoint}},
		// Limits, documented in docs/cache.md ("cache: entry_point").
		{name: "an ignored file in the entry point edited", limit: true, sees: true,
			setup: []string{"write .gitignore *.log", "write src/run.log ok"}, edit: []string{"write src/run.log BAD"}},
		{name: "a path the command reads without naming it", limit: true, sees: true,
			command: "cat ../conf/list.txt | xargs cat", setup: []string{"write conf/list.txt ../conf/c.txt"},
			edit: []string{"write conf/c.txt BAD"}, modes: []config.CacheScope{config.CacheEntryPoint}},
	}
	for _, r := range rows {
		modes := r.modes
		if modes == nil {
			modes = []config.CacheScope{config.CacheTree, config.CacheEntryPoint}
		}
		for _, mode := range modes {
			t.Run(string(mode)+"/"+r.name, func(t *testing.T) {
				root, out := sightRepo(t)
				for _, s := range r.setup {
					sightStep(t, root, out, s)
				}
				command := r.command
				if command == "" {
					command = "grep -r BAD ."
				}
				wd := r.wd
				if wd == "" {
					wd = "src"
				}
				job := gate.Job{ID: "check:src:nobad", Kind: gate.KindCheck, Name: "nobad", EntryPoint: "src", WorkingDir: wd,
					Check: &config.Check{Name: "nobad", File: ".gauntlet/checks/nobad.yml", Command: command, Cache: mode,
						RunLocally: true, Timeout: time.Minute}}
				before := sightKey(t, root, job)
				for _, s := range r.edit {
					sightStep(t, root, out, s)
				}
				after := sightKey(t, root, job)
				want := r.sees && !r.limit
				if moved := before != after; moved != want {
					t.Errorf("the key moved: %v, want %v (the gate sees the edit: %v; a documented limit: %v)", moved, want, r.sees, r.limit)
				}
			})
		}
	}
}

// sightRepo makes the repository of the table (sightFiles committed on
// main, then a feature branch) in repo/ beside OUT/.
func sightRepo(t *testing.T) (root, out string) {
	t.Helper()
	base := repo(t)
	dir := filepath.Dir(base)
	root, out = filepath.Join(dir, "repo"), filepath.Join(dir, "OUT")
	if err := os.Rename(base, root); err != nil {
		t.Fatal(err)
	}
	for p, c := range sightFiles {
		sightStep(t, root, out, "write "+p+" "+strings.TrimSuffix(c, "\n"))
	}
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-q", "-m", "files")
	gitIn(t, root, "checkout", "-q", "-b", "feature")
	return root, out
}

// sightStep applies a step: `write PATH TEXT...`, `chmod PATH` (+x),
// `remove PATH` or `link PATH TARGET`; an OUT/ path is in the directory beside the
// repository.
func sightStep(t *testing.T, root, out, step string) {
	t.Helper()
	f := strings.Fields(step)
	p := filepath.Join(root, filepath.FromSlash(f[1]))
	if rest, ok := strings.CutPrefix(f[1], "OUT/"); ok {
		p = filepath.Join(out, rest)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	switch f[0] {
	case "write":
		_ = os.Remove(p)
		err = os.WriteFile(p, []byte(strings.Join(f[2:], " ")+"\n"), 0o644)
	case "chmod":
		err = os.Chmod(p, 0o755)
	case "remove":
		err = os.Remove(p)
	case "link":
		target := f[2]
		if rest, ok := strings.CutPrefix(target, "OUT/"); ok {
			target = filepath.Join(out, rest)
		}
		_ = os.Remove(p)
		err = os.Symlink(target, p)
	default:
		t.Fatalf("unknown step %q", step)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// sightKey is the key of job on the work tree at root as a run computes
// it: the snapshot's KeyTree and LinkEnds.
func sightKey(t *testing.T, root string, job gate.Job) string {
	t.Helper()
	ctx := context.Background()
	ts, err := git.NewTreeSnapshot(ctx, root, "gauntlet_logs")
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	if ts.KeyTree == "" {
		t.Fatalf("no key tree: %s", ts.Uncertain)
	}
	c := &Results{root: root, run: baseRun()}
	keys, err := c.keysOn(ctx, ts.KeyTree, ts.EmptyDirs(), ts.LinkEnds(), []gate.Job{job}, nil)
	if err != nil || keys[job.ID] == "" {
		t.Fatalf("no key: %v", err)
	}
	return keys[job.ID]
}

// SightOf follows links from the paths read, below them and on the way to
// them, to what they lead to and the links there, and no further.
func TestSightOf(t *testing.T) {
	ends := []git.LinkEnd{
		{Link: "a/l", Tree: "b"},
		{Link: "a-x/l", Tree: "z"},
		{Link: "b/m", Tree: "c/f"},
		{Link: "c/g", ID: "missing"},
		{Link: "d", Tree: "e"},
		{Link: "e/n", ID: "file /out 644 00"},
		{Link: "q/r", Tree: "s"},
	}
	slices.SortFunc(ends, func(a, b git.LinkEnd) int { return strings.Compare(a.Link, b.Link) })
	at := func(link string) int {
		return slices.IndexFunc(ends, func(e git.LinkEnd) bool { return e.Link == link })
	}
	for _, c := range []struct {
		scope   []string
		reached []string
		ends    bool
	}{
		{[]string{"a"}, []string{"b", "c/f"}, true},
		{[]string{"c"}, nil, true},
		{[]string{"d/x"}, []string{"e"}, true},
		{[]string{"q/other"}, nil, false},
		{[]string{"a", "b"}, []string{"c/f"}, true},
		{[]string{""}, nil, true},
	} {
		got := SightOf(c.scope, ends)
		if !slices.Equal(got.Reached, c.reached) || (got.Ends != "") != c.ends {
			t.Errorf("SightOf(%q) = %q, %q; want %q, ends %v", c.scope, got.Reached, got.Ends, c.reached, c.ends)
		}
	}
	a, moved := SightOf([]string{"a"}, ends), slices.Clone(ends)
	moved[at("b/m")].Tree = "c/h"
	if SightOf([]string{"a"}, moved).Ends == a.Ends {
		t.Error("a link reached through another led elsewhere: the ends stayed")
	}
	moved = slices.Clone(ends)
	moved[at("q/r")].Tree = "t"
	if SightOf([]string{"a"}, moved).Ends != a.Ends {
		t.Error("a link the scope does not reach moved its ends")
	}
}
