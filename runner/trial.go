package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/check"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// trialOutputLimit bounds the output a Trial keeps.
const trialOutputLimit = 64 << 10

// TrialOptions describe one check to run once, outside any run: how `init`
// proves a proposed check before writing it.
type TrialOptions struct {
	// Root is the absolute project root.
	Root string
	// Dir is the working directory, relative to Root ("." for the root).
	Dir string
	// Name is the check's name (for its log header).
	Name string
	// Command is the check's command.
	Command string
	// BaseBranch is the base branch the command sees as ${BASE_BRANCH}.
	BaseBranch string
	// Timeout bounds the run (0 for none).
	Timeout time.Duration
}

// Trial is what running a check once showed.
type Trial struct {
	// Passed is true when the check passed.
	Passed bool
	// Canceled is true when ctx ended the trial.
	Canceled bool
	// Message is the check's result as a run would log it ("Exited with
	// code 1", "Timed out after 300s", "Command exited with code 0").
	Message string
	// Output is the start of the command's combined output, at most
	// trialOutputLimit bytes.
	Output string
	// Duration is how long it ran.
	Duration time.Duration
}

// TryCheck runs a check exactly as a run runs it (the same preflight,
// shell, working directory, environment, ${BASE_BRANCH}, timeout and
// process-group handling), once, and reports the outcome. Its log goes to a temporary
// directory that is removed afterwards: nothing is written to the project.
func TryCheck(ctx context.Context, o TrialOptions) Trial {
	tmp, err := os.MkdirTemp("", "agent-gauntlet-trial-")
	if err != nil {
		return Trial{Message: fmt.Sprintf("create a temporary log directory: %v", err)}
	}
	defer os.RemoveAll(tmp)
	chk := &config.Check{Name: o.Name, Command: o.Command, WorkingDirectory: o.Dir, RunLocally: true, RunInCI: true, Timeout: o.Timeout}
	job := gate.Job{ID: gate.CheckID(o.Dir, o.Name), Kind: gate.KindCheck, Name: o.Name, EntryPoint: o.Dir, WorkingDir: o.Dir, Check: chk}
	env := gate.Env{Root: o.Root, LogDir: tmp, RunNumber: 1, Diff: gate.DiffSpec{BaseBranch: o.BaseBranch}, Console: io.Discard}
	// The run's preflight first: a check it refuses fails every run.
	if msg := check.Preflight(ctx, job, env); msg != "" {
		return Trial{Canceled: ctx.Err() != nil, Message: msg}
	}
	res := check.Run(ctx, job, env)
	t := Trial{Passed: res.Status == gate.StatusPass, Canceled: ctx.Err() != nil, Message: res.Message, Duration: res.Duration}
	t.Output = trialOutput(res.LogPath, check.Command(job, o.BaseBranch))
	return t
}

// trialOutput reads the command's output from a check log: what follows the
// header (which ends with the working directory line and a blank line) and
// precedes the closing "Result:" line.
func trialOutput(logPath, command string) string {
	f, err := os.Open(logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, trialOutputLimit+int64(len(command))+4096))
	s := string(b)
	if i := strings.Index(s, "Executing command: "+command+"\n"); i >= 0 {
		s = s[i+len("Executing command: ")+len(command)+1:]
		if _, rest, ok := strings.Cut(s, "\n\n"); ok {
			s = rest
		}
	}
	if i := strings.LastIndex(s, "\nResult: "); i >= 0 {
		s = s[:i]
	}
	if len(s) > trialOutputLimit {
		s = s[:trialOutputLimit]
	}
	return s
}
