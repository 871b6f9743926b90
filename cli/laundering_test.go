package cli

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// launder is a history shape that brings a commit the agent made on the
// local base branch, past the base's last point seen to pass, into HEAD:
// one row of TestLaunderedBaseCommitsAreJudgedOrNamed.
type launder struct {
	// name names it; shape are the testscript lines, run on the branch
	// work after its own commit passed, that commit the broken file
	// (bad.txt copied into src) and bring it into HEAD.
	name, shape string
	// gains is the line of shape after which main holds the commit, ""
	// for the commit itself.
	gains string
}

// launderings are the shapes: a commit on the base then a merge into the
// branch (plain, --no-ff, octopus, through a side branch that merged the
// base, through a side branch merged into the base), a rebase, a
// cherry-pick, a fast-forward and a reset of the branch onto the base, a
// new branch made from the base.
var launderings = []launder{
	{name: "merge", shape: onMain + "exec git merge -q --no-edit main\n"},
	{name: "no-ff merge", shape: onMain + "exec git merge -q --no-ff --no-edit main\n"},
	{name: "octopus merge", shape: "exec git branch side main\n" + onMain +
		"exec git checkout -q side\ncp other/o.txt src/side.txt\nexec git add src\nexec git commit -q -m side\nexec git checkout -q work\n" +
		"exec git merge -q --no-edit main side\n"},
	{name: "rebase", shape: onMain + "exec git rebase -q main\n"},
	{name: "cherry-pick", shape: onMain + "exec git cherry-pick main\n"},
	{name: "fast-forward", shape: "exec git checkout -q main\nexec git merge -q --ff-only work\ncp bad.txt src/x.txt\nexec git add src\nexec git commit -q -m x\nexec git checkout -q work\nexec git merge -q --ff-only main\n"},
	{name: "reset onto base", shape: onMain + "exec git reset -q --hard main\n"},
	{name: "side branch that merged the base", shape: onMain +
		"exec git checkout -q -b side work\nexec git merge -q --no-edit main\nexec git checkout -q work\nexec git merge -q --no-edit side\n"},
	{name: "side branch merged into the base", shape: "exec git checkout -q -b side main\ncp bad.txt src/x.txt\nexec git add src\nexec git commit -q -m x\n" +
		"exec git checkout -q main\nexec git merge -q --no-ff --no-edit side\nexec git checkout -q work\nexec git merge -q --no-edit main\n",
		gains: "exec git merge -q --no-ff --no-edit side\n"},
	{name: "merge then detach", shape: onMain + "exec git merge -q --no-edit main\nexec git checkout -q --detach\n"},
	{name: "detach at the base", shape: onMain + "exec git checkout -q --detach main\n"},
	{name: "new branch from the base", shape: onMain + "exec git checkout -q -b work2 main\ncp other/o.txt src/w2.txt\nexec git add src\nexec git commit -q -m w2\n"},
}

// onMain commits the broken file on the local base branch main and goes
// back to the branch work.
const onMain = "exec git checkout -q main\ncp bad.txt src/x.txt\nexec git add src\nexec git commit -q -m x\nexec git checkout -q work\n"

// Every commit HEAD holds is judged by the stop's change set, was judged
// passing at a recorded point, or is the base's as someone other than the
// agent put it there (its remote-tracking copy, a commit the base held
// when the gates were trusted or that a stop judged on the base): a commit
// the local base branch gained past its last point seen to pass, which no
// stop judged, is the agent's work. For every history shape that brings
// such a commit, holding a broken file, into HEAD, the stop on the branch
// blocks, or approves saying "Not verified" and naming the commits; so it
// does when the agent also moved the base's remote-tracking copy onto it
// any way but a fetch (forgedCopies). The controls: the same shapes with
// a harmless commit that a stop judged on the base, or that the base's
// remote-tracking copy holds (fetched), pass and tell nothing.
func TestLaunderedBaseCommitsAreJudgedOrNamed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, script string) { writeScript(t, dir, name, script) }
	for _, l := range launderings {
		write(l.name, "# "+l.name+" launders a broken commit of the base\n"+launderSetup+
			"\n# the broken commit on the base, brought into HEAD\n"+l.shape+
			"stdin stop.json\nexec agent-gauntlet stop-hook\nblockedortold 'commit'\n"+launderFiles)
		harmless := strings.ReplaceAll(l.shape, "cp bad.txt", "cp other/o.txt")
		gains := l.gains
		if gains == "" {
			gains = "exec git commit -q -m x\n"
		}
		judged := strings.Replace(harmless, gains, gains+"exec git checkout -q main\nstdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=approve\n", 1)
		write(l.name+" judged on the base", "# "+l.name+" of a harmless commit a stop judged on the base\n"+launderSetup+"\n"+judged+
			"stdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=approve 'systemMessage!~Not verified'\n"+launderFiles)
		if l.gains == "" {
			// The person's own commit on the remote, fetched and taken
			// onto main (a merge made here, as the side branch's, is the
			// agent's: it has no such control).
			fetched := strings.Replace(harmless, harmlessCommit, personCommit("other/o.txt"), 1)
			write(l.name+" fetched", "# "+l.name+" of a harmless commit the person made on the remote, fetched\n"+launderSetup+"\n"+fetched+
				"stdin stop.json\nexec agent-gauntlet stop-hook\nhookjson decision=approve 'systemMessage!~Not verified'\n"+launderFiles)
		}
		broken := l.gains
		if broken == "" {
			broken = "exec git commit -q -m x\n"
		}
		for _, f := range forgedCopies {
			forged := strings.Replace(l.shape, broken, broken+f.lines, 1)
			write(l.name+" "+f.name, "# "+l.name+" of a broken commit, the base's remote-tracking copy moved onto it by "+f.name+"\n"+
				launderSetup+"\n"+forged+"stdin stop.json\nexec agent-gauntlet stop-hook\nblockedortold 'commit'\n"+launderFiles)
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// harmlessCommit is the harmless control's commit on the base.
const harmlessCommit = "cp other/o.txt src/x.txt\nexec git add src\nexec git commit -q -m x\n"

// personCommit makes, in place of the commit on main, the person's commit
// of file as src/x.txt in a clone of their own, pushed to the remote,
// fetched here, and main taken to it: a commit git fetched and this
// repository never made, the base's own. What main held before is
// published first (the agent's judged commit, or nothing new).
func personCommit(file string) string {
	return "exec git push -q $WORK/person.git HEAD:main\n" +
		"exec git clone -q $WORK/person.git $WORK/pc\n" +
		"cp " + file + " $WORK/pc/src/x.txt\n" +
		"exec git -C $WORK/pc add src\n" +
		"exec git -C $WORK/pc commit -q -m x\n" +
		"exec git -C $WORK/pc push -q origin main\n" +
		"exec git fetch -q origin\n" +
		"exec git reset -q --hard origin/main\n"
}

// forgedCopies are the ways the agent can move the base's remote-tracking
// copy (refs/remotes/origin/main) onto the local base: without a fetch
// (update-ref with and without a reflog message, a push to the person's
// remote, a push to a remote of the agent's own put in its place), or
// with one after publishing its commit to the person's remote (by URL,
// through another remote named for it, by a push of origin that a person's
// commit and a fetch then moved past). None of them makes a commit it holds
// someone else's: a commit this repository made is the agent's whatever
// ref holds it (git.Fetched, git.MadeHere). A commit made in a second clone
// and pushed from there is the person's as far as this repository can
// tell: the "fetched" controls are that very history, and docs/baselines.md
// names it as the limit.
var forgedCopies = []struct{ name, lines string }{
	{"update-ref", "exec git update-ref refs/remotes/origin/main main\n"},
	{"update-ref -m", "exec git update-ref -m moved refs/remotes/origin/main main\n"},
	{"a push", "exec git push -q origin main\n"},
	{"a push to a remote of its own", "exec git init -q --bare $WORK/mine.git\nexec git remote set-url origin $WORK/mine.git\nexec git push -q origin main\n"},
	{"a push by URL then a fetch", "exec git push -q $WORK/person.git main\nexec git fetch -q origin\n"},
	{"a push through another remote then a fetch", "exec git remote add pub $WORK/person.git\nexec git push -q pub main\nexec git fetch -q origin\n"},
	{"a push then the person's commit fetched", "exec git push -q origin main\n" +
		"exec git clone -q $WORK/person.git $WORK/pc\ncp other/o.txt $WORK/pc/src/p.txt\nexec git -C $WORK/pc add src\n" +
		"exec git -C $WORK/pc commit -q -m p\nexec git -C $WORK/pc push -q origin main\nexec git fetch -q origin\n"},
}

// launderSetup makes the project: a person's remote origin, fetched, a
// check on src that fails on a marker in a changed file, a stop on main
// that records main's point, and the
// branch work with a commit of its own whose stop passes.
const launderSetup = `env GAUNTLET_STOP_HOOK_ACTIVE=
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec git init -q --bare $WORK/person.git
exec git remote add origin $WORK/person.git
exec git push -q $WORK/person.git main
exec git fetch -q origin
exec agent-gauntlet trust --yes
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=approve
exec git checkout -q -b work
cp other/o.txt src/own.txt
exec git add src
exec git commit -q -m own
stdin stop.json
exec agent-gauntlet stop-hook
hookjson decision=approve status=passed 'systemMessage!~Not verified'
`

// launderFiles are the scripts' files.
const launderFiles = `
-- stop.json --
{"hook_event_name":"Stop","session_id":"s1","stop_hook_active":false}
-- .gitignore --
gauntlet_logs/
-- src/a.txt --
fine
-- other/o.txt --
other
-- bad.txt --
BADMARK
-- .gauntlet/checks/marker.yml --
command: "! grep -l BADMARK ${CHANGED_FILES}"
-- .gauntlet/config.yml --
base_branch: main
max_retries: 9
cli:
  default_preference: [claude]
entry_points:
  - path: src
    checks: [marker]
stop_hook:
  run_interval_minutes: 0
`
