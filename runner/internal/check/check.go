// Package check runs check gates: a shell command in the job's working
// directory, its output streamed straight into the job's numbered log file.
package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/findings"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/proc"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// Shell runs every check command as `sh -c <command>`.
const Shell = "sh"

// BaseBranchVar is the placeholder replaced by the effective base branch; it
// is also set in the command's environment.
const BaseBranchVar = "BASE_BRANCH"

// Messages of check results (one source of truth).
const (
	msgPassed      = "Command exited with code 0"
	msgExited      = "Exited with code %d"
	msgTimedOut    = "Timed out after %ss"
	msgSignaled    = "Terminated by a signal"
	msgCanceled    = "Canceled"
	msgMissing     = "Missing command: %s"
	msgUnparseable = "Unable to parse command"
	msgNoWorkDir   = "Working directory not found: %s"
	// msgPersonWanted quotes the program's line: its words are data.
	msgPersonWanted = "Wanted a person (a terminal, a password, an editor), which checks never have: %q"
	// msgKilled is a check's failure: the command, a process it started,
	// a person or the system ended it (see runScript).
	msgKilled = "Killed by %s, not sent by agent-gauntlet (the command, a process it started, a person or the system sent it)"
	// msgLogLost is the message of a check whose command passed (the
	// first verb, msgPassed) but whose log the gauntlet could not keep.
	msgLogLost = "%s, but agent-gauntlet could not keep its log (%v): no verdict is kept"
	// msgReadOwnLogs follows the message of a failed check whose output
	// names the log directory (readOwnLogs).
	msgReadOwnLogs = "; the check read agent-gauntlet's own logs (%s, which its output names), which hold earlier runs' commands and output: leave that directory out of the command (grep --exclude-dir, find -prune) or delete the logs there"
	// FixInstructionsHeader opens the fix instructions in a failed check's log.
	FixInstructionsHeader = "--- Fix Instructions ---"
	// PreflightFailed opens the log of a check that failed its preflight.
	PreflightFailed = "Health check failed"
)

// LogPath is the absolute path of the log of job in run env.RunNumber.
func LogPath(env gate.Env, job gate.Job) string {
	return env.Names.JobLog(job.ID, env.RunNumber).Path(env.LogDir)
}

// safeRef is a base branch that can be pasted into a shell command as is.
var safeRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._/@+-]+$`) })

// Command returns the command of job with ${BASE_BRANCH} replaced by base
// when base needs no shell quoting; otherwise the placeholder is left for
// the shell, which reads it from the environment.
func Command(job gate.Job, base string) string {
	if safeRef().MatchString(base) {
		return strings.ReplaceAll(job.Check.Command, "${"+BaseBranchVar+"}", base)
	}
	return job.Check.Command
}

// Environ is the environment of a check's command: the gauntlet's, with
// BASE_BRANCH set to base.
func Environ(base string) []string { return append(os.Environ(), BaseBranchVar+"="+base) }

// workDir returns the absolute working directory of job.
func workDir(env gate.Env, job gate.Job) string {
	if job.WorkingDir == "" || job.WorkingDir == "." {
		return env.Root
	}
	return filepath.Join(env.Root, filepath.FromSlash(job.WorkingDir))
}

// openLog creates the job log and writes its header: in env.Pending, out
// of the work tree the command may read, when the run has one (finish
// moves it to LogPath; what is there now must be the gauntlet's to write
// over, logdir.Vacant), else at LogPath (truncating it).
func openLog(env gate.Env, job gate.Job, cmd string) (*os.File, error) {
	p := LogPath(env, job)
	var f *os.File
	var err error
	if env.Pending != "" {
		if err = logdir.Vacant(p); err == nil {
			f, err = logdir.OpenPending(env.Pending, filepath.Base(p))
		}
	} else {
		f, err = logdir.OpenLog(p, true)
	}
	if err != nil {
		return nil, fmt.Errorf("create check log: %w", err)
	}
	wd := job.WorkingDir
	if wd == "" {
		wd = "."
	}
	scope := ""
	if job.Changed != nil && job.Check.Scoped() {
		scope = fmt.Sprintf("Changed files: %d\n", len(job.Changed))
	}
	_, err = fmt.Fprintf(f, "[%s] Starting check: %s\nExecuting command: %s\nWorking directory: %s\n%s\n",
		time.Now().Format(time.RFC3339Nano), job.Name, cmd, wd, scope)
	if err != nil {
		f.Close()
		return nil, fserr.Wrap("write check log", p, err)
	}
	return f, nil
}

// finish appends the result (and fix instructions on failure), closes f
// and, when f is a pending log (openLog), moves it to res.LogPath.
func finish(f *os.File, job gate.Job, res *gate.Result) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\nResult: %s - %s\n", res.Status, res.Message)
	if res.Status.Failed() && job.Check.FixInstructions != "" {
		fmt.Fprintf(&b, "\n%s\n%s\n", FixInstructionsHeader, strings.TrimRight(job.Check.FixInstructions, "\n"))
	}
	_, werr := f.Write(b.Bytes())
	cerr := f.Close()
	err := errors.Join(werr, cerr)
	if f.Name() != res.LogPath {
		err = errors.Join(err, logdir.Install(f.Name(), res.LogPath))
	} else {
		// Now with its content, for archiving to know it (the record
		// failing to note it only leaves it in place).
		_ = logdir.Note(f.Name(), false)
	}
	switch {
	case err != nil && fserr.Exhausted(err):
		// The file system took no more (full, a quota): the command's own
		// output may be cut as well, so it reached no verdict the agent can
		// act on.
		res.Status, res.Message, res.ErrorCount = gate.StatusError, fmt.Sprintf("write check log: %v", err), 1
		res.Infrastructure = true
	case err != nil && res.Status == gate.StatusPass:
		// The command passed; only the gauntlet's record of it failed,
		// which is nothing the agent can fix: no verdict is kept, and
		// none is a failure.
		res.Status, res.Message, res.ErrorCount = gate.StatusError, fmt.Sprintf(msgLogLost, msgPassed, err), 1
		res.Infrastructure = true
	}
}

// Run runs the check job: `sh -c <command>` in its working directory with
// stdout and stderr streamed into its log (the process writes to the file
// itself, so memory stays bounded whatever the output size). A timeout kills
// the whole process group. Exit 0 is pass; an exit code or timeout is fail;
// anything else (cannot start, canceled) is error. The job's changed files
// reach the command as ${CHANGED_FILES} (in batches that each fit on a
// command line) and GAUNTLET_CHANGED_FILES_FILE when it is scoped to them
// (GivenFiles).
func Run(ctx context.Context, job gate.Job, env gate.Env) gate.Result {
	return RunJudged(ctx, job, env, nil)
}

// Failure is a check that failed (exited non-zero or was killed by a
// signal; not a timeout), with its log still open.
type Failure struct {
	Job gate.Job
	Env gate.Env
	// Dir is the absolute working directory it ran in.
	Dir string
	// Outcome is what the command did; its Output spans are in Log.
	Outcome Outcome
	// Log is the check's log, open for appending.
	Log *os.File
	// Findings are what its output reported (ReadFindings).
	Findings findings.Result
}

// Judgement is what a Judge says about a failure.
type Judgement struct {
	Status   gate.Status
	Message  string
	Baseline *gate.Baseline
	// Infrastructure is true when the failure could not be judged for
	// reasons the agent cannot fix (the base could not be checked out):
	// see gate.Result.Infrastructure.
	Infrastructure bool
	// Findings are the failure's findings as judged (each marked new or
	// unchanged); nil keeps Failure.Findings.
	Findings *findings.Result
}

// Judge looks again at a failed check before its log is closed (a
// base-branch baseline): it may append to the log, and returns the
// status, message, baseline and findings to report.
type Judge func(ctx context.Context, f Failure) Judgement

// RunJudged is Run that hands a failure to judge (when not nil) before
// the log's result line is written.
func RunJudged(ctx context.Context, job gate.Job, env gate.Env, judge Judge) gate.Result {
	start := time.Now()
	res := gate.Result{JobID: job.ID, LogPath: LogPath(env, job)}
	cmd := Command(job, env.Diff.BaseBranch)
	f, err := openLog(env, job, cmd)
	if err != nil {
		// Not run: the gauntlet's own log could not be made.
		res.Status, res.Message, res.ErrorCount = gate.StatusError, err.Error(), 1
		res.Infrastructure = true
		return res
	}
	defer func() { res.Duration = time.Since(start) }()

	dir := workDir(env, job)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		res.Status, res.Message, res.ErrorCount = gate.StatusError, fmt.Sprintf(msgNoWorkDir, job.WorkingDir), 1
		finish(f, job, &res)
		res.Duration = time.Since(start)
		return res
	}
	x := Exec{Command: cmd, Dir: dir, Env: Environ(env.Diff.BaseBranch),
		Files: GivenFiles(job, job.Changed), Timeout: job.Check.Timeout, Log: f, Temp: env.Pending}
	began := time.Now()
	out := x.Run(ctx)
	if m, ok := missingIn(cmd, out, f, dir, env.Root); ok {
		// The shell could not run a program: nothing the command judged.
		out.Status, out.Message, out.Infrastructure = gate.StatusError, fmt.Sprintf(msgMissing, m.Program), m.Infrastructure
	} else if line, ok := personWantedIn(out, f); ok {
		out.Status, out.Message, out.Infrastructure = gate.StatusError, fmt.Sprintf(msgPersonWanted, line), true
	}
	res.Status, res.Message, res.Infrastructure = out.Status, out.Message, out.Infrastructure
	if logs, ok := readOwnLogs(env, dir, out, f); ok {
		res.Message += fmt.Sprintf(msgReadOwnLogs, logs)
	}
	found, read := ReadFindings(job, cmd, env.Root, dir, out, f, began)
	if read {
		res.Findings = &found
	}
	if judge != nil && out.Status == gate.StatusFail && !out.TimedOut {
		res.OutputEnd = logSize(f)
		j := judge(ctx, Failure{Job: job, Env: env, Dir: dir, Outcome: out, Log: f, Findings: found})
		res.Status, res.Message, res.Baseline, res.Infrastructure = j.Status, j.Message, j.Baseline, j.Infrastructure
		if j.Findings != nil {
			res.Findings = j.Findings
		}
	}
	if res.Status.Failed() || res.Status == gate.StatusPreExisting {
		WriteFindings(f, res.Findings)
	}
	res.TimedOut = out.TimedOut
	res.Exited, res.ExitCode = !out.TimedOut && out.ExitCode >= 0, max(out.ExitCode, 0)
	if res.Status.Failed() {
		res.ErrorCount = 1
	}
	finish(f, job, &res)
	res.Duration = time.Since(start)
	return res
}

// missingIn is what the shell said of a program command names and it
// could not run, when out is such a failure (MissingProgram), its output
// at the end of log f.
func missingIn(cmd string, out Outcome, f *os.File, dir, root string) (Missing, bool) {
	if out.Status != gate.StatusFail || out.TimedOut {
		return Missing{}, false
	}
	return MissingProgram(cmd, out.ExitCode, f, logSize(f), dir, root)
}

// personWantedIn is the line by which a failed command said it wanted a
// person (PersonWanted).
func personWantedIn(out Outcome, f *os.File) (string, bool) {
	if out.Status != gate.StatusFail || out.TimedOut {
		return "", false
	}
	return PersonWanted(f, logSize(f))
}

// shellWords are the shell's reserved words and builtins (POSIX and
// dash): a command starting with one is never exec'ed, since `exec` would
// look it up on PATH instead (echo, printf and test behave differently
// there) or fail.
var shellWords = map[string]bool{
	"!": true, "{": true, "}": true, "case": true, "do": true, "done": true, "elif": true, "else": true,
	"esac": true, "fi": true, "for": true, "if": true, "in": true, "then": true, "until": true, "while": true,
	".": true, ":": true, "[": true, "alias": true, "bg": true, "break": true, "cd": true, "chdir": true,
	"command": true, "continue": true, "echo": true, "eval": true, "exec": true, "exit": true,
	"export": true, "false": true, "fc": true, "fg": true, "getopts": true, "hash": true, "jobs": true,
	"kill": true, "local": true, "printf": true, "pwd": true, "read": true, "readonly": true,
	"return": true, "set": true, "shift": true, "test": true, "times": true, "trap": true, "true": true,
	"type": true, "ulimit": true, "umask": true, "unalias": true, "unset": true, "wait": true,
}

// PlainWords returns the words of command when it is a plain command: its
// first word names a program (not a shell word, not an assignment) and it
// holds nothing the shell would interpret (only letters, digits, blanks
// and _ . / : , @ % + = -), so that the shell would merely split it at
// blanks.
func PlainWords(command string) ([]string, bool) {
	for _, c := range command {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.ContainsRune(" \t_./:,@%+=-", c):
		default:
			return nil, false
		}
	}
	words := strings.Fields(command)
	if len(words) == 0 || shellWords[words[0]] || strings.Contains(words[0], "=") {
		return nil, false
	}
	return words, true
}

// ShellScript returns what `sh -c` runs for command: `exec <command>` when
// command is one simple command starting with a program (the shell then
// becomes that program instead of forking it, one process less per
// check), else command unchanged. direct reports the exec.
func ShellScript(command string) (script string, direct bool) {
	c := strings.TrimSpace(command)
	if c == "" || strings.ContainsAny(c, ";&|()<>`\n\r\\") {
		return command, false
	}
	first, _, _ := strings.Cut(c, " ")
	first, _, _ = strings.Cut(first, "\t")
	if shellWords[first] || strings.ContainsAny(first, "=$\"'*?[]{}~#") {
		return command, false
	}
	return "exec " + c, true
}

// seconds formats d in seconds without trailing zeros ("30", "0.5").
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// tokenRE splits a command into shell-ish words (upstream's preflight).
var tokenRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:[^\s"']+|"[^"]*"|'[^']*')+`) })

// assignRE matches a leading VAR=value word.
var assignRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// Program returns the program a command starts, skipping `env` and leading
// VAR=value words, or "" when there is none.
func Program(command string) string {
	for _, tok := range tokenRE().FindAllString(command, -1) {
		tok = strings.TrimPrefix(strings.TrimPrefix(tok, `"`), `'`)
		tok = strings.TrimSuffix(strings.TrimSuffix(tok, `"`), `'`)
		if assignRE().MatchString(tok) && strings.ContainsAny(tok, shellSyntax) {
			// x=$(...) runs a command substitution: its program is the
			// shell's to find, and preflight cannot judge it.
			return tok
		}
		if tok == "env" || assignRE().MatchString(tok) {
			continue
		}
		return tok
	}
	return ""
}

// shellSyntax marks a program word that is shell syntax rather than a name
// (a subshell, a group, an expansion): preflight cannot judge it.
const shellSyntax = "(){}!;|&<>$`\\*?["

// Preflight checks that the program of a plain command (PlainWords: the
// shell would only split it into words) exists: a path (with
// '/' or a leading '.') must be executable, relative to the working
// directory; a name must be known to `sh -c 'command -v <name>'` (which also
// knows builtins and keywords). It returns "" when the job may run, else
// the failure message.
func Preflight(ctx context.Context, job gate.Job, env gate.Env) string {
	cmd := Command(job, env.Diff.BaseBranch)
	prog := Program(cmd)
	if prog == "" {
		return msgUnparseable
	}
	if _, plain := PlainWords(cmd); !plain || strings.ContainsAny(prog, shellSyntax) {
		// The shell's own verdict judges it (MissingProgram): a command
		// with shell syntax may handle a missing program itself
		// (`tool || fallback`), or name one after its first word.
		return ""
	}
	if strings.Contains(prog, "/") || strings.HasPrefix(prog, ".") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(workDir(env, job), filepath.FromSlash(p))
		}
		st, err := os.Stat(p)
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return fmt.Sprintf(msgMissing, prog)
		}
		return ""
	}
	// A program on PATH is known to the shell too: no shell needed.
	if _, err := exec.LookPath(prog); err == nil {
		return ""
	}
	res, err := proc.Run(ctx, proc.Spec{
		Path: Shell, Args: []string{"-c", `command -v -- "$1"`, Shell, prog},
		Dir: env.Root, Stdout: io.Discard, Stderr: io.Discard,
	})
	if err != nil {
		if ctx.Err() != nil {
			return msgCanceled
		}
		return fmt.Sprintf(msgMissing, prog)
	}
	if res.ExitCode != 0 {
		return fmt.Sprintf(msgMissing, prog)
	}
	return ""
}

// PreflightResult writes the log of a job that failed its preflight and
// returns its error result. A program looked up on PATH that is not
// installed is an infrastructure error (gate.Result.Infrastructure):
// nothing the agent can fix in the work tree; a missing script of the
// project (a path) is the change's to fix.
func PreflightResult(job gate.Job, env gate.Env, msg string) gate.Result {
	res := gate.Result{JobID: job.ID, Status: gate.StatusError, Message: msg, ErrorCount: 1, LogPath: LogPath(env, job)}
	prog := Program(Command(job, env.Diff.BaseBranch))
	res.Infrastructure = msg == fmt.Sprintf(msgMissing, prog) && ProgramOfMachine(prog, workDir(env, job), env.Root)
	f, err := openLog(env, job, Command(job, env.Diff.BaseBranch))
	if err != nil {
		res.Message = msg + "; " + err.Error()
		return res
	}
	fmt.Fprintf(f, "%s\n%s\n", PreflightFailed, msg)
	finish(f, job, &res)
	return res
}

// maxOwnLogsScan bounds how much of a failed check's output readOwnLogs
// reads.
const maxOwnLogsScan = 4 << 20

// readOwnLogs reports whether the output of a failed check (out, in log
// f), run in dir, names the project's log directory, as it is seen from
// dir or absolute, and that directory as the message names it (relative
// to dir, with a final slash): the check then most likely read the logs
// of earlier runs, which a command that reads the whole tree finds
// (its own run's are never in the tree while it runs: gate.Env.Pending).
func readOwnLogs(env gate.Env, dir string, out Outcome, f *os.File) (string, bool) {
	if out.Status != gate.StatusFail || out.TimedOut {
		return "", false
	}
	logDir := env.LogDir
	if env.Config != nil {
		logDir = env.Config.LogDirPath()
	}
	names := []string{logDir + string(filepath.Separator)}
	shown := logDir + string(filepath.Separator)
	if rel, err := filepath.Rel(dir, logDir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		shown = filepath.ToSlash(rel) + "/"
		names = append(names, shown)
	}
	data, err := io.ReadAll(io.LimitReader(out.OutputReader(f), maxOwnLogsScan))
	if err != nil {
		return "", false
	}
	for _, n := range names {
		if bytes.Contains(data, []byte(n)) {
			return shown, true
		}
	}
	return "", false
}
