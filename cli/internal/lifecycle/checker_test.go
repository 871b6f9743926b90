//go:build unix

package lifecycle

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tests of this file show that each property check fails when its
// property is broken: pure checks fed with hand-made observations, the
// stand-in reviewer, and whole steps run against deliberately broken
// stand-ins for agent-gauntlet.

// sigs returns the signatures of vs.
func sigs(vs []violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Sig)
	}
	return out
}

// wantSigs fails t unless vs holds exactly want (in any order).
func wantSigs(t *testing.T, what string, vs []violation, want ...string) {
	t.Helper()
	got := sigs(vs)
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: violations %q, want %q (%v)", what, got, want, vs)
	}
}

// oracleModel is a model whose work tree holds files and cfg's
// configuration (trusted), every file but the configuration's changed
// (the bases hold none of them).
func oracleModel(cfg projectConfig, files map[string]string) (*model, facts) {
	cfg.Trusted = true
	all := cfg.gauntletFiles("/gates")
	for p, c := range files {
		all[p] = c
	}
	m := newModel(cfg, all)
	m.trusted = cfg.gauntletFiles("/gates")
	f := facts{Branch: "work", Head: "h1", Changed: map[string]bool{}, Maybe: map[string]bool{}, MaybeWhy: map[string]string{},
		Base: gauntletOf(m.trusted), EpisodeBase: gauntletOf(m.trusted), HeadGauntlet: gauntletOf(m.trusted)}
	for p := range files {
		f.Changed[p], f.Maybe[p] = true, true
	}
	return m, f
}

func TestCheckHookAnswer(t *testing.T) {
	failing := map[string]string{"src/a.txt": "LINTFAIL\n"}
	clean := map[string]string{"src/a.txt": "plain\n"}
	s1 := sessionID(1)
	const told = "Not verified: check:src:lint still fails."
	approve := func(st string) answer { return answer{Decision: "approve", Status: st, SystemMessage: "m"} }
	toldApprove := func(st string) answer { return answer{Decision: "approve", Status: st, SystemMessage: told} }
	block := answer{Decision: "block", Status: stFailed, Reason: "r", StopReason: "r", SystemMessage: "m"}
	// differs says the work tree's configuration is not the trusted one.
	differs := func(a answer) answer { a.SystemMessage += " The stop hook runs the trusted gates."; return a }
	three := projectConfig{MaxRetries: 3}
	for _, tc := range []struct {
		name  string
		cfg   projectConfig
		files map[string]string
		setup func(m *model, f *facts)
		call  hookCall
		a     answer
		want  []string
	}{
		{"passed while lint fails", three, failing, nil, hookCall{s1, "false", ""}, approve(stPassed), []string{"b:hook-passed-lint"}},
		{"passed, told, while lint fails", three, failing, nil, hookCall{s1, "false", ""}, toldApprove(stPassed), []string{"b:hook-passed-lint"}},
		{"passed when all pass", three, clean, nil, hookCall{s1, "false", ""}, approve(stPassed), nil},
		{"no_changes while lint fails", three, failing, nil, hookCall{s1, "false", ""}, approve(stNoChanges), []string{"b:hook-no_changes-lint"}},
		{"retry limit before the budget is spent", projectConfig{MaxRetries: 2}, failing, func(m *model, _ *facts) { m.budget, m.spent[s1] = 1, 1 }, hookCall{s1, "false", ""}, toldApprove(stRetry), []string{"b:retry_limit_exceeded"}},
		{"retry limit when other sessions spent the budget", projectConfig{MaxRetries: 2}, failing, func(m *model, _ *facts) { m.budget, m.spent[sessionID(2)], m.spent["fake"] = 5, 3, 2 }, hookCall{s1, "false", ""}, toldApprove(stRetry), []string{"b:retry_limit_exceeded"}},
		{"retry limit in a new session's budget", projectConfig{MaxRetries: 2}, failing, func(m *model, _ *facts) { m.resetEpisode(resetSession) }, hookCall{s1, "false", ""}, toldApprove(stRetry), []string{"b:retry_limit_exceeded-after-new-session"}},
		{"retry limit after uncounted infrastructure errors", projectConfig{MaxRetries: 2}, failing, func(m *model, _ *facts) { m.infraRuns = 3 }, hookCall{s1, "false", ""}, toldApprove(stRetry), []string{"b:retry_limit_exceeded-after-infra"}},
		{"retry limit with the budget spent, told", projectConfig{MaxRetries: 2}, failing, func(m *model, _ *facts) { m.budget, m.spent[s1] = 2, 2 }, hookCall{s1, "false", ""}, toldApprove(stRetry), nil},
		{"retry limit with the budget spent, untold", projectConfig{MaxRetries: 2}, failing, func(m *model, _ *facts) { m.budget, m.spent[s1] = 2, 2 }, hookCall{s1, "false", ""}, approve(stRetry), []string{"b:untold-retry_limit_exceeded"}},
		{"retry limit weakened to 0 in the work tree", projectConfig{MaxRetries: 2}, failing, func(m *model, _ *facts) { weakenModel(m, "retries") }, hookCall{s1, "false", ""}, toldApprove(stRetry), []string{"b:retry_limit_exceeded-weakened-retries", "b:untold-config-differs"}},
		{"lock_exists without a lock", three, failing, nil, hookCall{s1, "false", ""}, toldApprove(stLock), []string{"b:hook-lock_exists-none"}},
		{"lock_exists for a dead pid", three, failing, func(m *model, _ *facts) { m.lock = lockDead }, hookCall{s1, "false", ""}, toldApprove(stLock), []string{"b:hook-lock_exists-dead"}},
		{"lock_exists for a reused pid", three, failing, func(m *model, _ *facts) { m.lock = lockReused }, hookCall{s1, "false", ""}, toldApprove(stLock), []string{"b:hook-lock_exists-reused"}},
		{"lock_exists for a foreign lock, told", three, failing, func(m *model, _ *facts) { m.lock = lockForeign }, hookCall{s1, "false", ""}, toldApprove(stLock), nil},
		{"lock_exists for a foreign lock, untold", three, failing, func(m *model, _ *facts) { m.lock = lockForeign }, hookCall{s1, "false", ""}, approve(stLock), []string{"b:untold-lock_exists"}},
		{"interval without one", three, failing, func(m *model, _ *facts) { m.fullPass = true }, hookCall{s1, "false", ""}, toldApprove(stInterval), []string{"b:interval_not_elapsed"}},
		{"interval after a full pass", projectConfig{MaxRetries: 3, Interval: 10}, failing, func(m *model, _ *facts) { m.fullPass = true }, hookCall{s1, "false", ""}, toldApprove(stInterval), nil},
		{"interval after a full pass, untold", projectConfig{MaxRetries: 3, Interval: 10}, failing, func(m *model, _ *facts) { m.fullPass = true }, hookCall{s1, "false", ""}, approve(stInterval), []string{"b:untold-interval_not_elapsed"}},
		{"interval with a failure since", projectConfig{MaxRetries: 3, Interval: 10}, failing, func(m *model, _ *facts) { m.fullPass, m.failedSince = true, true }, hookCall{s1, "false", ""}, toldApprove(stInterval), []string{"b:interval_not_elapsed"}},
		{"interval with no full pass", projectConfig{MaxRetries: 3, Interval: 10}, failing, nil, hookCall{s1, "false", ""}, toldApprove(stInterval), []string{"b:interval_not_elapsed"}},
		{"interval of a forged TypeScript state before any run", projectConfig{MaxRetries: 3, Interval: 10}, failing, func(m *model, _ *facts) { m.forgedState = true }, hookCall{s1, "false", ""}, toldApprove(stInterval), nil},
		{"interval of a forged TypeScript state after a run", projectConfig{MaxRetries: 3, Interval: 10}, failing, func(m *model, _ *facts) { m.forgedState, m.ran = true, true }, hookCall{s1, "false", ""}, toldApprove(stInterval), []string{"b:interval_not_elapsed"}},
		{"interval set in the work tree only", three, failing, func(m *model, _ *facts) { m.fullPass = true; weakenModel(m, "interval") }, hookCall{s1, "false", ""}, toldApprove(stInterval), []string{"b:interval_not_elapsed-weakened-interval", "b:untold-config-differs"}},
		{"error while the trusted configuration loads", three, failing, nil, hookCall{s1, "false", ""}, toldApprove(stError), []string{"b:hook-error-lint"}},
		{"error, told, with HEAD's configuration not loading and no record", three, failing, func(m *model, _ *facts) { m.trust = trustUnknown }, hookCall{s1, "false", ""}, toldApprove(stError), nil},
		{"error, untold, with HEAD's configuration not loading and no record", three, failing, func(m *model, _ *facts) { m.trust = trustUnknown }, hookCall{s1, "true", ""}, approve(stError), []string{"b:untold-error"}},
		{"loop guard without a block before, told", three, failing, nil, hookCall{s1, "true", ""}, toldApprove(stActive), nil},
		{"loop guard without a block before, untold", three, failing, nil, hookCall{s1, "true", ""}, approve(stActive), []string{"b:untold-stop_hook_active"}},
		{"loop guard after a block, told", three, failing, func(m *model, _ *facts) { m.credit[s1] = true }, hookCall{s1, "str-true", ""}, toldApprove(stActive), nil},
		{"loop guard after a block, untold", three, failing, func(m *model, _ *facts) { m.credit[s1] = true }, hookCall{s1, "str-true", ""}, approve(stActive), []string{"b:untold-stop_hook_active"}},
		{"loop guard with verify_on_continue", projectConfig{MaxRetries: 3, VerifyOnContinue: true}, failing, func(m *model, _ *facts) { m.credit[s1] = true }, hookCall{s1, "true", ""}, toldApprove(stActive), []string{"b:hook-stop_hook_active-lint"}},
		{"loop guard on a stop without the flag", three, failing, func(m *model, _ *facts) { m.credit[s1] = true }, hookCall{s1, "false", ""}, toldApprove(stActive), []string{"b:hook-stop_hook_active-lint"}},
		{"disabled globally, told with the file", three, failing, func(m *model, _ *facts) { m.globalDisabled = true }, hookCall{s1, "false", ""},
			answer{Decision: "approve", Status: stDisabled, SystemMessage: "Not verified: stop_hook.enabled is false in ~/.config/agent-gauntlet/config.yml"}, nil},
		{"disabled globally, told without the file", three, failing, func(m *model, _ *facts) { m.globalDisabled = true }, hookCall{s1, "false", ""}, toldApprove(stDisabled), []string{"b:untold-stop_hook_disabled"}},
		{"disabled in the work tree only", three, failing, func(m *model, _ *facts) { weakenModel(m, "disable") }, hookCall{s1, "false", ""},
			answer{Decision: "approve", Status: stDisabled, SystemMessage: "Not verified; trust: config.yml"}, []string{"b:hook-stop_hook_disabled-lint-weakened-disabled"}},
		{"the check's command weakened in the work tree", three, failing, func(m *model, _ *facts) { weakenModel(m, "command") }, hookCall{s1, "false", ""}, approve(stPassed),
			[]string{"b:hook-passed-lint-weakened-command", "b:untold-config-differs"}},
		{"the check dropped in the work tree, block told", three, failing, func(m *model, _ *facts) { weakenModel(m, "drop-check") }, hookCall{s1, "false", ""},
			answer{Decision: "block", Status: stFailed, Reason: "r", StopReason: "r", SystemMessage: "The work tree's configuration differs from the trusted one: agent-gauntlet trust adopts it."}, nil},
		{".gauntlet/ deleted", three, failing, func(m *model, _ *facts) { weakenModel(m, "delete") }, hookCall{s1, "false", ""}, approve(stNoConfig),
			[]string{"b:hook-no_config-lint-weakened-deleted", "b:untold-config-differs"}},
		{"infrastructure error with the reviewer down, untold", three, failing, func(m *model, _ *facts) { m.fault = "crash" }, hookCall{s1, "false", ""}, approve(stInfra), []string{"b:untold-infrastructure_error"}},
		{"infrastructure error with the reviewer up", three, failing, nil, hookCall{s1, "false", ""}, toldApprove(stInfra), []string{"b:hook-infrastructure_error-lint"}},
		{"block for the reviewer down only", three, clean, func(m *model, _ *facts) { m.fault = "timeout" }, hookCall{s1, "false", ""}, block, []string{"c:hook-block-nothing-fails-reviewer-timeout"}},
		{"pending failure out of the changes, untold", three, failing, func(m *model, f *facts) { m.pending["check:src:lint"] = true; unchange(f) }, hookCall{s1, "false", ""}, approve(stNoChanges),
			[]string{"b:unverified-pending"}},
		{"pending failure out of the changes, told", three, failing, func(m *model, f *facts) { m.pending["check:src:lint"] = true; unchange(f) }, hookCall{s1, "false", ""}, toldApprove(stNoChanges), nil},
		{"work committed onto main", three, failing, func(m *model, f *facts) {
			unchange(f)
			f.Branch, f.Maybe["src/a.txt"], f.MaybeWhy["src/a.txt"] = "main", true, "episode"
		}, hookCall{s1, "false", ""}, approve(stNoChanges), []string{"b:unverified-on-base"}},
		{"outside the project, nothing names it", three, failing, nil, hookCall{s1, "false", "out"}, approve(stNoConfig), nil},
		{"outside the project, CLAUDE_PROJECT_DIR names it", three, failing, nil, hookCall{s1, "false", "out-env"}, approve(stNoConfig), []string{"b:hook-no_config-project-dir"}},
		{"block while lint fails", three, failing, nil, hookCall{s1, "false", ""}, block, nil},
		{"block while nothing fails", three, clean, nil, hookCall{s1, "false", ""}, block, []string{"c:hook-block-nothing-fails"}},
		{"broken configuration let go after a gate's block", projectConfig{MaxRetries: 3, VerifyOnContinue: true}, map[string]string{"src/a.txt": "LINTFAIL\n", brokenCheckFile: "command: x\n" + brokenLine}, func(m *model, _ *facts) { m.credit[s1] = true }, hookCall{s1, "true", ""}, differs(toldApprove(stActive)), []string{"b:hook-stop_hook_active-config"}},
		{"broken configuration let go after its own block while the trusted gates fail", projectConfig{MaxRetries: 3, VerifyOnContinue: true}, map[string]string{"src/a.txt": "LINTFAIL\n", brokenCheckFile: "command: x\n" + brokenLine}, func(m *model, _ *facts) { m.credit[s1], m.configCredit[s1] = true, true }, hookCall{s1, "true", ""}, differs(toldApprove(stActive)), []string{"b:hook-stop_hook_active-lint"}},
		{"trusted gates pass right after the broken configuration's block", projectConfig{MaxRetries: 3, VerifyOnContinue: true}, map[string]string{"src/a.txt": "plain\n", brokenCheckFile: "command: x\n" + brokenLine}, func(m *model, _ *facts) { m.credit[s1], m.configCredit[s1] = true, true }, hookCall{s1, "true", ""}, differs(approve(stPassed)), nil},
		{"trusted gates pass while lint fails, right after the broken configuration's block", projectConfig{MaxRetries: 3, VerifyOnContinue: true}, map[string]string{"src/a.txt": "LINTFAIL\n", brokenCheckFile: "command: x\n" + brokenLine}, func(m *model, _ *facts) { m.credit[s1], m.configCredit[s1] = true, true }, hookCall{s1, "true", ""}, differs(toldApprove(stPassed)), []string{"b:hook-passed-lint"}},
		{"block on the stop after a block", three, failing, func(m *model, _ *facts) { m.credit[s1] = true }, hookCall{s1, "str-true", ""}, block, []string{"c:hook-block-after-block"}},
		{"block on the stop after a block, verify_on_continue", projectConfig{MaxRetries: 3, VerifyOnContinue: true}, failing, func(m *model, _ *facts) { m.credit[s1] = true }, hookCall{s1, "str-true", ""}, block, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, f := oracleModel(tc.cfg, tc.files)
			if tc.setup != nil {
				tc.setup(m, &f)
			}
			wantSigs(t, tc.name, checkHookAnswer(m, f, tc.call, tc.a), tc.want...)
		})
	}
}

// weakenModel weakens the model's work-tree configuration as the weaken
// step does on disk.
func weakenModel(m *model, how string) {
	if how == "delete" {
		for p := range gauntletOf(m.files) {
			delete(m.files, p)
		}
		return
	}
	for p := range gauntletOf(m.files) {
		delete(m.files, p)
	}
	for p, c := range weakenings[how](gauntletOf(m.trusted)) {
		m.files[p] = c
	}
}

// unchange makes the facts say nothing changed since the merge base, the
// bases holding the work tree's files.
func unchange(f *facts) {
	f.Changed, f.Maybe, f.MaybeWhy = map[string]bool{}, map[string]bool{}, map[string]string{}
}

func TestReviewVerdictSkips(t *testing.T) {
	s1 := sessionID(1)
	block := answer{Decision: "block", Status: stFailed, Reason: "r", StopReason: "r"}
	passed := answer{Decision: "approve", Status: stPassed}
	for _, tc := range []struct {
		name        string
		content     string
		skipLine    int
		skipBranch  string
		cleaned     bool
		wantBlock   []string
		wantApprove []string
	}{
		{"no skip", "REVIEWME-1\n", 0, "", false, nil, []string{"b:hook-passed-quality"}},
		{"skipped", "REVIEWME-1\n", 1, "work", false, []string{"c:hook-block-nothing-fails"}, nil},
		{"skipped, moved by one line", "plain\nREVIEWME-1\n", 1, "work", false, []string{"c:hook-block-nothing-fails"}, nil},
		{"skipped, moved by three lines: unsure", "plain\nplain\nplain\nREVIEWME-1\n", 1, "work", false, nil, nil},
		{"skipped on another branch: unsure", "REVIEWME-1\n", 1, "b1", false, nil, nil},
		{"skipped before a clean: unsure", "REVIEWME-1\n", 1, "work", true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, f := oracleModel(projectConfig{MaxRetries: 3}, map[string]string{"src/a.txt": tc.content})
			if tc.skipLine > 0 {
				m.skips = append(m.skips, skip{Branch: tc.skipBranch, File: "src/a.txt", Token: "REVIEWME-1", Line: tc.skipLine})
			}
			if tc.cleaned {
				m.cleans++
			}
			wantSigs(t, "block", checkHookAnswer(m, f, hookCall{s1, "false", ""}, block), tc.wantBlock...)
			wantSigs(t, "approve", checkHookAnswer(m, f, hookCall{s1, "false", ""}, passed), tc.wantApprove...)
		})
	}
}

func TestJobsApplicability(t *testing.T) {
	m, f := oracleModel(projectConfig{}, map[string]string{
		"src/vendor/v.txt": "LINTFAIL\n", "lib/x/t.txt": "TESTFAIL\n", "docs/guide.md": "DOCSFAIL\n",
		"pkg/a/p.txt": "plain\n", "pkg_a/p.txt": "LINTFAIL\n",
	})
	delete(f.Changed, "pkg_a/p.txt")
	got := map[string]job{}
	for _, j := range m.jobs(f, m.workGates()) {
		got[j.ID] = j
	}
	for id, want := range map[string]job{
		"check:src:lint":           {Applicable: false, Verdict: fail}, // only the excluded vendor changed
		"review:src:quality":       {Applicable: false, Verdict: pass},
		"check:lib/x:test":         {Applicable: true, Verdict: fail},
		"check:docs/guide.md:docs": {Applicable: true, Verdict: fail},
		"check:pkg/a:lint":         {Applicable: true, Verdict: pass},
		"check:pkg_a:lint":         {Applicable: false, Verdict: fail},
	} {
		j, ok := got[id]
		if !ok || j.Applicable != want.Applicable || j.Verdict != want.Verdict {
			t.Errorf("%s: %+v (listed %v), want applicable %v verdict %v", id, j, ok, want.Applicable, want.Verdict)
		}
	}
	if len(got) != 6 {
		t.Errorf("jobs %v, want 6", sortedKeys(got))
	}
}

func TestCheckRunStatus(t *testing.T) {
	failing := map[string]string{"src/a.txt": "LINTFAIL\n"}
	for _, tc := range []struct {
		name   string
		files  map[string]string
		setup  func(m *model)
		r      runCall
		status string
		want   []string
	}{
		{"run passes while lint fails", failing, nil, runCall{Cmd: "run"}, stPassed, []string{"b:run-passed-lint"}},
		{"check -g lint passes while lint fails", failing, nil, runCall{Cmd: "check", Gate: "lint"}, stPassed, []string{"b:check-passed-lint"}},
		{"check -g test passes while lint fails", failing, nil, runCall{Cmd: "check", Gate: "test"}, stNoGates, nil},
		{"review fails while only lint fails", failing, nil, runCall{Cmd: "review"}, stFailed, []string{"c:review-failed-nothing-fails"}},
		{"run -u passes: scope unknown", failing, nil, runCall{Cmd: "run", Uncommitted: true}, stPassed, nil},
		{"retry limit too early", failing, nil, runCall{Cmd: "run", Gate: "lint"}, stRetry, []string{"b:retry_limit_exceeded"}},
		{"retry limit of -c is not judged", failing, nil, runCall{Cmd: "run", Commit: "abc"}, stRetry, nil},
		{"stale lock refused", failing, func(m *model) { m.lock = lockOld }, runCall{Cmd: "run"}, stLock, []string{"d:lock-refused"}},
		{"live lock refused", failing, func(m *model) { m.lock = lockLive }, runCall{Cmd: "run"}, stLock, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, f := oracleModel(projectConfig{MaxRetries: 3}, tc.files)
			if tc.setup != nil {
				tc.setup(m)
			}
			wantSigs(t, tc.name, checkRunStatus(m, f, tc.r, tc.status, nil), tc.want...)
		})
	}
}

// A pass from the result cache for a gate that fails now is a violation;
// one for a gate that passes, or a review under another change scope, is
// not.
func TestCheckCachedPasses(t *testing.T) {
	files := map[string]string{"src/a.txt": "LINTFAIL\nREVIEWME-1\n", "lib/x/t.txt": "plain\n"}
	m, f := oracleModel(projectConfig{MaxRetries: 3}, files)
	console := "[PASS]  check:src:lint (cached, 3s)\n      Cached: passed in run 1\n" +
		"[PASS]  check:lib/x:test (cached, 3s)\n[PASS]  review:src:quality (cached, 1m)\n[PASS]  check:src:lint (0.10s)\n"
	g := m.workGates()
	wantSigs(t, "default scope", checkCachedPasses(m, f, g, console, true), "b:cached-pass-lint", "b:cached-pass-quality")
	wantSigs(t, "another scope", checkCachedPasses(m, f, g, console, false), "b:cached-pass-lint")
	wantSigs(t, "ran, not cached", checkCachedPasses(m, f, g, "[PASS]  check:src:lint (0.10s)\n", true))
}

// The glob entry point applies to the files its glob matches and its
// exclude leaves; its checks see its fixed prefix; its review what applies.
func TestGlobEntryPoint(t *testing.T) {
	for _, tc := range []struct {
		name          string
		brace         bool
		files         map[string]string
		changed       []string
		lint, quality job
	}{
		{"a .ts file with a marker", false, map[string]string{"web/a.ts": "REVIEWME-4\n", "web/gen/g.ts": "LINTFAIL\n"}, []string{"web/a.ts"},
			job{Applicable: true, Verdict: fail}, job{Applicable: true, Verdict: fail}},
		{"only the excluded file changed", false, map[string]string{"web/a.ts": "plain\n", "web/gen/g.ts": "REVIEWME-5\nLINTFAIL\n"}, []string{"web/gen/g.ts"},
			job{Applicable: false, Verdict: fail}, job{Applicable: false, Verdict: pass}},
		{"a .tsx file, no brace", false, map[string]string{"web/a.ts": "plain\n", "web/sub/b.tsx": "REVIEWME-4\n"}, []string{"web/sub/b.tsx"},
			job{Applicable: false, Verdict: pass}, job{Applicable: false, Verdict: pass}},
		{"a .tsx file, brace", true, map[string]string{"web/a.ts": "plain\n", "web/sub/b.tsx": "REVIEWME-4\n"}, []string{"web/sub/b.tsx"},
			job{Applicable: true, Verdict: pass}, job{Applicable: true, Verdict: fail}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := projectConfig{Brace: tc.brace}
			m, f := oracleModel(cfg, tc.files)
			unchange(&f)
			for _, p := range tc.changed {
				f.Changed[p], f.Maybe[p] = true, true
			}
			got := map[string]job{}
			for _, j := range m.jobs(f, m.workGates()) {
				got[j.ID] = j
			}
			for id, want := range map[string]job{"check:" + cfg.globPath() + ":lint": tc.lint, "review:" + cfg.globPath() + ":quality": tc.quality} {
				if j := got[id]; j.Applicable != want.Applicable || j.Verdict != want.Verdict {
					t.Errorf("%s: %+v, want applicable %v verdict %v", id, j, want.Applicable, want.Verdict)
				}
			}
		})
	}
}

// Structured checks are judged by identity against the base: a test by
// name, a diagnostic by file and message (more of one than the base has
// is new; as many in a changed file may sit on a changed line).
func TestStructuredVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		baseline   bool
		path       string
		base, work string
		want       verdict
	}{
		{"vet, the base's finding", true, "vet/a.go", "VETFAIL-1\n", "VETFAIL-1\n", pass},
		{"vet, a duplicate finding", true, "vet/a.go", "VETFAIL-1\n", "VETFAIL-1\nVETFAIL-1\n", fail},
		{"vet, the finding moved", true, "vet/a.go", "VETFAIL-1\nplain\n", "plain\nVETFAIL-1\n", unsure},
		{"vet, another finding", true, "vet/a.go", "VETFAIL-1\n", "VETFAIL-2\n", fail},
		{"vet, no baseline", false, "vet/a.go", "VETFAIL-1\n", "VETFAIL-1\n", fail},
		{"unit, the base's failing test", true, "ut/a_test.go", "UTFAIL-1\n", "plain\nUTFAIL-1\n", pass},
		{"unit, a new failing test", true, "ut/a_test.go", "UTFAIL-1\n", "UTFAIL-1\nUTFAIL-2\n", fail},
		{"junit, the base's failing test", true, "jt/a.txt", "JFAIL-3\n", "JFAIL-3\nJFAIL-3\n", pass},
		{"junit, a new failing test", true, "jt/a.txt", "plain\n", "JFAIL-3\n", fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, f := oracleModel(projectConfig{Baseline: tc.baseline}, map[string]string{tc.path: tc.work})
			f.Base[tc.path] = tc.base
			var got *job
			for _, j := range m.jobs(f, m.workGates()) {
				if strings.HasPrefix(tc.path, strings.Split(j.ID, ":")[1]+"/") {
					got = &j
				}
			}
			if got == nil || got.Verdict != tc.want {
				t.Errorf("%s: %+v, want verdict %v", tc.path, got, tc.want)
			}
		})
	}
}

// Text checks name each file holding their marker at its line 1 (a
// place): the base's finding is the work tree's only while that line reads
// as the base's did, blanks dropped; a change of it makes the finding new,
// wherever the marker stands. Every text gate × every way of keeping or
// changing the place.
func TestTextVerdicts(t *testing.T) {
	gates := []struct{ gate, path, marker string }{
		{"lint", "src/b.txt", markLint}, {"test", "lib/x/t.txt", markTest}, {"docs", "docs/guide.md", markDocs},
	}
	cases := []struct {
		name       string
		base, work string // M is the marker
		want       verdict
	}{
		{"the base's finding", "a\nM\n", "a\nM\n", pass},
		{"another line edited", "a\nb\nM\n", "a\nc\nM\n", pass},
		{"line 1 reformatted", "a b\nM\n", "a  b\r\nM\r\n", pass},
		{"a line like it inserted at the top", "a\nM\n", "a\na\nM\n", pass},
		{"line 1 rewritten", "a\nM\n", "b\nM\n", fail},
		{"the marker moved to line 1", "a\nM\n", "M\na\n", fail},
		{"a line inserted at the top", "a\nM\n", "b\na\nM\n", fail},
		{"not on the base", "a\n", "a\nM\n", fail},
		{"fixed", "a\nM\n", "a\n", pass},
	}
	for _, g := range gates {
		for _, tc := range cases {
			t.Run(g.gate+"/"+tc.name, func(t *testing.T) {
				work := strings.ReplaceAll(tc.work, "M", g.marker)
				m, f := oracleModel(projectConfig{Baseline: true}, map[string]string{g.path: work})
				f.Base[g.path] = strings.ReplaceAll(tc.base, "M", g.marker)
				var got *job
				for _, j := range m.jobs(f, m.workGates()) {
					if j.Gate == g.gate && strings.HasPrefix(g.path, strings.Split(j.ID, ":")[1]) {
						got = &j
					}
				}
				if got == nil || got.Verdict != tc.want {
					t.Errorf("%s %q against %q: %+v, want verdict %v", g.path, work, f.Base[g.path], got, tc.want)
				}
			})
		}
	}
}

func TestCheckUserFiles(t *testing.T) {
	m := newModel(projectConfig{}, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	m.logFiles["gauntlet_logs/notes.txt"] = "n\n"
	logOK := func(string) (string, bool) { return "n\n", true }
	wantSigs(t, "intact", checkUserFiles(m, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"}, logOK))
	wantSigs(t, "deleted", checkUserFiles(m, map[string]string{"a.txt": "a\n"}, logOK), "a:user-file-gone")
	wantSigs(t, "changed", checkUserFiles(m, map[string]string{"a.txt": "x\n", "d/b.txt": "b\n"}, logOK), "a:user-file-changed")
	wantSigs(t, "new file", checkUserFiles(m, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n", "previous/a.txt": "a\n"}, logOK), "a:file-outside-log-dir")
	wantSigs(t, "log-dir file moved", checkUserFiles(m, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"},
		func(string) (string, bool) { return "", false }), "a:log-dir-user-file-gone")
	wantSigs(t, "git state", checkGitState("HEAD abc\n", "HEAD def\n"), "a:git-state-changed")
}

func TestCheckStoreLinks(t *testing.T) {
	m := newModel(projectConfig{}, map[string]string{})
	m.storeLinks["/elsewhere/store-literal"] = map[string]string{"keep.txt": "k\n"}
	read := func(files map[string]string) func(string) (map[string]string, error) {
		return func(string) (map[string]string, error) { return files, nil }
	}
	wantSigs(t, "intact", checkStoreLinks(m, read(map[string]string{"keep.txt": "k\n"})))
	wantSigs(t, "written through", checkStoreLinks(m, read(map[string]string{"keep.txt": "k\n", "HEAD": "ref\n"})), "a:written-through-store-link")
	wantSigs(t, "changed", checkStoreLinks(m, read(map[string]string{"keep.txt": "x\n"})), "a:written-through-store-link")
}

func TestCheckLock(t *testing.T) {
	content := `{"pid":1}`
	m := newModel(projectConfig{}, nil)
	wantSigs(t, "none left", checkLock(m, nil, true))
	wantSigs(t, "left behind", checkLock(m, &content, true), "d:lock-left")
	m.lock, m.lockContent = lockForeign, content
	wantSigs(t, "respected kept", checkLock(m, &content, false))
	wantSigs(t, "respected removed", checkLock(m, nil, false), "d:respected-lock-removed")
	other := "{}"
	wantSigs(t, "respected rewritten", checkLock(m, &other, false), "d:respected-lock-changed")
	m.lock = lockDead
	wantSigs(t, "stale taken over", checkLock(m, nil, true))
	wantSigs(t, "stale not taken over by a run", checkLock(m, &content, true), "d:lock-left")
	wantSigs(t, "stale left by a command that did not run", checkLock(m, &content, false))
}

func TestCheckHookOutput(t *testing.T) {
	ok := `{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}` + "\n"
	for _, tc := range []struct {
		name string
		r    result
		want []string
	}{
		{"one approve line", result{stdout: ok}, nil},
		{"exit 2", result{stdout: ok, code: 2}, []string{"e:hook-exit"}},
		{"two lines", result{stdout: ok + ok}, []string{"e:hook-lines"}},
		{"no output", result{}, []string{"e:hook-lines"}},
		{"not JSON", result{stdout: "approve\n"}, []string{"e:hook-json"}},
		{"two objects", result{stdout: `{"decision":"approve","status":"passed"}{}` + "\n"}, []string{"e:hook-json"}},
		{"unknown status", result{stdout: `{"decision":"approve","status":"fine"}` + "\n"}, []string{"e:hook-status"}},
		{"block with a passing status", result{stdout: `{"decision":"block","status":"passed","reason":"r","stopReason":"r"}` + "\n"}, []string{"e:hook-decision"}},
		{"block without instructions", result{stdout: `{"decision":"block","status":"failed"}` + "\n"}, []string{"e:hook-instructions"}},
	} {
		_, vs := checkHookOutput(tc.r)
		wantSigs(t, tc.name, vs, tc.want...)
	}
}

func TestCheckStateAndOutput(t *testing.T) {
	wantSigs(t, "no state", checkState(nil, false))
	wantSigs(t, "valid state", checkState([]byte(`{"last_run_completed_at":"2026-01-02T03:04:05Z","branch":"work","commit":"abc","working_tree_ref":"def"}`), true))
	wantSigs(t, "torn state", checkState([]byte(`{"last_run_completed_at":"2026-01-02T0`), true), "e:state-unparseable")
	wantSigs(t, "bad time", checkState([]byte(`{"last_run_completed_at":"yesterday"}`), true), "e:state-unparseable")
	wantSigs(t, "panic", checkNoDump("out", "panic: boom\n\ngoroutine 1 [running]:"), "e:go-dump")
	wantSigs(t, "clean output", checkNoDump("out", "Status: Passed\n"))
	wantSigs(t, "reviewer refused", checkReviewer([]byte("argv [...]\n")), "e:reviewer-flags")
}

func TestCheckFailLogs(t *testing.T) {
	console := "[FAIL]  check:pkg_a:lint (0.01s) - Exited with code 1\n      Log: /logs/check_pkg_a_lint.1.log\n[PASS]  check:pkg/a:lint (0.01s)\n"
	read := func(content string) func(string) (string, bool) {
		return func(p string) (string, bool) { return content, p == "/logs/check_pkg_a_lint.1.log" }
	}
	wantSigs(t, "the failure's own log", checkFailLogs(console, read("LINTFAIL in:\n./p.txt\n")))
	wantSigs(t, "the passing gate's log", checkFailLogs(console, read("lint ok\n")), "e:fail-log-shows-pass")
}

func TestCliStatus(t *testing.T) {
	for out, want := range map[string]string{
		"[FAIL] x\nStatus: Failed\n":                                  stFailed,
		"Status: Passed with warnings\n":                              stWarnings,
		"Status: Passed\n":                                            stPassed,
		"Retry limit exceeded: run 4 exceeds max allowed 3 ...":       stRetry,
		"No changes detected.\n":                                      stNoChanges,
		"No applicable gates for these changes.\n":                    stNoGates,
		"Error: a gauntlet run is already in progress (lock file: x)": stLock,
		"something else":                                              stError,
	} {
		if got := cliStatus(out); got != want {
			t.Errorf("cliStatus(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestStandInReviewer(t *testing.T) {
	diff := "diff --git a/src/a.txt b/src/a.txt\n--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,3 @@\n plain\n-old\n+REVIEWME-1 here\n+plain\n" +
		"diff --git a/src/new.txt b/src/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.txt\n@@ -0,0 +1,2 @@\n+plain\n+REVIEWME-2\n"
	files := map[string]string{"src/a.txt": "plain\nREVIEWME-1 here\nplain\n", "src/old.txt": "plain\nplain\nREVIEWME-3\n", "src/gone.txt": "plain\n"}
	read := func(p string) (string, bool) { c, ok := files[p]; return c, ok }
	prompt := "Review.\n\n## Verification of an earlier review\n\nProblems the author reports as FIXED (verify each one):\n" +
		"1. src/old.txt:2 - REVIEWME-3 marker left in the code [high]\n2. src/gone.txt:1 - REVIEWME-1 marker left in the code [high]\n"
	got := review(prompt+"\n"+diffMarker+"\n"+diff, read)
	var where []string
	for _, f := range got {
		where = append(where, f.File+":"+strings.TrimSpace(strings.Fields(f.Issue)[0])+"@"+strconv.Itoa(f.Line))
	}
	want := []string{"src/a.txt:REVIEWME-1@2", "src/new.txt:REVIEWME-2@2", "src/old.txt:REVIEWME-3@3"}
	if !slices.Equal(where, want) {
		t.Errorf("review found %q, want %q", where, want)
	}
	if got := review("Review.\n"+diffMarker+"\n", read); len(got) != 0 {
		t.Errorf("an empty diff gave %v", got)
	}

	marks := t.TempDir()
	t.Setenv("MARKS", marks)
	t.Setenv("GAUNTLET_STOP_HOOK_ACTIVE", "1")
	var out, errb strings.Builder
	if code := reviewerMain(append(slices.Clone(reviewerArgv), "--model", "x"), strings.NewReader(""), &out, &errb); code == 0 {
		t.Errorf("wrong flags accepted: %s", out.String())
	}
	data, _ := os.ReadFile(filepath.Join(marks, reviewerErrors))
	wantSigs(t, "reviewer refused", checkReviewer(data), "e:reviewer-flags")
	t.Setenv("GAUNTLET_STOP_HOOK_ACTIVE", "")
	if code := reviewerMain(reviewerArgv, strings.NewReader(""), &out, &errb); code == 0 {
		t.Error("a reviewer without GAUNTLET_STOP_HOOK_ACTIVE=1 was accepted")
	}
	t.Setenv("GAUNTLET_STOP_HOOK_ACTIVE", "1")

	// A text file shown as binary is recorded.
	binary := "Review.\n" + diffMarker + "\ndiff --git a/src/a.txt b/src/a.txt\nBinary files a/src/a.txt and b/src/a.txt differ\n"
	if code := reviewerMain(reviewerArgv, strings.NewReader(binary), &out, &errb); code != 0 {
		t.Fatalf("stand-in exited %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(marks, binaryFile)); err != nil {
		t.Errorf("a diff showing a text file as binary was not recorded: %v", err)
	}

	// Each fault answers as the real CLI would fail.
	for fault, want := range map[string]string{"crash": "ECONNREFUSED", "quota": "usage limit", "garbage": "seems fine"} {
		if err := os.WriteFile(filepath.Join(marks, faultFile), []byte(fault), 0o644); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		errb.Reset()
		_ = reviewerMain(reviewerArgv, strings.NewReader("Review.\n"), &out, &errb)
		if !strings.Contains(out.String()+errb.String(), want) {
			t.Errorf("fault %s: output %q, want %q in it", fault, out.String()+errb.String(), want)
		}
	}
	for how, want := range map[string]string{"dot": "./src/a.txt", "win": `src\a.txt`, "": "src/a.txt"} {
		if got := spell("src/a.txt", how); got != want {
			t.Errorf("spell(src/a.txt, %q) = %q, want %q", how, got, want)
		}
	}
	if got := spell("src/a.txt", "abs"); !filepath.IsAbs(got) || !strings.HasSuffix(got, "/src/a.txt") {
		t.Errorf("spell(src/a.txt, abs) = %q", got)
	}
}

// fakeGauntlets are deliberately broken stand-ins for agent-gauntlet: each
// breaks one property, which a whole step must then report.
var fakeGauntlets = map[string]string{
	"approves everything":                 `cat >/dev/null; echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}'`,
	"blocks everything":                   `cat >/dev/null; echo '{"decision":"block","status":"failed","message":"m","systemMessage":"m","reason":"r","stopReason":"r"}'`,
	"claims the retry limit at once":      `cat >/dev/null; echo '{"decision":"approve","status":"retry_limit_exceeded","message":"m","systemMessage":"m"}'`,
	"passes every run":                    `echo "Status: Passed" >&2; exit 0`,
	"takes a stale pass from its cache":   `echo "[PASS]  check:src:lint (cached, 1m)" >&2; echo "Status: Passed" >&2; exit 0`,
	"deletes a user file":                 `rm -f top.txt; cat >/dev/null; echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}'`,
	"archives a user file in the log dir": `mkdir -p gauntlet_logs/previous; mv gauntlet_logs/notes.txt gauntlet_logs/previous/ 2>/dev/null; cat >/dev/null; echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}'`,
	"leaves its lock":                     `mkdir -p gauntlet_logs; echo '{"pid":1}' > gauntlet_logs/.gauntlet-run.lock; cat >/dev/null; echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}'`,
	"prints two lines":                    `cat >/dev/null; echo '{"decision":"approve","status":"passed"}'; echo '{"decision":"approve","status":"passed"}'`,
	"tears the state":                     `mkdir -p gauntlet_logs; printf '{"last_run' > gauntlet_logs/.execution_state; cat >/dev/null; echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}'`,
	"touches the index":                   `git add -A >/dev/null 2>&1; cat >/dev/null; echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}'`,
	"allows the stop after a block silently": `cat >/dev/null; if [ -f "$MARKS/once" ]; then echo '{"decision":"approve","status":"stop_hook_active","message":"m","systemMessage":"m"}'; ` +
		`else touch "$MARKS/once"; echo '{"decision":"block","status":"failed","message":"m","systemMessage":"m","reason":"r","stopReason":"r"}'; fi`,
	"never mentions trust": `cat >/dev/null; echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}'`,
	"counts infrastructure errors": `cat >/dev/null; n=$(cat "$MARKS/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$MARKS/n"; ` +
		`if [ $n -le 2 ]; then echo '{"decision":"approve","status":"infrastructure_error","message":"m","systemMessage":"Not verified: m"}'; ` +
		`else echo '{"decision":"approve","status":"retry_limit_exceeded","message":"m","systemMessage":"Not verified: m"}'; fi`,
	"tells another commit's point once": `cat >/dev/null; if [ -f "$MARKS/told" ]; then echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"m"}'; ` +
		`else touch "$MARKS/told"; echo '{"decision":"approve","status":"passed","message":"m","systemMessage":"Not verified: the commits of main up to HEAD 0123456789ab: the base branch main holds HEAD (from now on, work committed here is judged from HEAD)."}'; fi`,
	"orphans its gate on SIGTERM": `(cd src && setsid sh "$MARKS/../gates/lint.sh" >/dev/null 2>&1 &)
trap 'exit 1' TERM
sleep 60 & wait`,
}

// TestStepsCatchBrokenGauntlets runs whole steps against each broken
// stand-in and expects the property it breaks to be reported.
func TestStepsCatchBrokenGauntlets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-gauntlet and runs git")
	}
	for _, tc := range []struct {
		fake  string
		steps []string
		want  string
	}{
		{"approves everything", []string{"edit src/a.txt 1 LINTFAIL", "hook s1 false"}, "b:hook-passed-lint"},
		{"blocks everything", []string{"hook s1 false"}, "c:hook-block-nothing-fails"},
		{"blocks everything", []string{"edit src/a.txt 1 LINTFAIL", "hook s1 false", "hook s1 str-true"}, "c:hook-block-after-block"},
		{"claims the retry limit at once", []string{"edit lib/x/t.txt 1 TESTFAIL", "hook s1 false"}, "b:retry_limit_exceeded"},
		{"passes every run", []string{"edit docs/guide.md 1 DOCSFAIL", "run"}, "b:run-passed-docs"},
		{"takes a stale pass from its cache", []string{"edit src/a.txt 1 LINTFAIL", "run -g lint -b main"}, "b:cached-pass-lint"},
		{"deletes a user file", []string{"hook s1 false"}, "a:user-file-gone"},
		{"archives a user file in the log dir", []string{"logfile notes.txt", "hook s1 false"}, "a:log-dir-user-file-gone"},
		{"leaves its lock", []string{"hook s1 false"}, "d:lock-left"},
		{"prints two lines", []string{"hook s1 false"}, "e:hook-lines"},
		{"tears the state", []string{"hook s1 false"}, "e:state-unparseable"},
		{"touches the index", []string{"edit top.txt 1 plain2", "hook s1 false"}, "a:git-state-changed"},
		{"orphans its gate on SIGTERM", []string{"signal TERM run"}, "d:orphan-gate-TERM"},
		{"allows the stop after a block silently", []string{"edit src/a.txt 1 LINTFAIL", "hook s1 false", "hook s1 true"}, "b:untold-stop_hook_active"},
		{"never mentions trust", []string{"weaken command", "hook s1 false"}, "b:untold-config-differs"},
		{"never mentions trust", []string{"weaken delete", "hook s1 false"}, "b:untold-config-differs"},
		{"approves everything", []string{"edit src/a.txt 1 LINTFAIL", "weaken drop-check", "hook s1 false"}, "b:hook-passed-lint-weakened-dropped"},
		{"tells another commit's point once", []string{"checkout main", "edit src/a.txt 1 LINTFAIL", "commit", "hook s1 false", "hook s1 false"}, "b:unverified-on-base"},
		{"counts infrastructure errors", []string{"reviewer crash", "edit src/a.txt 1 LINTFAIL", "hook s1 false", "hook s1 false", "hook s1 false"}, "b:retry_limit_exceeded-after-infra"},
	} {
		t.Run(tc.fake+" "+tc.want, func(t *testing.T) {
			t.Parallel()
			h, err := newHarness(t, t.TempDir(), projectConfig{MaxRetries: 2, Trusted: true}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer h.close()
			h.bin = filepath.Join(t.TempDir(), "agent-gauntlet")
			if err := os.WriteFile(h.bin, []byte("#!/bin/sh\n"+fakeGauntlets[tc.fake]+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			var all []violation
			for _, s := range tc.steps {
				h.steps = append(h.steps, s)
				vs, err := h.exec(s)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, vs...)
				all = append(all, h.invariants()...)
			}
			if !slices.Contains(sigs(all), tc.want) {
				t.Errorf("steps %q against a gauntlet that %s: violations %q, want %s among them", tc.steps, tc.fake, sigs(all), tc.want)
			}
		})
	}
}

// TestRealGauntletPassesSimpleSteps guards the harness against false
// alarms: an ordinary failing-then-fixed episode against the real binary
// breaks no property.
func TestRealGauntletPassesSimpleSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-gauntlet and runs git")
	}
	h, err := newHarness(t, t.TempDir(), projectConfig{MaxRetries: 3, VerifyOnContinue: true, Trusted: true}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	for _, s := range []string{
		"edit src/a.txt 1 LINTFAIL", "hook s1 false", "hook s1 true", "edit src/a.txt 1 plain", "hook s1 false",
		"edit src/b.txt 2 REVIEWME-2", "run", "mark fixed 1", "edit src/b.txt 2 plain", "run", "commit", "detect", "clean",
	} {
		h.do(s)
	}
}

// TestTrustFollowedHowEverTheHookEnds pins the model's record of trust
// against the real binary's. Invariant: a stop hook past its start
// records the configuration committed at HEAD as the trusted one when
// there is no record, however it ends (an answer, or any signal in the
// middle of a gate), and the model follows it (checkTrustModel runs after
// every step); so once the agent commits the deletion of .gauntlet/, a
// failure of the recorded gates blocks, legitimately. The table covers
// every ending × a work tree that keeps, deletes or weakens .gauntlet/
// before the first stop.
func TestTrustFollowedHowEverTheHookEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agent-gauntlet and runs git")
	}
	endings := []string{"hook s1 false"}
	for _, name := range slices.Sorted(maps.Keys(signals)) {
		endings = append(endings, "signal "+name+" hook")
	}
	for _, before := range []string{"", "weaken delete", "weaken command"} {
		for _, end := range endings {
			t.Run(before+" "+end, func(t *testing.T) {
				t.Parallel()
				h, err := newHarness(t, t.TempDir(), projectConfig{MaxRetries: 3}, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer h.close()
				steps := []string{before, end, "weaken delete", "edit src/a.txt 1 LINTFAIL", "commit", "hook s1 false"}
				for _, s := range steps {
					if s != "" {
						h.do(s)
					}
				}
			})
		}
	}
}

func TestCheckBrokenConfig(t *testing.T) {
	s1 := sessionID(1)
	m, f := oracleModel(projectConfig{}, map[string]string{"src/a.txt": "plain\n", brokenCheckFile: "command: x\n" + brokenLine})
	errAnswer := answer{Decision: "approve", Status: stError, SystemMessage: "not the trusted configuration"}
	block := answer{Decision: "block", Status: stFailed, Reason: "r", StopReason: "r", SystemMessage: "not the trusted configuration"}
	wantSigs(t, "broken by the change, approved", checkHookAnswer(m, f, hookCall{s1, "false", ""}, errAnswer), "b:hook-error-config")
	wantSigs(t, "broken by the change, blocked, untold", checkHookAnswer(m, f, hookCall{s1, "false", ""}, answer{Decision: "block", Status: stFailed, Reason: "r", StopReason: "r"}),
		"b:untold-config-differs")
	wantSigs(t, "broken by the change, blocked", checkHookAnswer(m, f, hookCall{s1, "false", ""}, block))
	f.HeadConfigBroken = true
	wantSigs(t, "broken at HEAD too, approved", checkHookAnswer(m, f, hookCall{s1, "false", ""}, errAnswer))
	wantSigs(t, "broken at HEAD too, blocked", checkHookAnswer(m, f, hookCall{s1, "false", ""}, block))
}

// The oracle compares bytes: a line-ending rewrite is a change of its own
// kind, a deleted or new file a change.
func TestCompareTrees(t *testing.T) {
	got := compareTrees(
		map[string]string{"same.txt": "a\n", "crlf.txt": "a\r\nb\r\n", "edited.txt": "b\n", "new.txt": "n\n"},
		map[string]string{"same.txt": "a\n", "crlf.txt": "a\nb\n", "edited.txt": "a\n", "gone.txt": "g\n"})
	want := map[string]string{"crlf.txt": "crlf", "edited.txt": "", "new.txt": "", "gone.txt": ""}
	if !maps.Equal(got, want) {
		t.Errorf("compareTrees = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{{"*", "src/a.txt", true}, {"*.txt", "src/a.txt", true}, {"*.txt", "web/a.ts", false}, {"src/**", "src/sub/c.txt", true}, {"src/**", "lib/x/t.txt", false}} {
		if got := attrMatch(tc.pattern, tc.path); got != tc.want {
			t.Errorf("attrMatch(%q, %q) = %v", tc.pattern, tc.path, got)
		}
	}
}

// readGates reads back every weakening.
func TestWeakenings(t *testing.T) {
	cfg := projectConfig{MaxRetries: 2, VerifyOnContinue: true}
	files := cfg.gauntletFiles("/gates")
	trusted := readGates(files)
	if trusted.weakerThan(trusted) != "" || !trusted.Present || trusted.MaxRetries != 2 || !trusted.Enabled || !trusted.VerifyOnContinue {
		t.Fatalf("the configuration reads %+v", trusted)
	}
	for name, w := range weakenings {
		got := readGates(w(files)).weakerThan(trusted)
		want := map[string]string{"drop-check": "dropped", "drop-review": "dropped", "disable": "disabled"}[name]
		if want == "" {
			want = name
		}
		if got != want {
			t.Errorf("weakening %s reads as %q, want %q", name, got, want)
		}
	}
	if got := readGates(nil).weakerThan(trusted); got != "deleted" {
		t.Errorf("a deleted configuration reads as %q", got)
	}
}

// Every answer of the session whose stop first saw the trusted
// configuration change says so; other sessions need not.
func TestCheckToldTrust(t *testing.T) {
	const told = "✓ Gauntlet passed — every gate passed. The trusted configuration changed since an earlier stop: ..."
	m := &model{booked: true, trustFresh: true}
	silent := answer{Decision: "approve", Status: stPassed, SystemMessage: "✓ Gauntlet passed — every gate passed."}
	wantSigs(t, "first stop after trust, silent", m.checkToldTrust(hookCall{Session: "s1"}, silent), "b:untold-trust-changed")
	wantSigs(t, "same session, silent", m.checkToldTrust(hookCall{Session: "s1"}, silent), "b:untold-trust-changed")
	wantSigs(t, "same session, told", m.checkToldTrust(hookCall{Session: "s1"}, answer{Decision: "approve", Status: stPassed, SystemMessage: told}))
	wantSigs(t, "another session", m.checkToldTrust(hookCall{Session: "s2"}, silent))
	fresh := &model{trustFresh: false, booked: true}
	wantSigs(t, "no trust", fresh.checkToldTrust(hookCall{Session: "s1"}, silent))
}

// TestNotePointTold pins the one way the model lets the episode's base move
// to HEAD on main without a person's merge: the stop hook's approve told
// the person, naming HEAD, that the commits of main up to it were not
// verified and that work is judged from there on (docs/trust.md, "Where
// the work starts"). Invariant: the model moves main's mark only for an
// approve on main whose systemMessage says exactly that of the HEAD the
// stop saw; every other answer leaves the failures committed before it
// unverified, so that each later approve must still say so.
func TestNotePointTold(t *testing.T) {
	const head = "958e2a934814aa11bb22cc33dd44ee55ff667788"
	told := func(commit string) string {
		return "✓ Gauntlet passed. Not verified: the commits of main up to HEAD " + commit + ": the base branch main holds HEAD, " +
			"and no earlier point of main was seen to pass or recorded when its gates were trusted (from now on, work committed here is judged from HEAD)."
	}
	for _, tc := range []struct {
		name   string
		branch string
		head   string
		a      answer
		moved  bool
	}{
		{"approve on main telling HEAD", "main", head, answer{Decision: "approve", Status: stPassed, SystemMessage: told(head[:12])}, true},
		{"approve on main telling HEAD in full", "main", head, answer{Decision: "approve", Status: stNoChanges, SystemMessage: told(head)}, true},
		{"approve on main telling another commit", "main", head, answer{Decision: "approve", Status: stPassed, SystemMessage: told("0123456789ab")}, false},
		{"approve on another branch", "work", head, answer{Decision: "approve", Status: stPassed, SystemMessage: told(head[:12])}, false},
		{"block on main", "main", head, answer{Decision: "block", Status: stFailed, SystemMessage: told(head[:12])}, false},
		{"approve on main without the point", "main", head, answer{Decision: "approve", Status: stPassed, SystemMessage: "✓ Gauntlet passed — every gate passed."}, false},
		{"approve on main telling the commits only", "main", head, answer{Decision: "approve", Status: stPassed, SystemMessage: "Not verified: the commits of main up to HEAD " + head[:12] + "."}, false},
		{"approve before the first commit", "main", "", answer{Decision: "approve", Status: stPassed, SystemMessage: told(head[:12])}, false},
		{"approve on main repeating an earlier notice of HEAD", "main", head, answer{Decision: "approve", Status: stPassed,
			SystemMessage: "✓ Gauntlet passed. Earlier notice (first told at 2026-11-27T02:00:00Z in session own): " + strings.TrimPrefix(told(head[:12]), "✓ Gauntlet passed. ")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(projectConfig{NoCommits: true}, map[string]string{})
			m.refMoved = true
			m.notePointTold(facts{Branch: tc.branch, Head: tc.head}, tc.a)
			if got := m.mainMark == tc.head && tc.head != ""; got != tc.moved {
				t.Errorf("main's mark %q after %q on %s: moved %v, want %v", m.mainMark, tc.a.SystemMessage, tc.branch, got, tc.moved)
			}
			if tc.moved && m.refMoved {
				t.Errorf("the told point left refMoved set")
			}
		})
	}
}
