package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestPlantedStoreLinks is the fault table of the gauntlet's store in the
// git directory (.git/agent-gauntlet). Invariant: no write, create,
// rename or remove by the gauntlet follows a symbolic link it did not
// make, anywhere under its store in the git directory or its log
// directory; a planted link is refused (the stop fails open, saying so)
// or replaced, never written through, and nothing outside the project
// and its records is touched.
//
// The table is generated: a first script runs every command that writes
// there (the stop hook failing and passing, run, a review, the result
// cache, a base-branch baseline, clean, cache clear, status) and lists the
// store; then, for every directory it holds and one file of each kind of
// name in each directory, a script plants, in its place, a link to a
// person's directory (or to a file in it) outside the project, runs the
// same commands, and checks that the person's directory holds exactly
// what it held, byte for byte.
func TestPlantedStoreLinks(t *testing.T) {
	listing := filepath.Join(t.TempDir(), "listing")
	dir := t.TempDir()
	writeScript(t, dir, "enumerate", "env LISTING="+listing+"\n"+storeSetup+storeCommands+
		"exec sh -c 'cd .git/agent-gauntlet && find . -mindepth 1 \\( -type d -printf \"d %P\\n\" \\) -o \\( -type f -printf \"f %P\\n\" \\) | sort > \"$LISTING\"'\n"+
		storeFiles)
	// testscript runs its scripts in parallel: the group waits for them.
	t.Run("list", func(t *testing.T) { testscript.Run(t, ScriptParams(dir)) })
	if t.Failed() {
		return
	}
	data, err := os.ReadFile(listing)
	if err != nil {
		t.Fatal(err)
	}
	entries := storeEntries(string(data))
	for _, want := range []string{"d literal", "d changes", "f changes/#.json", "f literal/HEAD"} {
		if !entries[want] {
			t.Fatalf("the store listing lacks %q: the commands no longer make it\n%s", want, data)
		}
	}
	plants := t.TempDir()
	writeScript(t, plants, "plant_store", plantScript("d", "", false))
	// Names the code gives that the commands above need not make (a
	// memo kept only once the files it watches are old enough, a store a
	// skip or an ancestry check makes): planted before they exist, whether
	// or not the listing run made them.
	sometimes := []string{"f tracked-memo.json", "f ignore-listing.json", "f refs.json", "d ancestry", "d decisions", "d nested"}
	for e := range entries {
		if slices.Contains(sometimes, e) {
			continue
		}
		kind, shape, _ := strings.Cut(e, " ")
		writeScript(t, plants, "plant_"+scriptName(shape), plantScript(kind, shape, true))
	}
	for _, e := range sometimes {
		kind, shape, _ := strings.Cut(e, " ")
		writeScript(t, plants, "plant_"+scriptName(shape), plantScript(kind, shape, false))
	}
	t.Run("plant", func(t *testing.T) { testscript.Run(t, ScriptParams(plants)) })
	hangs := t.TempDir()
	for e := range entries {
		kind, shape, _ := strings.Cut(e, " ")
		if kind != "f" {
			continue // a directory is made, never read: planted ones are refused above
		}
		for _, what := range []string{"fifo", "zero", "held"} {
			if what == "held" && (!strings.HasSuffix(shape, ".lock") || runtime.GOOS == "windows") {
				continue // a lock file is what is locked
			}
			writeScript(t, hangs, what+"_"+scriptName(shape), hangScript(what, shape))
		}
	}
	if runtime.GOOS != "windows" {
		// The log directory itself, which a run locks to take over a
		// stale run lock.
		writeScript(t, hangs, "held_log_directory", strings.Replace(hangScript("held", "x.lock"),
			"holdlock .git/agent-gauntlet '^x\\.lock$'", "holdlock gauntlet_logs '^\\.$'", 1))
	}
	t.Run("hang", func(t *testing.T) { testscript.Run(t, ScriptParams(hangs)) })
}

// hangScript is the script that replaces the store's entries of shape with
// what the agent can put there that a read never ends on: a FIFO (what),
// or a link to /dev/zero; or, for a lock file, holds its lock for good
// ("held", adversarial round 19, B18: the stop waited as long as it was
// held). Invariant: whatever is at a record of the store, and whoever
// holds its lock, the stop hook and status answer within their deadline,
// in bounded memory; the stop with one JSON line.
func hangScript(what, shape string) string {
	store := ".git/agent-gauntlet"
	re := strings.ReplaceAll("^"+regexp.QuoteMeta(store+"/"+shape)+"$", "#", hashRE)
	put := "ln -s /dev/zero \"$p\""
	if what == "fifo" {
		put = "mkfifo \"$p\""
	}
	// A record this run did not make (a memo kept only once what it
	// watches is old enough, which a loaded machine may not reach) is
	// none to plant at: the listing run made it, and the plant table
	// plants it before it exists.
	plant := "for p in $(find " + store + " -mindepth 1 | grep -E \"" + re + "\"); do rm -rf \"$p\" && " + put + " || exit 1; done"
	if !strings.Contains(shape, "#") {
		// One name: put there whether or not this run made it yet (a
		// memo is kept only once what it watches is old enough).
		plant = "p=" + store + "/" + shape + "; rm -rf \"$p\" && " + put
	}
	// timeout(1) ends a hook that never answers; ulimit -v one that reads
	// without a bound.
	step := "exec sh -c '" + plant + "'\n"
	if what == "held" {
		step = "holdlock " + store + " '" + strings.ReplaceAll("^"+regexp.QuoteMeta(shape)+"$", "#", hashRE) + "'\n"
	}
	return storeSetup + storeCommands + "\n# " + what + " planted at " + store + "/" + shape + "\n" +
		step +
		"cp new.txt src/new2.txt\n" +
		"exec sh -c 'ulimit -v 4000000; timeout -s KILL 60 agent-gauntlet stop-hook --timeout 20 < stop.json; echo \"exit $?\"'\n" +
		"stdout '^\\{\"decision\":\"(approve|block)\"'\n" +
		"! stdout 'exit 137'\n" +
		"exec sh -c 'ulimit -v 4000000; timeout -s KILL 60 agent-gauntlet status >/dev/null 2>&1; echo \"exit $?\"'\n" +
		"! stdout 'exit 137'\n" +
		storeFiles
}

// scriptName is a script's name for the store entry of shape.
func scriptName(shape string) string {
	return strings.NewReplacer("/", "__", ".", "_", "%", "", "#", "hash").Replace(shape)
}

// hashLike is a run of hex digits long enough to be a hash or an id in a
// record's name; hashRE matches it in a shape.
var (
	hashLike = regexp.MustCompile(`[0-9a-f]{8,}`)
	hashRE   = "[0-9a-f]{8,}"
)

// storeEntries picks, from a listing of lines "d path" and "f path", one
// entry of each kind and shape of name, a hash-like part of a name taken
// as any such part (the shape holds "#" for it): "f index/#.seed".
func storeEntries(listing string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(listing), "\n") {
		kind, rel, ok := strings.Cut(l, " ")
		if !ok || rel == "" {
			continue
		}
		out[kind+" "+hashLike.ReplaceAllString(rel, "#")] = true
	}
	return out
}

// plantScript is the script that replaces the store's entries of shape
// ("" for the store itself; "#" for any hash-like part) with links to a
// person's directory (kind "d") or to a file in it (kind "f") and checks
// that the commands leave it alone. With exist, the commands run once
// before and at least one entry of the shape must be there to replace.
func plantScript(kind, shape string, exist bool) string {
	target := "$HOME/outside"
	if kind == "f" {
		target = "$HOME/outside/sentinel"
	}
	store := ".git/agent-gauntlet"
	at := filepath.ToSlash(filepath.Join(store, shape))
	plant := "rm -rf " + at + " && ln -s " + target + " " + at
	if exist {
		re := "^" + regexp.QuoteMeta(store+"/"+shape) + "$"
		re = strings.ReplaceAll(re, "#", hashRE)
		plant = "n=0; for p in $(find " + store + " -mindepth 1 | grep -E \"" + re + "\"); do rm -rf \"$p\" && ln -s " + target + " \"$p\" && n=$((n+1)); done; test $n -gt 0"
	}
	var b strings.Builder
	b.WriteString(storeSetup)
	if exist {
		b.WriteString(storeCommands)
	}
	b.WriteString("\n# a person's directory outside the project, and links to it planted at " + store + "/" + shape + "\n" +
		"exec sh -c 'mkdir -p $HOME/outside && echo precious > $HOME/outside/sentinel'\n" +
		"exec sh -c '" + plant + "'\n")
	b.WriteString(storeCommands)
	b.WriteString("\n# the person's directory holds what it held, byte for byte\n" +
		"exec ls -A $HOME/outside\n" +
		"cmp stdout outside.want\n" +
		"exec cat $HOME/outside/sentinel\n" +
		"cmp stdout sentinel.want\n")
	b.WriteString(storeFiles)
	return b.String()
}

// storeSetup is a project with a check (with a base-branch baseline) and
// a cached review whose stand-in reviewer fails the change, on a branch
// of main, with a first stop that blocks.
const storeSetup = `env GAUNTLET_STOP_HOOK_ACTIVE=
cp standin bin/claude
chmod 755 bin/claude
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec git checkout -q -b work
exec agent-gauntlet trust --yes
cp new.txt src/new.txt
stdin stop.json
exec agent-gauntlet stop-hook
`

// storeCommands are the commands run over the store: stops (failing, then
// passing, with the user's index changed between them), run, clean, cache
// clear and status; each may refuse, none may write through a link.
const storeCommands = `
# every command that writes to the store; a change of the user's index
# makes the snapshot merge its kept index again
exec git add src/new.txt
stdin stop.json
exec agent-gauntlet stop-hook
exec git reset -q
cp pass.json .standin/claude.answer
stdin stop.json
exec agent-gauntlet stop-hook
exec sh -c 'agent-gauntlet run >/dev/null 2>&1; true'
exec sh -c 'agent-gauntlet status >/dev/null 2>&1; true'
exec sh -c 'agent-gauntlet clean >/dev/null 2>&1; true'
exec sh -c 'agent-gauntlet cache clear >/dev/null 2>&1; true'
stdin stop.json
exec agent-gauntlet stop-hook
exec sh -c 'agent-gauntlet status >/dev/null 2>&1; true'
cp fail.json .standin/claude.answer
`

// storeFiles are the files of every script.
const storeFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- outside.want --
sentinel
-- sentinel.want --
precious
-- .gitignore --
/bin/
/home/
/.standin/
/outside.want
/sentinel.want
/stop.json
gauntlet_logs/
-- .gauntlet/config.yml --
base_branch: main
max_retries: 5
stop_hook:
  run_interval_minutes: 0
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [lint]
    reviews: [quality]
-- .gauntlet/checks/lint.yml --
command: "true"
baseline: true
-- .gauntlet/reviews/quality.md --
Review the change for bugs.
-- src/main.txt --
hello
-- new.txt --
a new line
-- .standin/claude.answer --
{"status":"fail","violations":[{"file":"src/new.txt","line":1,"issue":"bad line","fix":"remove it","priority":"high","status":"new"}]}
-- pass.json --
{"status":"pass","message":"No problems found"}
-- fail.json --
{"status":"fail","violations":[{"file":"src/new.txt","line":1,"issue":"bad line","fix":"remove it","priority":"high","status":"new"}]}
-- standin --
#!/bin/sh
# A stand-in review CLI: answers with .standin/<name>.answer.
name=$(basename "$0")
cat > /dev/null
cat "$WORK/.standin/$name.answer"
`
