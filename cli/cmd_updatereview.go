package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// UpdateReviewCmd is `agent-gauntlet update-review`: the agent's side of a
// failed review, by command instead of by editing the review JSON.
type UpdateReviewCmd struct {
	List UpdateReviewListCmd `cmd:"" help:"List the violations of the failed reviews, with their ids."`
	Fix  UpdateReviewFixCmd  `cmd:"" help:"Mark a violation fixed, saying what changed; the next run asks the reviewer to verify it."`
	Skip UpdateReviewSkipCmd `cmd:"" help:"Mark a violation skipped, saying why; it stops failing the review, and stays skipped on this branch."`
}

// UpdateReviewListCmd is `agent-gauntlet update-review list`.
type UpdateReviewListCmd struct {
	JSON bool `name:"json" help:"Print the violations as one JSON array."`
}

// Run prints the violations of the newest failing review of each slot.
func (c *UpdateReviewListCmd) Run(env *Env) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadGates)
	if err != nil {
		return configError(env.Stderr, err)
	}
	vs, warnings, err := runner.ReviewViolations(env.Ctx, cfg)
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	if c.JSON {
		out := make([]violationJSON, 0, len(vs))
		for _, v := range vs {
			out = append(out, newViolationJSON(v))
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	writeViolations(env.Stdout, cfg, vs)
	return nil
}

// violationJSON is one violation of `update-review list --json`.
type violationJSON struct {
	ID      string `json:"id"`
	Review  string `json:"review"`
	Slot    int    `json:"slot"`
	Adapter string `json:"adapter"`
	File    string `json:"file"`
	// Line is the line number, or "?" when the reviewer gave none.
	Line     string `json:"line"`
	Priority string `json:"priority"`
	// Status is new, fixed or skipped.
	Status string `json:"status"`
	Issue  string `json:"issue"`
	Fix    string `json:"fix,omitempty"`
	// Note is the agent's "result" note.
	Note string `json:"note,omitempty"`
	// Path is the review JSON (or a log without one).
	Path string `json:"path"`
	// Run is the run that wrote it.
	Run int `json:"run"`
}

// newViolationJSON is v as `update-review list --json` prints it.
func newViolationJSON(v runner.Violation) violationJSON {
	return violationJSON{ID: v.ID, Review: v.Review, Slot: v.Slot, Adapter: v.Adapter, File: v.File, Line: v.LineText(),
		Priority: v.Priority, Status: string(v.Status), Issue: v.Issue, Fix: v.Fix, Note: v.Result, Path: v.Path, Run: v.Run}
}

// writeViolations renders the list for people and agents: one line per
// violation, then the counts and how to act on them.
func writeViolations(w io.Writer, cfg *config.Config, vs []runner.Violation) {
	if len(vs) == 0 {
		fmt.Fprintln(w, "No pending review violations.")
		return
	}
	fmt.Fprintf(w, "Review violations in %s:\n", runner.SafeText(cfg.LogDirPath()))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tSTATUS\tPRIORITY\tWHERE\tISSUE")
	counts := map[runner.ViolationStatus]int{}
	for _, v := range vs {
		counts[v.Status]++
		issue := oneLine(v.Issue)
		if v.Result != "" {
			issue += " (note: " + oneLine(v.Result) + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s:%s\t%s\n", v.ID, v.Status, runner.SafeText(v.Priority),
			runner.SafeText(v.File), v.LineText(), runner.SafeText(issue))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d new, %d fixed, %d skipped.\n", counts[runner.ViolationNew], counts[runner.ViolationFixed], counts[runner.ViolationSkipped])
	if counts[runner.ViolationNew] > 0 {
		fmt.Fprintln(w, `Mark each new one: agent-gauntlet update-review fix <id> "<what you changed>", or skip <id> "<why not>".`)
	}
}

// oneLine folds white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// UpdateReviewFixCmd is `agent-gauntlet update-review fix <id> "<note>"`.
type UpdateReviewFixCmd struct {
	ID   string `arg:"" help:"The violation's id (see update-review list); a unique prefix of 4 or more characters will do."`
	Note string `arg:"" optional:"" help:"What you changed to fix it."`
}

// Run marks the violation fixed.
func (c *UpdateReviewFixCmd) Run(env *Env) error {
	return decide(env, c.ID, runner.ViolationFixed, c.Note)
}

// UpdateReviewSkipCmd is `agent-gauntlet update-review skip <id> "<note>"`.
type UpdateReviewSkipCmd struct {
	ID   string `arg:"" help:"The violation's id (see update-review list); a unique prefix of 4 or more characters will do."`
	Note string `arg:"" optional:"" help:"Why you do not fix it."`
}

// Run marks the violation skipped.
func (c *UpdateReviewSkipCmd) Run(env *Env) error {
	return decide(env, c.ID, runner.ViolationSkipped, c.Note)
}

// decide records a decision and reports it in one line (plus warnings).
// The caller's mistakes (unknown id, empty note, already resolved) exit 2.
func decide(env *Env, id string, status runner.ViolationStatus, note string) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadGates)
	if err != nil {
		return configError(env.Stderr, err)
	}
	res, err := runner.Decide(env.Ctx, cfg, id, status, note, time.Now())
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	if err != nil {
		err = fmt.Errorf("update-review %s: %w", status, err)
		for _, usage := range []error{runner.ErrUnknownViolation, runner.ErrAmbiguousID, runner.ErrEmptyNote, runner.ErrResolved} {
			if errors.Is(err, usage) {
				if errors.Is(err, runner.ErrUnknownViolation) {
					err = fmt.Errorf("%w (see agent-gauntlet update-review list)", err)
				}
				return usageError(err)
			}
		}
		return err
	}
	v := res.Violation
	fmt.Fprintf(env.Stdout, "Marked %s %s: %s:%s %s\n", v.ID, status, runner.SafeText(v.File), v.LineText(),
		runner.SafeText(oneLine(v.Issue)))
	switch {
	case status == runner.ViolationFixed:
		fmt.Fprintln(env.Stdout, "The next run asks the reviewer to verify the fix.")
	case res.Branch != "":
		fmt.Fprintf(env.Stdout, "It no longer fails the review, and stays skipped when a later review on branch %s reports it again.\n",
			runner.SafeText(res.Branch))
	default:
		fmt.Fprintln(env.Stdout, "It no longer fails the review.")
	}
	return nil
}
