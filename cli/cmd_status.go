package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
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

// Run prints the status.
func (c *StatusCmd) Run(env *Env) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadGates)
	if err != nil {
		noteDeletedConfig(env, err)
		c.pendingWithoutConfig(env, err)
		return configError(env.Stderr, err)
	}
	now := time.Now()
	st := runner.Status(env.Ctx, cfg, env.Getenv, now)
	for _, w := range st.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	trusted, line := trustLine(env.Ctx, cfg.Root)
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			runner.ProjectStatus
			// Pending are the gates that wait to be verified, as the stop
			// hook's answers list them.
			Pending []string `json:"pending"`
			// Trust is how the work tree's configuration stands to the
			// trusted one (null when that cannot be told).
			Trust *trust.Status `json:"trust"`
		}{st, nonNil(stophook.PendingGates(env.Ctx, cfg, now)), trusted})
	}
	writeStatus(env.Stdout, st, time.Now())
	fmt.Fprintln(env.Stdout, line)
	return nil
}

// pendingWithoutConfig says, when the configuration does not load (err),
// which gates the gauntlet's own records still hold failing: they live
// outside the log directory and the configuration, so a log directory
// replaced by a file, or a broken config.yml, never hides them. With
// --json it prints {"pending": [...], "error": "..."}; the command still
// fails as a configuration error.
func (c *StatusCmd) pendingWithoutConfig(env *Env, err error) {
	root, ok, ferr := trust.FindRoot(env.Ctx, env.Cwd)
	if ferr != nil || !ok {
		return
	}
	pending := nonNil(stophook.PendingGates(env.Ctx, &config.Config{Root: root, LogDir: config.DefaultLogDir}, time.Now()))
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(struct {
			Pending []string `json:"pending"`
			Error   string   `json:"error"`
		}{pending, config.ErrorText(err)})
		return
	}
	if len(pending) > 0 {
		fmt.Fprintf(env.Stderr, "Pending failures (from the gauntlet's records; the configuration does not load): %s\n",
			runner.SafeText(strings.Join(pending, ", ")))
	}
}

// nonNil is list, [] for none (a JSON array, never null).
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
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
	r := st.Run
	kind := "a first run"
	if r.Verification {
		kind = "a verification run"
	}
	fmt.Fprintf(w, "Next run: %d, %s; retry budget: %d of %d run(s) left (max_retries: %d)\n", r.Next, kind, r.Left, r.Allowed, r.MaxRetries)
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
