package check

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/proc"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
)

// MaxScriptBytes bounds the command line of one batch: the `sh -c` script
// with ${CHANGED_FILES} replaced. Linux refuses any single argument longer
// than 131,072 bytes (MAX_ARG_STRLEN, 32 pages) whatever ARG_MAX says, and
// the script is one argument; the program the script then starts gets the
// files as separate arguments, far below ARG_MAX (2 MiB on Linux, 1 MiB on
// macOS) with any ordinary environment. 100,000 bytes leaves room for the
// shell's own additions.
const MaxScriptBytes = 100_000

// Exec is one execution of a check's command over a list of files, split
// into batches that each fit on a command line.
type Exec struct {
	// Command is the command with ${BASE_BRANCH} replaced (see Command).
	Command string
	// Dir is the absolute working directory.
	Dir string
	// Env is the command's environment (the file list's variable is added).
	Env []string
	// Files are the files, relative to Dir (see RelFiles). Nil: no list
	// (${CHANGED_FILES} becomes nothing and GAUNTLET_CHANGED_FILES_FILE is
	// not set).
	Files []string
	// Timeout bounds all the batches together (0: none).
	Timeout time.Duration
	// Log receives every batch's output (and a line between batches).
	Log *os.File
	// MaxScript overrides MaxScriptBytes when positive (tests).
	MaxScript int
	// Temp is where the gauntlet's own temporary files of the command go
	// when not "" (gate.Env.Pending: outside the work tree the command
	// reads); else tempDir.
	Temp string
}

// Span is a byte range of the log: what one batch printed.
type Span struct{ Off, Len int64 }

// Outcome is what an Exec did.
type Outcome struct {
	Status  gate.Status
	Message string
	// ExitCode is the first non-zero exit code of a batch (128+n for a
	// signal), 0 when every batch passed, -1 when no batch ended by
	// itself.
	ExitCode int
	// TimedOut is true when the timeout ended the command.
	TimedOut bool
	// Batches is how many batches ran.
	Batches int
	// Output are the parts of the log the command wrote.
	Output []Span
	// FailedPart and Unreached tell, for a command that is a chain
	// (ParseChain), the part that failed and the parts after it that
	// never ran (none when the last part failed).
	FailedPart string
	Unreached  []string
	// Infrastructure is true when the command could not run for want of
	// the gauntlet's own files (the changed-files list, the chain's
	// marks): see gate.Result.Infrastructure.
	Infrastructure bool
}

// OutputReader reads back what the command printed, every batch in order,
// from the log at f.
func (o Outcome) OutputReader(f io.ReaderAt) io.Reader {
	rs := make([]io.Reader, 0, len(o.Output))
	for _, s := range o.Output {
		rs = append(rs, io.NewSectionReader(f, s.Off, s.Len))
	}
	return io.MultiReader(rs...)
}

// Run runs the batches one after another, each with its output appended to
// the log, until one is canceled or times out. The command fails when any
// batch fails.
func (x Exec) Run(ctx context.Context) Outcome {
	batches := Batches(x.Command, x.Files, x.maxScript())
	out := Outcome{Status: gate.StatusPass, Message: msgPassed, ExitCode: -1}
	var deadline time.Time
	if x.Timeout > 0 {
		deadline = time.Now().Add(x.Timeout)
	}
	list, listName, cleanup, err := x.listFile(ctx)
	if err != nil {
		out.Status, out.Message, out.Infrastructure = gate.StatusError, err.Error(), true
		return out
	}
	defer cleanup()
	command, baseEnv := x.Command, x.Env
	chain, chained := ParseChain(x.Command)
	var marks *os.File
	var marksName string
	if chained {
		var err error
		marks, marksName, err = scratchFile(x.tempDir(ctx), "chain-")
		if err != nil {
			out.Status, out.Message = gate.StatusError, fmt.Sprintf("create the chain's marks file: %v", err)
			out.Infrastructure = true
			return out
		}
		defer func() { marks.Close(); os.Remove(owned.Via(marksName)) }()
		command = chain.script()
		baseEnv = append(baseEnv[:len(baseEnv):len(baseEnv)], EnvChainFile+"="+marksName)
	}
	for i, b := range batches {
		if len(batches) > 1 {
			x.separator(i, len(batches), len(b))
		}
		timeout := time.Duration(0)
		if !deadline.IsZero() {
			if timeout = time.Until(deadline); timeout <= 0 {
				out.Status, out.Message, out.TimedOut = gate.StatusFail, fmt.Sprintf(msgTimedOut, seconds(x.Timeout)), true
				break
			}
		}
		env := baseEnv
		if marks != nil {
			_ = marks.Truncate(0)
		}
		if list != nil {
			if err := writeList(list, b); err != nil {
				out.Status, out.Message, out.Infrastructure = gate.StatusError, err.Error(), true
				break
			}
			env = append(env[:len(env):len(env)], config.EnvChangedFilesFile+"="+listName)
		}
		start := logSize(x.Log)
		st, msg, code, to := runScript(ctx, Replace(command, b), proc.Spec{Dir: x.Dir, Env: env,
			Stdout: x.Log, Stderr: x.Log, Timeout: timeout})
		if chained && st == gate.StatusFail && !to && out.Unreached == nil {
			if k := reached(owned.Via(marksName)); k < len(chain)-1 {
				out.FailedPart, out.Unreached = chain[k], chain[k+1:]
			}
		}
		out.Output = append(out.Output, Span{Off: start, Len: logSize(x.Log) - start})
		out.Batches++
		if to {
			// The message names the check's whole timeout, which the
			// batches share.
			msg = fmt.Sprintf(msgTimedOut, seconds(x.Timeout))
		}
		if code > 0 && out.ExitCode <= 0 {
			out.ExitCode = code
		} else if code == 0 && out.ExitCode < 0 {
			out.ExitCode = 0
		}
		if st != gate.StatusPass && !out.Status.Failed() || st == gate.StatusError {
			out.Status, out.Message = st, msg
		}
		if to || st == gate.StatusError {
			out.TimedOut = to
			break
		}
	}
	return out
}

func (x Exec) maxScript() int {
	if x.MaxScript > 0 {
		return x.MaxScript
	}
	return MaxScriptBytes
}

// separator writes the line that opens batch i (from 0) of n in the log,
// on a line of its own.
func (x Exec) separator(i, n, files int) {
	if sz := logSize(x.Log); sz > 0 {
		var last [1]byte
		if _, err := x.Log.ReadAt(last[:], sz-1); err == nil && last[0] != '\n' {
			_, _ = x.Log.WriteString("\n")
		}
	}
	fmt.Fprintf(x.Log, "--- Batch %d of %d (%d files) ---\n", i+1, n, files)
}

// tempDir is where the gauntlet's own temporary files of the command go
// (the changed-files list, a chain's marks): the run's scratch directory
// (procgroup.OpenScratch, which ctx carries), which every run must be able
// to write (and which the next run empties should this one be killed
// outright: procgroup.Reap), never TMPDIR, which may be missing,
// read-only or full without the change being the cause; "" (the
// system's) outside a run.
func tempDir(ctx context.Context) string { return procgroup.Scratch(ctx) }

// tempDir is x.Temp, else the run's scratch directory (tempDir).
func (x Exec) tempDir(ctx context.Context) string {
	if x.Temp != "" {
		return x.Temp
	}
	return tempDir(ctx)
}

// listFile creates the file GAUNTLET_CHANGED_FILES_FILE names, in the
// run's scratch directory (tempDir; nil when Exec has no file list): the
// file, its name (scratchFile) and its cleanup.
func (x Exec) listFile(ctx context.Context) (*os.File, string, func(), error) {
	if x.Files == nil {
		return nil, "", func() {}, nil
	}
	f, name, err := scratchFile(x.tempDir(ctx), "files-")
	if err != nil {
		return nil, "", nil, fmt.Errorf("create the changed-files list: %w", err)
	}
	return f, name, func() {
		f.Close()
		os.Remove(owned.Via(name))
	}, nil
}

// scratchFile makes a new file in dir ("": the system's temporary
// directory) through the directory held open when dir is below one (the
// run holds its scratch directory, owned.Hold), so that nothing made in
// its place leads it elsewhere: the file, and its name as the command is
// given it (below dir; owned.Via of it is ours to read and remove).
func scratchFile(dir, pattern string) (*os.File, string, error) {
	if dir == "" {
		f, err := os.CreateTemp("", pattern)
		if err != nil {
			return nil, "", err
		}
		return f, f.Name(), nil
	}
	f, err := os.CreateTemp(owned.Via(dir), pattern)
	if err != nil {
		return nil, "", owned.Unvia(err)
	}
	return f, filepath.Join(dir, filepath.Base(f.Name())), nil
}

// writeList replaces the content of the list file with files, each
// followed by a NUL byte.
func writeList(f *os.File, files []string) error {
	var b strings.Builder
	for _, p := range files {
		b.WriteString(p)
		b.WriteByte(0)
	}
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("write the changed-files list: %w", err)
	}
	if _, err := f.WriteAt([]byte(b.String()), 0); err != nil {
		return fmt.Errorf("write the changed-files list: %w", err)
	}
	return nil
}

// logSize is the log's current size (where the next write lands: the log
// is opened for appending).
func logSize(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

// outsideSignals, by name, are the signals that end a process from
// outside (SIGTERM, SIGINT, SIGHUP), as opposed to a fault of its own
// (SIGSEGV, SIGABRT, SIGBUS: a crash) or SIGKILL (the OOM killer's).
// agent-gauntlet sends none of them to a check: its deadline and its
// cancellation kill the group with SIGKILL and say so (timed out,
// canceled). So one that ended a check came from the command itself, a
// process it started (a test that kills itself when it fails), or a person
// or the system aiming at the check alone: the check's failure, named.
// When agent-gauntlet received an ending signal too, the run is canceled
// (endedWithUs).
var outsideSignals = map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP"}

// signalGrace is how long a check that an outside signal ended waits for
// agent-gauntlet's own context to end too: a signal sent to both (a
// shutdown, a person's kill of every process) may reach the check first.
const signalGrace = 250 * time.Millisecond

// endedWithUs reports whether ctx ends within signalGrace: agent-gauntlet
// received an ending signal (or was canceled) as the check died of one.
func endedWithUs(ctx context.Context) bool {
	t := time.NewTimer(signalGrace)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return true
	case <-t.C:
		return false
	}
}

// runScript runs one command line: directly when it is a plain command,
// else with `sh -c`, and classifies the end: status, message, exit code
// (128+n for a signal, -1 when it did not end by itself) and whether it
// timed out.
func runScript(ctx context.Context, cmd string, spec proc.Spec) (gate.Status, string, int, bool) {
	var pres proc.Result
	var err error
	// A plain command runs without the shell, which would only split it
	// into words; anything else runs as `sh -c`, exec'ing a simple
	// command. Either way one process instead of two.
	direct := false
	if argv, ok := PlainWords(cmd); ok {
		spec.Path, spec.Args = argv[0], argv[1:]
		pres, err = proc.Run(ctx, spec)
		direct = pres.Started
	}
	if !direct {
		// Not plain, or it did not start (a script without #!, say): the
		// shell deals with it as it always would.
		script, simple := ShellScript(cmd)
		spec.Path, spec.Args = Shell, []string{"-c", script}
		pres, err = proc.Run(ctx, spec)
		direct = simple
	}
	switch {
	case pres.TimedOut:
		return gate.StatusFail, fmt.Sprintf(msgTimedOut, seconds(spec.Timeout)), -1, true
	case pres.Canceled:
		return gate.StatusError, msgCanceled, -1, false
	case err != nil:
		return gate.StatusError, err.Error(), -1, false
	case pres.ExitCode == 0:
		return gate.StatusPass, msgPassed, 0, false
	case pres.ExitCode > 0:
		return gate.StatusFail, fmt.Sprintf(msgExited, pres.ExitCode), pres.ExitCode, false
	case outsideSignals[pres.Signal] != "" && endedWithUs(ctx):
		return gate.StatusError, msgCanceled, -1, false
	case outsideSignals[pres.Signal] != "":
		// Not sent by agent-gauntlet (its timeout and cancellation are
		// above): the check's failure, as the shell would report it.
		return gate.StatusFail, fmt.Sprintf(msgKilled, outsideSignals[pres.Signal]), 128 + int(pres.Signal), false
	case direct && pres.Signal > 0:
		// The shell would have said 128+N for its child killed by signal N.
		code := 128 + int(pres.Signal)
		return gate.StatusFail, fmt.Sprintf(msgExited, code), code, false
	}
	return gate.StatusFail, msgSignaled, -1, false
}

// Batches splits files into the batches of command: one batch of every
// file when the command does not name ${CHANGED_FILES}; otherwise
// consecutive runs of files, as many per batch as keep the command, with
// every ${CHANGED_FILES} replaced, within maxScript bytes (at least one
// each). No file gives one empty batch.
func Batches(command string, files []string, maxScript int) [][]string {
	n := strings.Count(command, config.ChangedFilesPlaceholder)
	if n == 0 || len(files) == 0 {
		return [][]string{files}
	}
	fixed := len(command) - n*len(config.ChangedFilesPlaceholder)
	var batches [][]string
	start, size := 0, fixed
	for i, f := range files {
		word := len(Quote(f))
		if i > start {
			word++ // the blank before it
		}
		if i > start && size+n*word > maxScript {
			batches = append(batches, files[start:i])
			start, size = i, fixed
			word = len(Quote(f))
		}
		size += n * word
	}
	return append(batches, files[start:])
}

// Replace returns command with every ${CHANGED_FILES} replaced by files,
// each one shell word (Quote), separated by blanks.
func Replace(command string, files []string) string {
	if !strings.Contains(command, config.ChangedFilesPlaceholder) {
		return command
	}
	words := make([]string, len(files))
	for i, f := range files {
		words[i] = Quote(f)
	}
	return strings.ReplaceAll(command, config.ChangedFilesPlaceholder, strings.Join(words, " "))
}

// Quote makes p one shell word that the shell reads back as p: as it is
// when it only holds characters the shell gives no meaning, else in single
// quotes, each single quote inside closing the quotes, escaped, and opening
// them again. Newlines, $, backquotes and the like stay data.
func Quote(p string) string {
	if p != "" && PlainWord(p) {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// PlainWord reports whether s holds only letters, digits and _ . / : , @
// % + = - (the characters PlainWords accepts).
func PlainWord(s string) bool {
	for _, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.ContainsRune("_./:,@%+=-", c):
		default:
			return false
		}
	}
	return true
}

// GivenFiles are the files of job's list (relative to the project root)
// as its command receives them (RelFiles): nil, no list at all, for a check
// that is not scoped to the changed files (config.Check.Scoped: its
// command names neither ${CHANGED_FILES} nor GAUNTLET_CHANGED_FILES_FILE,
// and it has no glob). Such a check reads the tree, never the list, so
// its cached pass (keyed by the tree) holds whatever the list would be.
func GivenFiles(job gate.Job, files []string) []string {
	if job.Check == nil || !job.Check.Scoped() {
		return nil
	}
	return RelFiles(job.WorkingDir, files)
}

// RelFiles turns files relative to the project root (slash-separated)
// into paths relative to the working directory wd (also relative to the
// root): "../" climbs out of wd when needed, and a path that would start
// with '-' gets "./" so that no program reads it as an option.
func RelFiles(wd string, files []string) []string {
	if files == nil {
		return nil
	}
	base := path.Clean(wd)
	out := make([]string, 0, len(files))
	for _, f := range files {
		rel := relSlash(base, f)
		if strings.HasPrefix(rel, "-") {
			rel = "./" + rel
		}
		out = append(out, rel)
	}
	return out
}

// relSlash is f relative to dir, both slash-separated and relative to the
// same root.
func relSlash(dir, f string) string {
	if dir == "." || dir == "" {
		return f
	}
	if rest, ok := strings.CutPrefix(f, dir+"/"); ok {
		return rest
	}
	// Climb out of dir until f is below what is left.
	up, d := "", dir
	for d != "." && d != "/" && d != "" {
		up += "../"
		d = path.Dir(d)
		if d == "." {
			return up + f
		}
		if rest, ok := strings.CutPrefix(f, d+"/"); ok {
			return up + rest
		}
	}
	return up + f
}

// RelPath is the root-relative, slash-separated file f relative to the
// working directory wd (also root-relative), "../" climbing out of it.
func RelPath(wd, f string) string { return relSlash(path.Clean(wd), f) }
