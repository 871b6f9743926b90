package cli

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// A failure of a check with baseline: true, in a commit this repository
// made, is never pre-existing because the agent published the commit to
// the base's remote and fetched it back: the base's remote-tracking copy
// counts as someone else's merge of the work only when it holds, past
// HEAD or at it, a commit this repository did not make (git.MadeHere). For
// every route of publication (by URL, through another remote named for
// it) and every way the copy holds the work (at HEAD, or with a commit of
// the agent's own on top), at the first stop after the push and at the
// stop verifying an earlier block, the stop blocks. The control: a commit
// the person made in a clone of their own on top of the published work,
// fetched, is the base's, and the failure under it pre-existing.
func TestPublishedOwnWorkIsNotPreExisting(t *testing.T) {
	dir := t.TempDir()
	routes := map[string]string{
		"by URL":                 "exec git push -q $WORK/person.git tmp:main\nexec git fetch -q origin\n",
		"through another remote": "exec git remote add pub $WORK/person.git\nexec git push -q pub tmp:main\nexec git fetch -q origin\n",
	}
	tops := map[string]string{
		"at HEAD":              "",
		"an own commit on top": "cp ok.txt src/b.txt\nexec git add -A\nexec git commit -q -m top\n",
	}
	stops := map[string]string{
		"first stop after a pass": "cp ok.txt src/c.txt\nexec git add -A\nexec git commit -q -m fine\nstdin hook.json\nexec agent-gauntlet stop-hook\nhookjson decision=approve\n" +
			"cp bad.txt src/a.txt\nexec git commit -q -am bad\n",
		"stop after a block": "cp bad.txt src/a.txt\nexec git commit -q -am bad\nstdin hook.json\nexec agent-gauntlet stop-hook\nhookjson decision=block\n",
	}
	takeMain := "exec git checkout -q main\nexec git merge -q --ff-only origin/main\nexec git checkout -q feature\nexec git branch -q -D tmp\n"
	for sn, stop := range stops {
		for rn, route := range routes {
			for tn, top := range tops {
				writeScript(t, dir, "published "+rn+" "+tn+" "+sn, "# the agent's failing work published "+rn+", "+tn+", "+sn+"\n"+publishedSetup+stop+
					"exec git checkout -q -b tmp\n"+top+route+takeMain+
					"stdin hook.json\nexec agent-gauntlet stop-hook\nhookjson decision=block\n"+publishedFiles)
			}
			person := "exec git clone -q $WORK/person.git $WORK/pc\ncp ok.txt $WORK/pc/src/p.txt\nexec git -C $WORK/pc add src\n" +
				"exec git -C $WORK/pc commit -q -m p\nexec git -C $WORK/pc push -q origin main\nexec git fetch -q origin\n"
			writeScript(t, dir, "published "+rn+" the person's commit on top "+sn, "# the agent's failing work published "+rn+
				", the person's commit on top, "+sn+"\n"+publishedSetup+stop+"exec git checkout -q -b tmp\n"+route+person+takeMain+
				"stdin hook.json\nexec agent-gauntlet stop-hook\nhookjson decision=approve 'systemMessage~fails on the base branch too'\n"+publishedFiles)
		}
	}
	testscript.Run(t, ScriptParams(dir))
}

// A commit this repository made in a linked worktree is the agent's as
// much as one made in the main worktree: made on a detached HEAD there (a
// commit only that worktree's HEAD reflog records) or on a branch, pushed
// to the base's remote by URL and fetched back, the local base and the
// branch fast-forwarded onto it, one harmless commit on top, the approve
// names it as a commit of the base no stop judged rather than taking its
// failure as the base's; also when the worktree was removed after a stop
// saw it (git.RememberMade keeps what its reflog recorded). The control:
// the same commit made in the person's own clone is the base's, and its
// failure pre-existing, with nothing named.
func TestPublishedFromLinkedWorktree(t *testing.T) {
	dir := t.TempDir()
	heads := map[string]string{"a detached HEAD": "--detach", "a branch": "-b side"}
	ends := map[string]string{
		"kept":                        "",
		"removed after a stop saw it": "stdin hook.json\nexec agent-gauntlet stop-hook\nexec git worktree remove --force $WORK/wt\n",
	}
	first := "stdin hook.json\nexec agent-gauntlet stop-hook\nhookjson decision=approve\n"
	takeMain := "exec git fetch -q origin\nexec git checkout -q main\nexec git merge -q --ff-only origin/main\nexec git checkout -q feature\n" +
		"exec git merge -q --ff-only main\ncp ok.txt src/b.txt\nexec git add -A\nexec git commit -q -m harmless\nstdin hook.json\nexec agent-gauntlet stop-hook\n"
	for hn, head := range heads {
		for en, end := range ends {
			writeScript(t, dir, "linked "+hn+" "+en, "# the agent's failing commit made in a linked worktree on "+hn+", pushed by URL, fetched, the worktree "+en+"\n"+
				publishedSetup+first+"exec git worktree add -q "+head+" $WORK/wt origin/main\ncd $WORK/wt\ncp $WORK/bad.txt src/a.txt\n"+
				"exec git commit -q -am sneak\nexec git push -q $WORK/person.git HEAD:main\ncd $WORK\n"+end+takeMain+
				"hookjson decision=approve 'systemMessage~Not verified: the 1 commit\\(s\\) the base branch main moved over'\n"+publishedFiles)
		}
	}
	writeScript(t, dir, "linked control the person's clone", "# the same commit made in the person's own clone: the base's\n"+publishedSetup+first+
		"exec git clone -q $WORK/person.git $WORK/pc\ncp bad.txt $WORK/pc/src/a.txt\nexec git -C $WORK/pc commit -q -am p\nexec git -C $WORK/pc push -q origin main\n"+
		takeMain+"hookjson decision=approve 'systemMessage~fails on the base branch too' 'systemMessage!~Not verified'\n"+publishedFiles)
	testscript.Run(t, ScriptParams(dir))
}

// publishedSetup makes the project: the person's remote origin, main
// pushed there, the gates trusted, the branch feature.
const publishedSetup = `env GAUNTLET_STOP_HOOK_ACTIVE=
exec git init -q -b main
exec git add -A
exec git commit -q -m base
exec git init -q --bare $WORK/person.git
exec git remote add origin $WORK/person.git
exec git push -q $WORK/person.git main
exec git fetch -q origin
exec agent-gauntlet trust --yes
exec git checkout -q -b feature
`

// publishedFiles are TestPublishedOwnWorkIsNotPreExisting's files.
const publishedFiles = `
-- hook.json --
{"session_id":"s1","stop_hook_active":false}
-- .gitignore --
/gauntlet_logs/
/person.git/
/pc/
/wt/
-- .gauntlet/config.yml --
base_branch: main
max_retries: 20
cli:
  default_preference: [claude]
stop_hook:
  run_interval_minutes: 0
entry_points:
  - path: .
    checks: [nobad]
-- .gauntlet/checks/nobad.yml --
command: "! grep -rn BAD src"
baseline: true
-- src/a.txt --
ok
-- ok.txt --
ok
-- bad.txt --
BAD
`
