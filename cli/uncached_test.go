package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// uncachedInputs are what a gate can read that no snapshot of the work
// tree holds, each with a shell test that fails on it and how a script
// breaks it; named is true when a check's command names it as a file
// outside the work tree (absolute, or relative to the project), which a
// check's cache key holds by its bytes and mode (the file made or removed
// too), and the record of a full pass with it; one no key can hold (a
// directory) leaves the check uncached, and the record says so;
// unresolved is true when the command names a path the scan cannot
// resolve (a command's output), which leaves a check keyed by its entry
// point uncached.
var uncachedInputs = []struct {
	name, failsOn, breakIt string
	named, unresolved      bool
}{
	{"ignored file", `grep -q BAD "$(git rev-parse --show-toplevel)/.env"`, "cp bad.txt .env", false, true},
	{"file outside the work tree", `grep -q BAD "$WORK/outside.txt"`, "cp bad.txt $WORK/outside.txt", true, false},
	{"relative file outside the work tree", `grep -q BAD ../outside.txt`, "cp bad.txt $WORK/outside.txt", true, false},
	{"file outside the work tree made", `test -e "$WORK/made.txt"`, "cp bad.txt $WORK/made.txt", true, false},
	{"file outside the work tree removed", `test ! -e ../outside.txt`, "rm $WORK/outside.txt", true, false},
	{"directory outside the work tree", `ls "$WORK/shared" | grep -q BAD`, "cp bad.txt $WORK/shared/BAD", true, false},
	{"git tag", `git tag | grep -q BAD`, "exec git tag BAD", false, false},
}

// The interval never says nothing changed where the cache would run a
// gate again. A gate marked cache: false reads what no snapshot holds, so
// after a full pass an interval approve never says "Nothing changed"
// while such a gate is configured, and names it as not run again; a file
// outside the work tree that a check's command names is in the check's
// key and in the pass's record, so an interval approve after it changed
// (edited, made, removed) names it as not verified. Differential, for
// every gate kind (check, review) and every input no snapshot holds: the
// interval's answer after the input broke, then the answer of a stop that
// runs (interval 0): the cache: false gate runs and blocks, and so does a
// check with cache: true whose key holds the input; any other gate with
// cache: true is the cached pass, and then the interval says nothing
// changed (the cache's documented limit: such a gate must say cache:
// false).
func TestIntervalNeverHidesUncachedGates(t *testing.T) {
	dir := t.TempDir()
	for _, in := range uncachedInputs {
		for _, kind := range []string{"check", "review"} {
			for _, cache := range []string{"false", "true", "entry_point"} {
				if kind == "review" && cache == "entry_point" {
					continue
				}
				name := fmt.Sprintf("%s %s cache %s", in.name, kind, cache)
				never := cache == "false" || cache == "entry_point" && in.unresolved
				keyed := !never && in.named && kind == "check"
				writeScript(t, dir, name, uncachedScript(in.failsOn, in.breakIt, kind, cache, never, keyed))
			}
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// uncachedScript is one case of TestIntervalNeverHidesUncachedGates: a
// gate of kind (check or review) whose verdict fails when failsOn holds,
// with the cache setting cache, broken by breakIt after a full pass;
// never says the cache never keeps the gate (cache: false, or a command
// keyed by its entry point that names what the scan cannot resolve);
// keyed says the gate's cache key holds what breakIt changes.
func uncachedScript(failsOn, breakIt, kind, cache string, never, keyed bool) string {
	job := "check:.:gate"
	gateFiles := "-- repo/.gauntlet/checks/gate.yml --\ncommand: \"! " + strings.ReplaceAll(failsOn, `"`, `\"`) + "\"\ncache: " + cache + "\n"
	lists, setup := "    checks: [gate]\n", ""
	if kind == "review" {
		job = "review:.:gate"
		gateFiles = "-- repo/.gauntlet/reviews/gate.md --\n---\ncache: " + cache + "\n---\nReview.\n" +
			"-- bin/claude --\n#!/bin/sh\ncat >/dev/null\nif " + failsOn + "; then\n" +
			`  echo '{"status":"fail","violations":[{"file":"app.txt","line":1,"issue":"BAD","fix":"remove it","priority":"high"}]}'` +
			"\nelse\n  echo '{\"status\":\"pass\",\"message\":\"No problems found\"}'\nfi\n"
		lists, setup = "    reviews: [gate]\n", "chmod 755 bin/claude\n"
	}
	interval := "'systemMessage~Not verified: since the last full pass at [0-9TZ:-]+, 1 gate\\(s\\) the cache never keeps \\(" +
		strings.ReplaceAll(job, ".", `\.`) + "\\), which read what no snapshot holds, did not run again' 'systemMessage!~Nothing changed'"
	after := "hookjson decision=block status=failed"
	switch {
	case never:
	case keyed:
		interval = "'systemMessage~Not verified: since the last full pass at [0-9TZ:-]+, 1 file\\(s\\) outside the work tree that a check names, changed or not held \\(/.*/(outside\\.txt|made\\.txt|shared)\\)' 'systemMessage!~Nothing changed'"
	default:
		interval = "'systemMessage~Nothing changed since the last full pass'"
		after = "hookjson decision=approve status=passed 'systemMessage~cached'"
	}
	return `env GAUNTLET_STOP_HOOK_ACTIVE=
env GAUNTLET_STOP_HOOK_INTERVAL_MINUTES=10
` + setup + `cp repo/ok.txt outside.txt
mkdir shared
cd repo
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec agent-gauntlet trust --yes
exec git checkout -q -b feature
cp ok.txt app.txt
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=approve status=passed

# the input breaks: the interval's approve
` + breakIt + `
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=approve status=interval_not_elapsed ` + interval + `

# a stop that runs the gates
env GAUNTLET_STOP_HOOK_INTERVAL_MINUTES=0
stdin stop.json
exec agent-gauntlet stop-hook
` + after + `

-- repo/stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- repo/.gitignore --
gauntlet_logs/
.env
-- repo/.env --
MODE=ok
-- repo/app.txt --
base
-- repo/ok.txt --
ok
-- repo/bad.txt --
BAD
-- repo/.gauntlet/config.yml --
base_branch: main
max_retries: 9
cli:
  default_preference: [claude]
entry_points:
  - path: "."
` + lists + gateFiles
}
