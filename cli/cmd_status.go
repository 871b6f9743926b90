package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// StatusCmd is `agent-gauntlet status`: where the gauntlet stands between
// runs, without running anything (and without a git command).
type StatusCmd struct {
	JSON bool `name:"json" help:"Print the status as one JSON object."`
}

// Run prints the status of the project a stop hook whose session is in
// the working directory judges (stophook.Judge), by the configuration in
// force there, with exactly the pending gates that stop's answer lists
// (those of the trusted projects it leaves unjudged too).
func (c *StatusCmd) Run(env *Env) error {
	now := time.Now()
	j, err := stophook.Judge(env.Ctx, env.Cwd, env.Getenv, now)
	if err != nil {
		return err
	}
	cfg, err := j.Project, j.Err
	if j.Root == "" {
		err = &config.NotFoundError{Dir: env.Cwd}
	}
	var gates *config.Config
	if err == nil {
		gates, err = cfg.Gates()
	}
	if err != nil {
		noteDeletedConfig(env, err)
		c.pendingWithoutConfig(env, j, now, err)
		return configError(env.Stderr, err)
	}
	st := runner.Status(env.Ctx, gates, env.Getenv, now)
	for _, w := range st.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	trusted, line := trustLine(env.Ctx, gates.Root)
	pending := nonNil(j.Pending(env.Ctx, now))
	notices := nonNil(j.Notices(env.Ctx))
	answers := nonNilAnswers(j.Answers(env.Ctx))
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			runner.ProjectStatus
			// Pending are the gates that wait to be verified, as the stop
			// hook's answers list them.
			Pending []string `json:"pending"`
			// Notices are the stop hook's once-only notices, newest first,
			// as its answers tell them again.
			Notices []string `json:"notices"`
			// Answers are the stop hook's last answer to each agent
			// session, newest first, every sentence it said.
			Answers []stophook.Answer `json:"answers"`
			// Shadowed is the configuration nobody trusted that the stop
			// hook passes over for this project, "" for none.
			Shadowed string `json:"shadowed,omitempty"`
			// Trust is how the work tree's configuration stands to the
			// trusted one (null when that cannot be told).
			Trust *trust.Status `json:"trust"`
		}{st, pending, notices, answers, j.Shadowed, trusted})
	}
	writeStatus(env.Stdout, st, time.Now())
	fmt.Fprintln(env.Stdout, line)
	writeJudged(env.Stdout, j, pending)
	writeNotices(env.Stdout, notices)
	writeAnswers(env.Stdout, answers)
	return nil
}

// writeBudgets lists each agent session's own retry budget in the
// episode, the last counted first, those at the retry limit said.
func writeBudgets(w io.Writer, r runner.RunBudget) {
	if len(r.Sessions) == 0 {
		return
	}
	fmt.Fprintln(w, "Retry budget per agent session (each spends only its own; a session not listed has all of it):")
	for _, b := range slices.Backward(r.Sessions) {
		session := "with no session id"
		if b.Session != "" {
			session = runner.SafeText(b.Session)
		}
		limit := ""
		if b.Runs >= r.Allowed {
			limit = ": retry limit reached, its stops are approved without running the gates until a new commit"
		}
		fmt.Fprintf(w, "  session %s: %d of %d run(s) left%s\n", session, max(0, r.Allowed-b.Runs), r.Allowed, limit)
	}
}

// writeAnswers lists the stop hook's last answer to each agent session,
// newest first, whole: what a client that shows nothing of an allow
// (Cursor, Copilot CLI) never showed.
func writeAnswers(w io.Writer, answers []stophook.Answer) {
	if len(answers) == 0 {
		fmt.Fprintln(w, "Last answers: none")
		return
	}
	fmt.Fprintf(w, "Last answers (%d, newest first, one per agent session):\n", len(answers))
	for _, a := range answers {
		session := "with no session id"
		if a.Session != "" {
			session = runner.SafeText(a.Session)
		}
		fmt.Fprintf(w, "  %s, session %s, %s: %s\n", a.At.Local().Format(time.RFC3339), session,
			runner.SafeText(a.Status), runner.SafeText(a.Message))
	}
}

// nonNilAnswers is list, [] for none (a JSON array, never null).
func nonNilAnswers(list []stophook.Answer) []stophook.Answer {
	if list == nil {
		return []stophook.Answer{}
	}
	return list
}

// writeNotices lists the stop hook's once-only notices (every one its
// verdict book keeps, as its answers tell them again).
func writeNotices(w io.Writer, notices []string) {
	if len(notices) == 0 {
		fmt.Fprintln(w, "Notices: none")
		return
	}
	fmt.Fprintf(w, "Notices (%d, newest first, as the stop hook tells them):\n", len(notices))
	for _, n := range notices {
		fmt.Fprintf(w, "  %s\n", n)
	}
}

// writeJudged says what the stop hook passes over to judge this project
// (an untrusted configuration) and what it leaves unjudged: the pending
// gates of other trusted projects in reach, "<project>: <gate>".
func writeJudged(w io.Writer, j stophook.Judgment, pending []string) {
	if j.Shadowed != "" {
		fmt.Fprintf(w, "Passed over: the configuration in %s is not trusted, so the stop hook judges this project; "+
			"`agent-gauntlet trust` run there adopts it\n", runner.SafeText(j.Shadowed))
	}
	var others []string
	for _, g := range pending {
		if strings.Contains(g, ": ") {
			others = append(others, g)
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(w, "Also pending (trusted projects the stop hook names but does not judge from here): %s\n",
			runner.SafeText(strings.Join(others, ", ")))
	}
}

// pendingWithoutConfig says, when the configuration in force does not
// load or no project is judged (err), which gates the gauntlet's own
// records still hold failing, as the stop hook lists them: they live
// outside the log directory and the configuration, so a log directory
// replaced by a file, or a broken config.yml, never hides them. With
// --json it prints {"project": ..., "pending": [...], "error": "..."};
// the command still fails as a configuration error.
func (c *StatusCmd) pendingWithoutConfig(env *Env, j stophook.Judgment, now time.Time, err error) {
	pending := nonNil(j.Pending(env.Ctx, now))
	notices := nonNil(j.Notices(env.Ctx))
	answers := nonNilAnswers(j.Answers(env.Ctx))
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(struct {
			Project string            `json:"project,omitempty"`
			Pending []string          `json:"pending"`
			Notices []string          `json:"notices"`
			Answers []stophook.Answer `json:"answers"`
			Error   string            `json:"error"`
		}{j.Root, pending, notices, answers, config.ErrorText(err)})
		return
	}
	if len(pending) > 0 {
		fmt.Fprintf(env.Stderr, "Pending failures (from the gauntlet's records; the configuration does not load): %s\n",
			runner.SafeText(strings.Join(pending, ", ")))
	}
	if len(notices) > 0 {
		writeNotices(env.Stderr, notices)
	}
	if len(answers) > 0 {
		writeAnswers(env.Stderr, answers)
	}
}

// nonNil is list, [] for none (a JSON array, never null).
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// writeSkipped lists the review violations the agent skipped instead of
// fixing on the work tree's branch, each with its reason: what a stop that
// passed with warnings points to, still there after the logs are archived.
func writeSkipped(w io.Writer, st runner.ProjectStatus) {
	if len(st.Skipped) == 0 {
		fmt.Fprintf(w, "Skipped by the agent on branch %s: none\n", runner.SafeText(st.Branch))
		return
	}
	fmt.Fprintf(w, "Skipped by the agent on branch %s (%d, oldest first, not fixed: its reasons):\n",
		runner.SafeText(st.Branch), len(st.Skipped))
	for _, d := range st.Skipped {
		where := d.File
		if d.Line > 0 {
			where = fmt.Sprintf("%s:%d", d.File, d.Line)
		}
		by := d.SkippedAt.Local().Format(time.RFC3339)
		if d.Review != "" {
			by = runner.SafeText(d.Review) + ", " + by
		}
		fmt.Fprintf(w, "  %s %s (%s): %s\n    Reason: %s\n", runner.SafeText(d.ID), runner.SafeText(where), by,
			runner.SafeText(d.Issue), runner.SafeText(d.Note))
	}
}

// writeStatus renders the status for people and agents.
func writeStatus(w io.Writer, st runner.ProjectStatus, now time.Time) {
	logDir := st.LogDir
	if rel, err := filepath.Rel(st.Root, st.LogDir); err == nil && !strings.HasPrefix(rel, "..") {
		logDir = rel
	}
	fmt.Fprintf(w, "Project: %s (logs in %s)\n", runner.SafeText(st.Root), runner.SafeText(logDir))
	if !st.Pending() {
		fmt.Fprintln(w, "Pending failures: none")
	} else {
		fmt.Fprintf(w, "Pending failures: %d check(s), %d review(s)\n", len(st.FailedChecks), len(st.FailedReviews))
		for _, j := range st.FailedChecks {
			fmt.Fprintf(w, "  %s\n", runner.SafeText(j))
		}
		for _, j := range st.FailedReviews {
			fmt.Fprintf(w, "  %s\n", runner.SafeText(j))
		}
	}
	if c := st.Cleared; c != nil && c.Checks+c.Slots > 0 {
		fmt.Fprintf(w, "Cleared unverified: %d check(s) and %d review slot(s) pending were dropped %s (%s ago): %s\n",
			c.Checks, c.Slots, c.At.Local().Format(time.RFC3339), max(now.Sub(c.At), 0).Round(time.Second), runner.SafeText(c.Reason))
	} else if c != nil {
		fmt.Fprintf(w, "Lost unverified: whatever was pending before %s (%s ago): %s\n",
			c.At.Local().Format(time.RFC3339), max(now.Sub(c.At), 0).Round(time.Second), runner.SafeText(c.Reason))
	}
	if len(st.PreExisting) > 0 {
		fmt.Fprintf(w, "%s: %d check(s) in the last run\n", runner.PreExistingLabel, len(st.PreExisting))
		for _, j := range st.PreExisting {
			fmt.Fprintf(w, "  %s\n", runner.SafeText(j))
		}
	}
	v := st.Violations
	fmt.Fprintf(w, "Review violations: %d new, %d fixed, %d skipped", v.New, v.Fixed, v.Skipped)
	if v.New+v.Fixed+v.Skipped > 0 {
		fmt.Fprint(w, " (agent-gauntlet update-review list)")
	}
	fmt.Fprintln(w)
	writeSkipped(w, st)
	r := st.Run
	kind := "a first run"
	if r.Verification {
		kind = "a verification run"
	}
	fmt.Fprintf(w, "Next run: %d, %s; retry budget: %d of %d run(s) left (max_retries: %d)\n", r.Next, kind, r.Left, r.Allowed, r.MaxRetries)
	writeBudgets(w, r)
	if st.LastRun == nil {
		fmt.Fprintln(w, "Last run: none recorded")
	} else {
		fmt.Fprintf(w, "Last run: %s (%s ago) on branch %s\n", st.LastRun.CompletedAt.Local().Format(time.RFC3339),
			max(now.Sub(st.LastRun.CompletedAt), 0).Round(time.Second), runner.SafeText(st.LastRun.Branch))
	}
	state := "enabled"
	if !st.StopHook.Enabled {
		state = "disabled"
	}
	fmt.Fprintf(w, "Stop hook: %s, interval %d min; %s\n", state, st.StopHook.IntervalMinutes, st.StopHook.Reason)
	switch l := st.Lock; {
	case l == nil:
		fmt.Fprintln(w, "Lock: none")
	case l.PID == 0:
		fmt.Fprintf(w, "Lock: %s, held for %s by a process it does not name (remove it if no run is in progress)\n",
			runner.SafeText(l.Path), l.Age.Round(time.Second))
	case l.Stale:
		fmt.Fprintf(w, "Lock: %s, left by process %d on %s, which is gone (%s ago); the next run takes it over\n",
			runner.SafeText(l.Path), l.PID, runner.SafeText(l.Host), l.Age.Round(time.Second))
	default:
		fmt.Fprintf(w, "Lock: %s, held by process %d on %s for %s\n", runner.SafeText(l.Path), l.PID, runner.SafeText(l.Host),
			l.Age.Round(time.Second))
	}
}
