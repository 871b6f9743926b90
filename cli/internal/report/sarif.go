package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// SrcRoot is the uriBaseId of every file a SARIF report names: the
// repository's top level, as GitHub code scanning expects.
const SrcRoot = "%SRCROOT%"

// fingerprintKey names the partial fingerprint that tells GitHub which
// results of successive runs are the same alert: the rule, the file and
// the issue (reviews) or the entry point (checks), not the line, which
// moves as the code changes.
const fingerprintKey = "agentGauntlet/v1"

// Bounds of the log tail a failed check's SARIF message carries.
const (
	sarifTailLines = 20
	sarifTailBytes = 4 << 10
)

// SARIF levels.
const (
	levelError   = "error"
	levelWarning = "warning"
	levelNote    = "note"
)

// priorityLevels maps a violation's priority to its SARIF level.
var priorityLevels = map[config.Priority]string{
	config.PriorityCritical: levelError,
	config.PriorityHigh:     levelError,
	config.PriorityMedium:   levelWarning,
	config.PriorityLow:      levelNote,
}

// sarifOutcome is what a gate status becomes in SARIF.
type sarifOutcome int

const (
	// sarifNothing: a passing gate, or one never started (fail_fast: the
	// gate that stopped the lane is the result), adds no result.
	sarifNothing sarifOutcome = iota
	// sarifResult: a failed check is a result on its gate's file.
	sarifResult
	// sarifNotification: a gate that could not judge the change is a tool
	// execution notification, and the execution was not successful.
	sarifNotification
	// sarifPreExisting: a check failing as it does on the base branch is a
	// result at level note with baselineState "unchanged": there for
	// information, not an alert of this change.
	sarifPreExisting
)

// sarifOutcomes maps every gate status to its SARIF outcome for a check.
// A review's open violations are results whatever its status. A new gate
// status needs an entry (TestOutcomesCoverStatuses).
var sarifOutcomes = map[runner.GateStatus]sarifOutcome{
	runner.GatePass:   sarifNothing,
	runner.GateFail:   sarifResult,
	runner.GateError:  sarifNotification,
	runner.GateNotRun: sarifNothing,
	// The failure the base branch has too: for information.
	runner.GatePreExisting: sarifPreExisting,
}

// noExecution are the statuses of runs that could not look at the change.
var noExecution = map[runner.GauntletStatus]bool{
	runner.StatusError: true, runner.StatusInfrastructureError: true, runner.StatusLockExists: true, runner.StatusNoConfig: true,
}

// SARIF renders r as a SARIF 2.1.0 log with one run: each failed check is a
// result on its gate's definition file, each open review violation a
// result on its file and line (level from its priority, the fix in its
// message), each violation the agent skipped a suppressed result; a gate
// that could not run, or a run that could not start, is a tool execution
// notification. Files are relative to the repository's top level with
// uriBaseId %SRCROOT%. A run without findings has an empty result list,
// which closes the alerts of earlier runs.
func SARIF(r Run) ([]byte, error) {
	rep, err := sarif.New(sarif.Version210)
	if err != nil {
		return nil, fmt.Errorf("create the SARIF report: %w", err)
	}
	b := sarifBuilder{r: r, run: sarif.NewRunWithInformationURI(ToolName, ToolURI)}
	if r.Version != "" {
		b.run.Tool.Driver.WithVersion(r.Version)
	}
	if top := b.topLevel(); top != "" {
		b.run.WithOriginalUriBaseIds(map[string]*sarif.ArtifactLocation{
			SrcRoot: sarif.NewArtifactLocation().WithUri((&url.URL{Scheme: "file", Path: filepath.ToSlash(top) + "/"}).String()),
		})
	}
	inv := sarif.NewInvocation().WithExitCode(r.ExitCode)
	for _, g := range r.Result.Gates {
		b.gate(g, inv)
	}
	res := r.Result
	if res.ErrorMessage != "" && len(inv.ToolExecutionNotifications) == 0 {
		level := levelError
		if !noExecution[res.Status] && res.Status != runner.StatusRetryLimitExceeded {
			level = levelWarning
		}
		inv.AddTToolExecutionNotification(sarif.NewNotification().WithLevel(level).WithTextMessage(res.ErrorMessage))
	}
	successful := !noExecution[res.Status] && r.ExitCode != 2 && len(inv.ToolExecutionNotifications) == 0
	inv.WithExecutionSuccess(successful)
	b.run.AddInvocations(inv)
	rep.AddRun(b.run)
	var out bytes.Buffer
	if err := rep.PrettyWrite(&out); err != nil {
		return nil, fmt.Errorf("encode the SARIF report: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// WriteSARIF writes r's SARIF report to path, atomically.
func WriteSARIF(path string, r Run) error {
	data, err := SARIF(r)
	if err != nil {
		return err
	}
	return writeFile(path, data)
}

// sarifBuilder fills one SARIF run.
type sarifBuilder struct {
	r   Run
	run *sarif.Run
}

// topLevel is the directory %SRCROOT% stands for.
func (b sarifBuilder) topLevel() string {
	if b.r.TopLevel != "" {
		return b.r.TopLevel
	}
	return b.r.Result.Root
}

// gate adds what gate g says: results, or a notification on inv.
func (b sarifBuilder) gate(g runner.GateResult, inv *sarif.Invocation) {
	if sarifOutcomes[g.Status] == sarifNotification {
		inv.AddTToolExecutionNotification(sarif.NewNotification().WithLevel(levelError).
			WithTextMessage(fmt.Sprintf("%s: %s", g.JobID, g.Message)))
	}
	if g.Kind == runner.KindCheck {
		if o := sarifOutcomes[g.Status]; (o == sarifResult || o == sarifPreExisting) && b.findingResults(g, gateFindings(g)) {
			return
		}
		switch sarifOutcomes[g.Status] {
		case sarifResult:
			b.checkResult(g, levelError, "failed")
		case sarifPreExisting:
			b.checkResult(g, levelNote, "fails as on the base branch, not because of this change,")
		}
		return
	}
	for _, s := range g.Slots {
		for _, v := range s.Violations {
			if v.Status != runner.ViolationFixed {
				b.violationResult(g, s, v)
			}
		}
	}
}

// rule returns the id of g's rule, adding the rule on first use.
func (b sarifBuilder) rule(g runner.GateResult) string {
	id := g.Kind + "/" + g.Gate
	file := filepath.ToSlash(g.File)
	rule := sarif.NewRule(id).
		WithShortDescription(sarif.NewMultiformatMessageString(fmt.Sprintf("agent-gauntlet %s gate %q", g.Kind, g.Gate))).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(levelError))
	if g.Kind == runner.KindCheck {
		rule.WithFullDescription(sarif.NewMultiformatMessageString(fmt.Sprintf("The command of the check gate %s (%s) must pass.", g.Gate, file))).
			WithTextHelp(fmt.Sprintf("Run `agent-gauntlet check -g %s` to run the check again; its log shows the command's output. Fix what it reports.", g.Gate))
	} else {
		rule.WithFullDescription(sarif.NewMultiformatMessageString(fmt.Sprintf("Findings of the AI review gate %s (%s) on the change.", g.Gate, file))).
			WithTextHelp("Each finding says what is wrong and how to fix it. Fix it, or mark the violation \"skipped\" with a \"result\" note in the review's JSON file (see the run's log).")
		rule.WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(levelWarning))
	}
	b.run.Tool.Driver.AddRule(rule)
	return id
}

// checkResult adds the result of a failed check at level: on its
// definition file, with its message (saying what it did) and the tail of
// its log. A pre-existing failure (level note) has baselineState
// "unchanged".
func (b sarifBuilder) checkResult(g runner.GateResult, level, did string) {
	rule := b.rule(g)
	text := fmt.Sprintf("Check %s %s on %s: %s", g.Gate, did, g.EntryPoint, g.Message)
	if tail := runner.LogTail(g.LogPath, sarifTailLines, sarifTailBytes); tail != "" {
		text += fmt.Sprintf("\n\nLast lines of %s:\n%s", g.LogPath, tail)
	}
	loc := b.location(g.File, 1)
	res := sarif.NewRuleResult(rule).WithLevel(level).WithMessage(sarif.NewTextMessage(text)).
		WithLocations([]*sarif.Location{loc}).
		WithPartialFingerPrints(map[string]interface{}{fingerprintKey: fingerprint(rule, g.EntryPoint)})
	if g.Status == runner.GatePreExisting {
		res.WithBaselineState("unchanged")
	}
	res.AttachPropertyBag(properties(map[string]any{"jobId": g.JobID, "entryPoint": g.EntryPoint, "timedOut": g.TimedOut}))
	b.run.AddResult(res)
}

// violationResult adds the result of an open or skipped review violation.
func (b sarifBuilder) violationResult(g runner.GateResult, s runner.SlotResult, v runner.Violation) {
	rule := b.rule(g)
	text := v.Issue
	if v.Fix != "" {
		text += "\nFix: " + v.Fix
	}
	level := priorityLevels[config.Priority(v.Priority)]
	if level == "" {
		level = levelNote
	}
	loc := b.location(v.File, v.Line)
	fp := fingerprint(rule, v.File, strings.Join(strings.Fields(strings.ToLower(v.Issue)), " "))
	res := sarif.NewRuleResult(rule).WithLevel(level).WithMessage(sarif.NewTextMessage(text)).
		WithLocations([]*sarif.Location{loc}).
		WithPartialFingerPrints(map[string]interface{}{fingerprintKey: fp})
	res.AttachPropertyBag(properties(map[string]any{"jobId": g.JobID, "priority": v.Priority, "status": string(v.Status),
		"reviewer": fmt.Sprintf("%s@%d", s.Adapter, s.Index)}))
	if v.Status == runner.ViolationSkipped {
		res.AddSuppression(sarif.NewSuppression("external").WithStatus("accepted").
			WithJustifcation(v.Result).WithLocation(b.location(v.File, v.Line)).WithGuid(guid(fp)))
	}
	b.run.AddResult(res)
}

// location is file (relative to the project root) at line (none when 0),
// relative to the repository's top level.
func (b sarifBuilder) location(file string, line int) *sarif.Location {
	p := b.r.repoPath(file)
	pl := sarif.NewPhysicalLocation().WithArtifactLocation(
		sarif.NewSimpleArtifactLocation((&url.URL{Path: p}).String()).WithUriBaseId(SrcRoot))
	if line > 0 {
		pl.WithRegion(sarif.NewRegion().WithStartLine(line))
	}
	return sarif.NewLocationWithPhysicalLocation(pl)
}

// properties is a property bag holding m.
func properties(m map[string]any) *sarif.PropertyBag {
	pb := sarif.NewPropertyBag()
	for k, v := range m {
		pb.Add(k, v)
	}
	return pb
}

// fingerprint is a stable hash of parts.
func fingerprint(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// guid formats a 32-digit hex fingerprint as an RFC 4122 GUID, version 5
// (name-based) and variant 10xx, as SARIF's schema requires.
func guid(fp string) string {
	variant := "89ab"[strings.IndexByte("0123456789abcdef", fp[16])&3]
	return fp[0:8] + "-" + fp[8:12] + "-5" + fp[13:16] + "-" + string(variant) + fp[17:20] + "-" + fp[20:32]
}
