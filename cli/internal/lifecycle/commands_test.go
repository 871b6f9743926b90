//go:build unix

package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// hookArgs is the stop-hook command line `init` installs for Claude Code.
var hookArgs = []string{"stop-hook", "--agent", "claude", "--timeout", "600"}

// tookLock reports whether a command ending with status took the lock (and
// so went past the stale-lock and lock-held decisions).
func tookLock(status string) bool {
	return slices.Contains([]string{stPassed, stWarnings, stNoGates, stNoChanges, stFailed, stRetry, stError,
		"infrastructure_error", stInterrupted}, status)
}

// lockTaken reports whether a command ending with status surely took the
// lock: an error may come before (a configuration that does not load).
func lockTaken(status string) bool { return tookLock(status) && status != stError }

// ranGates reports whether a run ending with status may have run gates (an
// upper bound: errors and interruptions count).
func ranGates(status string) bool {
	return slices.Contains([]string{stPassed, stWarnings, stFailed, stRetry, stError, "infrastructure_error", stInterrupted}, status)
}

// begin applies what the start of a run implies for the episode (target
// semantics): auto-clean when the last run's branch is not the current one
// (it archives the pending failures), a new commit or (for the hook) a new
// session after the retry limit.
func (m *model) begin(f facts, session string, hook bool) {
	if m.runBranch != "" && m.runBranch != f.Branch {
		m.resetEpisode(resetBranch)
		m.failedSince = false
		m.archived, m.pending = m.pending, map[string]bool{}
	}
	if m.limitHit && f.Head != m.limitHead {
		m.resetEpisode(resetCommit)
	}
	if hook && m.limitHit && m.limitSession != "" && session != m.limitSession {
		m.resetEpisode(resetSession)
	}
	if head, ok := m.limits[session]; hook && ok && f.Head != head {
		delete(m.limits, session)
		m.spent[session] = 0
	}
}

// end records the outcome of a run: workTree is false for -c, full for a
// run of every gate in force on the whole change set (plain run with the
// configuration in force, the hook), console its console output (the jobs
// it reports passed or failed).
func (m *model) end(f facts, workTree, full bool, status, session, console string) {
	if workTree && ranGates(status) {
		if status == stInfra || status == stError && m.fault != "" {
			m.infraRuns++
		} else {
			m.budget++
			m.spent[session]++
		}
	}
	switch {
	case full && status == stPassed:
		m.resetEpisode(resetPass)
		m.fullPass, m.failedSince = true, false
	case full && status == stWarnings:
		m.resetEpisode(resetWarnings)
		m.fullPass, m.failedSince = true, false
	case full && (status == stNoGates || status == stNoChanges):
		m.fullPass = true
	case workTree && (status == stFailed || status == stRetry):
		m.failedSince = true
	}
	if workTree && status == stRetry && !m.limitHit {
		m.limitHit, m.limitHead, m.limitSession = true, f.Head, session
	}
	if _, ok := m.limits[session]; workTree && status == stRetry && !ok {
		m.limits[session] = f.Head
	}
	if tookLock(status) && status != stError {
		m.ran, m.runBranch = true, f.Branch
		m.forged = map[string]bool{}
	}
	if workTree {
		for _, r := range jobResults(console) {
			if r.passed {
				delete(m.pending, r.id)
			} else {
				m.pending[r.id] = true
			}
		}
	}
	m.archived = nil
}

// jobResultRE matches a console line with a job's result.
var jobResultRE = regexp.MustCompile(`(?m)^\[(PASS|FAIL|ERROR)\]\s+(\S+)`)

// jobResult is one job's result in a console output.
type jobResult struct {
	id     string
	passed bool
}

// jobResults lists the results a console output reports.
func jobResults(console string) []jobResult {
	var out []jobResult
	for _, m := range jobResultRE.FindAllStringSubmatch(console, -1) {
		out = append(out, jobResult{id: m[2], passed: m[1] == "PASS"})
	}
	return out
}

// clean records a successful clean.
func (m *model) clean() {
	m.resetEpisode(resetClean)
	m.fullPass, m.failedSince = false, false
	m.cleans++
	m.pending = map[string]bool{}
}

// launch starts agent-gauntlet; the caller waits.
func (h *harness) launch(stdin string, args ...string) (*proc, string, error) {
	before := h.gitState()
	h.m.skips = h.readableSkips()
	h.m.skipsRead = len(h.m.skips)
	p, err := h.s.start(h.bin, stdin, args...)
	return p, before, err
}

// finish checks what every command must leave: no hang, no Go dump, the
// user's git state intact.
func (h *harness) finish(p *proc, before string) (result, []violation) {
	r := p.wait()
	if os.Getenv(envVerbose) != "" {
		h.t.Logf("  agent-gauntlet %s: exit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(p.args, " "), r.code, r.stdout, r.stderr)
	}
	var vs []violation
	if r.timeout {
		vs = append(vs, violation{"d:hang", fmt.Sprintf("agent-gauntlet %s still ran after %s", strings.Join(p.args, " "), processTimeout)})
	}
	vs = append(vs, checkNoDump("output of agent-gauntlet "+strings.Join(p.args, " "), r.stdout+r.stderr)...)
	vs = append(vs, checkGitState(before, h.gitState())...)
	return r, vs
}

// settleLock checks the lock after a command and brings the model in line
// with the disk.
func (h *harness) settleLock(ran bool) []violation {
	content := h.lockContent()
	vs := checkLock(h.m, content, ran)
	switch {
	case content == nil:
		h.m.lock, h.m.lockContent = lockNone, ""
	case h.m.lock == lockNone || (h.m.lock.stale() && ran):
		h.m.lock, h.m.lockContent = lockKilled, *content
	}
	return vs
}

// runCommand runs run, check, review, detect or clean.
func (h *harness) runCommand(r runCall) ([]violation, error) {
	call := r
	if r.Commit != "" {
		sha, err := h.s.git("rev-parse", "--verify", "-q", r.Commit+"^{commit}")
		if err != nil {
			sha, _ = h.s.git("rev-parse", "HEAD")
		}
		call.Commit = sha
	}
	f, err := h.facts()
	if err != nil {
		return nil, err
	}
	p, before, err := h.launch("", call.args()...)
	if err != nil {
		return nil, err
	}
	res, vs := h.finish(p, before)
	return append(vs, h.judgeRun(r, f, res)...), nil
}

// judgeRun checks a finished run, check, review, detect or clean and
// updates the model.
func (h *harness) judgeRun(r runCall, f facts, res result) []violation {
	var vs []violation
	switch r.Cmd {
	case "detect":
		// With no commit yet, -b main names nothing: a usage error; so
		// is a work tree without a configuration (detect, like run, says
		// the trusted one differs, or, when a person trusted its deletion,
		// that there is none), and a sandbox that is no gauntlet project
		// at all.
		_, configured := h.m.files[gauntletDir+"/config.yml"]
		_, trustedCfg := h.m.trusted[gauntletDir+"/config.yml"]
		none := strings.Contains(res.stderr, "no .gauntlet/config.yml found")
		usage := res.code == 2 && (f.Head == "" && r.Base != "" || !configured && strings.Contains(res.stderr, "differs from the trusted one") ||
			!configured && h.m.trust == trustRecord && !trustedCfg && none || h.m.noProject(f) && none)
		if res.code != 0 && !h.m.configBroken() && !usage {
			vs = append(vs, violation{"e:detect-exit", fmt.Sprintf("detect exited %d:\n%s", res.code, res.stderr)})
		}
		return append(vs, h.settleLock(false)...)
	case "clean":
		// clean works whatever the configurations look like; it refuses
		// outside a gauntlet project (always: nothing says which files
		// there the gauntlet wrote), for a lock a live run may hold,
		// and for a lock left in place while the gates that bound a run
		// are unknown (the work tree's configuration broken too).
		ok := res.code == 0
		if ok && h.m.noProject(f) {
			vs = append(vs, violation{"d:clean-no-project", "clean exited 0 where the stop hook finds no gauntlet project (no config.yml in the work tree, no record, none committed at HEAD)"})
		}
		if ok {
			h.m.clean()
		} else if !h.m.lock.respected() && !h.m.noProject(f) && !(h.m.configBroken() && h.m.lock != lockNone) {
			vs = append(vs, violation{"d:lock-refused", fmt.Sprintf("clean failed with no lock a live run holds (%q): %s", h.m.lock, res.stderr)})
		}
		return append(vs, h.settleLock(ok)...)
	}
	st := cliStatus(res.stderr)
	h.t.Logf("  -> exit %d, %s", res.code, st)
	// A run by hand of a configuration that is not the trusted one writes
	// none of the gauntlet's records (runner Options.Untrusted): the branch
	// the verdict book follows, and so the episode, stay as they were.
	untrusted := h.m.handUntrusted(f)
	if tookLock(st) && !untrusted {
		h.m.begin(f, "", false)
	}
	vs = append(vs, checkRunStatus(h.m, f, r, st, failedJobs(res.stderr))...)
	vs = append(vs, checkFailLogs(res.stderr, readFile)...)
	vs = append(vs, checkCachedPasses(h.m, f, h.m.workGates(), res.stderr, r.scoped())...)
	vs = append(vs, checkRunToldConfig(h.m, f, r, st, res.stderr)...)
	if want := slices.Contains(passing, st); (res.code == 0) != want && st != stError {
		vs = append(vs, violation{"e:exit-code", fmt.Sprintf("%s ended %q with exit %d", strings.Join(r.args(), " "), st, res.code)})
	}
	// A run of the work tree's configuration is a full run of the gates in
	// force only when that configuration is the one in force.
	full := r.full() && !h.m.configDiffers(f)
	console := ""
	if r.scoped() {
		console = res.stderr
	}
	branch := h.m.runBranch
	h.m.end(f, r.Commit == "", full, st, "", console)
	if untrusted {
		h.m.runBranch = branch
	}
	return append(vs, h.settleLock(lockTaken(st))...)
}

// checkRunToldConfig checks that run, check and review by hand say when
// the work tree's configuration they run is not the one in force.
func checkRunToldConfig(m *model, f facts, r runCall, status, stderr string) []violation {
	if !tookLock(status) || m.trust == trustHead && f.Head == "" || !m.configDiffers(f) || strings.Contains(withoutPaths(strings.ToLower(stderr)), "trust") {
		return nil
	}
	return []violation{{"b:run-untold-config-differs", fmt.Sprintf("%s ran the work tree's configuration, which is not the one in force (%s), without saying so", strings.Join(r.args(), " "), m.configDiff(f))}}
}

// hook sends one stop to the hook.
func (h *harness) hook(call hookCall) ([]violation, error) {
	h.useSession(call.Session)
	f, err := h.facts()
	if err != nil {
		return nil, err
	}
	dir, extra := h.hookDir(call.Where)
	started := time.Now()
	before := h.gitState()
	p, err := h.s.startIn(dir, extra, h.bin, call.input(dir), hookArgs...)
	if err != nil {
		return nil, err
	}
	res, vs := h.finish(p, before)
	console := newestConsole(h.s.logDir(), started)
	vs = append(vs, checkCachedPasses(h.m, f, h.m.hookGates(f), console, true)...)
	return append(vs, h.judgeHook(call, f, res, console)...), nil
}

// hookDir is the directory a stop hook runs in (and its input names) for
// where, and the environment it adds.
func (h *harness) hookDir(where string) (string, []string) {
	var extra []string
	if strings.HasSuffix(where, "-env") {
		extra = []string{"CLAUDE_PROJECT_DIR=" + h.s.repo}
	}
	switch strings.TrimSuffix(where, "-env") {
	case "sub":
		for _, d := range []string{"src", "lib", "docs", "web", "vet"} {
			if fi, err := os.Stat(h.s.path(d)); err == nil && fi.IsDir() {
				return h.s.path(d), extra
			}
		}
	case "out":
		return h.s.outside(), extra
	}
	return h.s.repo, extra
}

// newestConsole reads the newest console log of logDir (or its previous/)
// written since since: the silent stop hook's run ("" when none).
func newestConsole(logDir string, since time.Time) string {
	var newest string
	var at time.Time
	for _, d := range []string{logDir, filepath.Join(logDir, "previous")} {
		matches, _ := filepath.Glob(filepath.Join(d, "console.*.log"))
		for _, p := range matches {
			if fi, err := os.Stat(p); err == nil && !fi.ModTime().Before(since) && fi.ModTime().After(at) {
				newest, at = p, fi.ModTime()
			}
		}
	}
	if newest == "" {
		return ""
	}
	data, _ := os.ReadFile(newest)
	return string(data)
}

// cacheClear empties the result cache; it must always succeed in a
// repository (property e), unless a link planted in the store is refused
// (named on one line).
func (h *harness) cacheClear() ([]violation, error) {
	p, before, err := h.launch("", "cache", "clear")
	if err != nil {
		return nil, err
	}
	res, vs := h.finish(p, before)
	refused := len(h.m.storeLinks) > 0 && res.code == 1 && strings.Contains(res.stderr, "refusing to write through")
	if res.code != 0 && !refused {
		vs = append(vs, violation{"e:cache-clear", fmt.Sprintf("cache clear exited %d: %s", res.code, res.stderr)})
	}
	return vs, nil
}

// useSession makes session the current one.
func (h *harness) useSession(session string) {
	h.m.session = session
	for n := h.m.sessions + 1; n < 1000; n++ {
		if sessionID(n) != session {
			break
		}
		h.m.sessions = n
	}
}

// judgeHook checks a finished hook and updates the model.
func (h *harness) judgeHook(call hookCall, f facts, res result, console string) []violation {
	a, vs := checkHookOutput(res)
	if a.Decision == "block" {
		console := readConsole(a.Reason)
		a.FailedJobs = failedJobs(console)
		vs = append(vs, checkFailLogs(console, readFile)...)
	}
	h.t.Logf("  -> %s %s %s", a.Decision, a.Status, strings.Join(a.FailedJobs, " "))
	if a.Status == "" {
		return append(vs, h.settleLock(false)...)
	}
	if tookLock(a.Status) {
		h.m.begin(f, call.Session, true)
	}
	if os.Getenv(envVerbose) != "" {
		soft, cause := h.m.unverified(f, h.m.hookGates(f))
		h.t.Logf("  oracle: failing %v; unverified %v (%s); changed %v; maybe %v; pending %v", h.m.failing(f, h.m.hookGates(f), selection{scope: "all"}),
			soft, cause, sortedKeys(f.Changed), f.MaybeWhy, sortedKeys(h.m.pending))
	}
	vs = append(vs, checkHookAnswer(h.m, f, call, a)...)
	vs = append(vs, h.m.checkToldTrust(call, a)...)
	vs = append(vs, h.m.checkToldPoint(call, a)...)
	h.m.notePointTold(f, a)
	h.m.notePassMarked(f, a)
	if err := h.notePassTree(); err != nil {
		vs = append(vs, violation{"harness", err.Error()})
	}
	h.m.credit[call.Session] = a.Decision == "block"
	h.m.configCredit[call.Session] = a.Decision == "block" && len(a.FailedJobs) == 0 && h.m.configBroken()
	if !call.lost() && a.Status != stInvalid && !h.m.storeReplaced() {
		h.m.recordTrust(f)
		h.m.stoppedWithRecord = h.m.stoppedWithRecord || h.m.trust == trustRecord
	}
	failedBefore := h.m.failedSince
	h.m.end(f, true, true, a.Status, call.Session, console)
	if h.m.configCredit[call.Session] {
		// A block for a work-tree configuration that does not load runs no
		// gate: the interval counts from the last full pass with no run
		// failing since (runner.IntervalRemaining), and that block is
		// answered only where the interval does not apply at that stop
		// (after it, stophook's verify), unless the verdict book could not
		// be read there: then, with the store put back, the interval applies
		// again as it did before.
		h.m.failedSince = failedBefore
	}
	// A work-tree configuration that does not load is answered before any
	// run: the hook takes no lock, so a dead one stays for the next run.
	return append(vs, h.settleLock(lockTaken(a.Status) && !h.m.configBroken())...)
}

// consoleRE finds the console log named in block instructions.
var consoleRE = regexp.MustCompile(`/\S*console\.\d+\.log`)

// readConsole reads the console log that instructions name ("" if none).
func readConsole(instructions string) string {
	p := consoleRE.FindString(instructions)
	if p == "" {
		return ""
	}
	data, _ := os.ReadFile(strings.TrimRight(p, ".,;:)'\"`"))
	return string(data)
}

// readFile reads a file by absolute path.
func readFile(p string) (string, bool) {
	data, err := os.ReadFile(p)
	return string(data), err == nil
}

// signals a step may send.
var signals = map[string]syscall.Signal{
	"TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL,
}

// sleepFile is the file that makes lint sleep.
const sleepFile = "src/zz_sleep.txt"

// signal starts a run or a stop hook whose lint gate sleeps, sends sig
// while the gate runs, and checks how it ended: on its own, exit 128+n (the
// hook: one JSON line that approves), no process of the gate left, no lock
// (SIGKILL: the lock stays, to be taken over). A command that ends before
// the gate starts (it had nothing to run) is judged like any other.
func (h *harness) signal(name, target string) ([]violation, error) {
	sig, ok := signals[name]
	if !ok || (target != "run" && target != "hook") {
		return nil, fmt.Errorf("signal: bad %q %q", name, target)
	}
	mark := filepath.Join(h.s.marks, "sleeping")
	_ = os.Remove(mark)
	if err := h.setFile(sleepFile, markSleep+"\n"); err != nil {
		return nil, err
	}
	defer func() {
		_ = h.removePath(sleepFile)
		_ = os.Remove(mark)
	}()
	f, err := h.facts()
	if err != nil {
		return nil, err
	}
	call := hookCall{Session: h.m.session, Active: "false"}
	stdin, args := "", []string{"run"}
	if target == "hook" {
		stdin, args = call.input(h.s.repo), hookArgs
	}
	p, before, err := h.launch(stdin, args...)
	if err != nil {
		return nil, err
	}
	exited := func() bool {
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	}
	waitFor(30*time.Second, func() bool { return exists(mark) || exited() })
	data, err := os.ReadFile(mark)
	if err != nil {
		res, vs := h.finish(p, before)
		if target == "hook" {
			return append(vs, h.judgeHook(call, f, res, "")...), nil
		}
		return append(vs, h.judgeRun(runCall{Cmd: "run"}, f, res)...), nil
	}
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if err := p.cmd.Process.Signal(sig); err != nil {
		return nil, err
	}
	var vs []violation
	if !waitFor(20*time.Second, exited) {
		vs = append(vs, violation{"d:signal-hang", fmt.Sprintf("%s still running 20s after SIG%s", target, name)})
		_ = p.cmd.Process.Kill()
	}
	res, fvs := h.finish(p, before)
	for i := range fvs {
		fvs[i].Sig += "-after-" + name
	}
	h.t.Logf("  -> SIG%s sent mid-gate: exit %d, signal %v, stdout %q", name, res.code, res.signal, strings.TrimSpace(res.stdout))
	if sig != syscall.SIGKILL {
		vs = append(vs, fvs...)
	}
	if pgid > 1 {
		if !waitFor(3*time.Second, func() bool { return groupGone(pgid) }) {
			if sig != syscall.SIGKILL {
				vs = append(vs, violation{"d:orphan-gate-" + name, fmt.Sprintf("the lint gate (process group %d) outlived the %s ended by SIG%s", pgid, target, name)})
			}
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			waitFor(10*time.Second, func() bool { return groupGone(pgid) })
		}
	}
	h.m.begin(f, call.Session, target == "hook")
	if sig != syscall.SIGKILL {
		vs = append(vs, h.judgeSignalled(target, name, sig, res)...)
	}
	if target == "hook" {
		h.m.credit[call.Session] = false
		h.m.configCredit[call.Session] = false
		// The hook reached its gates: it had opened the project, and
		// recorded the configuration at HEAD when there was no record.
		h.m.recordTrust(f)
		h.m.stoppedWithRecord = h.m.stoppedWithRecord || h.m.trust == trustRecord
	}
	h.m.end(f, true, true, stInterrupted, call.Session, "")
	if sig == syscall.SIGKILL {
		if c := h.lockContent(); c != nil {
			h.m.lock, h.m.lockContent = lockKilled, *c
		} else {
			h.m.lock, h.m.lockContent = lockNone, ""
		}
		return vs, nil
	}
	for _, v := range h.settleLock(true) {
		v.Sig += "-after-" + name
		vs = append(vs, v)
	}
	return vs, nil
}

// judgeSignalled checks the exit of a run or hook ended by sig (not KILL).
func (h *harness) judgeSignalled(target, name string, sig syscall.Signal, res result) []violation {
	want := 128 + int(sig)
	if target == "run" {
		if res.signal != 0 || res.code != want {
			return []violation{{"d:signal-exit-" + name, fmt.Sprintf("run ended by SIG%s exited %d (signal %v), want %d", name, res.code, res.signal, want)}}
		}
		return nil
	}
	if res.code == want {
		res.code = 0
	}
	a, vs := checkHookOutput(res)
	for i := range vs {
		vs[i].Sig += "-after-" + name
	}
	if a.Decision == "block" {
		vs = append(vs, violation{"e:hook-block-after-" + name, "the hook ended by SIG" + name + " blocked"})
	}
	return vs
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
