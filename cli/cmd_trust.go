package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stophook"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// TrustCmd is `agent-gauntlet trust`: it records the work tree's .gauntlet/
// as the project's trusted configuration, the gates the stop hook runs
// whatever the work tree's .gauntlet/ later says. It shows what changes
// relative to the trusted configuration and asks for confirmation on a
// terminal; without one it needs --yes.
type TrustCmd struct {
	Yes bool `short:"y" help:"Trust without asking. Needed when no terminal can confirm (an agent's shell, a script)."`
}

// trustDiffLines bounds the diff lines shown per file.
const trustDiffLines = 40

// msgTrustNeedsTerminal is the error of trust without a terminal and
// without --yes.
const msgTrustNeedsTerminal = "trust: no terminal to confirm on; run it in a terminal, or pass --yes to trust without asking"

// Run executes the command.
func (c *TrustCmd) Run(env *Env) error {
	root, ok, err := trust.FindRoot(env.Ctx, env.Cwd)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if !ok {
		return usageError(fmt.Errorf("trust: %w", &config.NotFoundError{Dir: env.Cwd}))
	}
	pl, err := place.Locate(env.Ctx, root)
	if errors.Is(err, place.ErrNoRepository) {
		return usageError(fmt.Errorf("trust: %s is not in a git work tree: the trusted configuration is kept in the repository's git directory", runner.SafeText(root)))
	}
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	work, err := config.ReadFiles(root)
	if err != nil {
		return configError(env.Stderr, err)
	}
	// Exactly the files that will be recorded must load, unless they hold
	// no config.yml: then they are a configuration without gates.
	if _, err := config.LoadFiles(env.Ctx, root, work); err != nil && !errors.Is(err, config.ErrNotFound) {
		return configError(env.Stderr, err)
	}
	trusted, err := trust.Resolve(env.Ctx, pl)
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	diff := trust.Compare(trusted.Files, work)
	if trusted.Source == trust.SourceRecord && diff.Empty() {
		fmt.Fprintf(env.Stdout, "The configuration of %s is already the trusted one (%s, %s).\n", runner.SafeText(root),
			trusted.Record.How.Describe(), trusted.Record.TrustedAt.Local().Format(time.RFC3339))
		return nil
	}
	noteJudgedNow(env, root)
	showTrustChange(env.Stdout, root, trusted, work, diff)
	how := trust.HowYes
	if !c.Yes {
		if !isTerminal(env.Stdin) {
			return usageError(errors.New(msgTrustNeedsTerminal))
		}
		yes, err := confirm(env.Ctx, env.Stdin, env.Stdout, "Trust this configuration")
		if err != nil {
			return initError(env.Ctx, err)
		}
		if !yes {
			return errors.New("trust: not confirmed; nothing was recorded")
		}
		how = trust.HowTerminal
	}
	if err := stophook.RecordTrust(env.Ctx, pl, how, work, env.Getenv, time.Now()); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	startLogRecord(env, root, work)
	if !hasGates(work) {
		fmt.Fprintf(env.Stdout, "Trusted: %s has no gates now; the stop hook runs none.\n", runner.SafeText(root))
		return nil
	}
	fmt.Fprintf(env.Stdout, "Trusted: the stop hook runs the gates of these %d file(s) in %s.\n", len(work), runner.SafeText(root))
	warnLeftOut(env.Stderr, work)
	return nil
}

// hasGates reports whether work (config.ReadFiles) holds a configuration:
// its config.yml. Other files of .gauntlet/ alone run no gates.
func hasGates(work config.Files) bool {
	_, ok := work[config.Dir+"/"+config.ProjectFile]
	return ok
}

// noteJudgedNow says, when a stop hook whose session is in the working
// directory judges another project than root (the one trust adopts: a
// trusted project nearby wins over root's configuration while nobody
// trusted it), which one it judges now and that trusting root changes it.
func noteJudgedNow(env *Env, root string) {
	j, err := stophook.Judge(env.Ctx, env.Cwd, env.Getenv, time.Now())
	if err != nil || j.Root == "" || j.Root == root {
		return
	}
	fmt.Fprintf(env.Stdout, "From here the stop hook now judges the trusted project %s, not %s; "+
		"once %s is trusted, a session here judges it instead.\n",
		runner.SafeText(j.Root), runner.SafeText(root), runner.SafeText(root))
}

// warnLeftOut names the files of .gauntlet/ a trusted copy holds only as
// their size and digest (past its bounds): an edit of one is still told,
// but the trusted version cannot be shown or restored.
func warnLeftOut(w io.Writer, files config.Files) {
	var left []string
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if config.IsLeftOut(files[p]) {
			left = append(left, runner.SafeText(p))
		}
	}
	if len(left) == 0 {
		return
	}
	shown := left[:min(len(left), 5)]
	more := ""
	if len(left) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(left)-len(shown))
	}
	fmt.Fprintf(w, "warning: %d file(s) of .gauntlet/ are past the trusted copy's bounds (%s): recorded by size and SHA-256 only, "+
		"so an edit of one is told but its trusted content cannot be shown: %s%s\n", len(left), config.OtherBounds, strings.Join(shown, ", "), more)
}

// showTrustChange prints what trusting work changes: where the trusted
// configuration comes from now, then each differing file's diff.
func showTrustChange(w io.Writer, root string, trusted trust.Trusted, work config.Files, diff trust.Diff) {
	if trusted.Unusable != nil {
		fmt.Fprintf(w, "The trusted configuration record cannot be used (%v); trusting replaces it.\n", trusted.Unusable)
	}
	switch trusted.Source {
	case trust.SourceRecord:
		fmt.Fprintf(w, "The configuration of %s differs from the trusted one (%s, %s): %s.\n", runner.SafeText(root),
			trusted.Record.How.Describe(), trusted.Record.TrustedAt.Local().Format(time.RFC3339), diff)
	case trust.SourceHEAD:
		fmt.Fprintf(w, "No configuration of %s is recorded as trusted; the stop hook trusts the one committed at HEAD (%s).\n",
			runner.SafeText(root), trusted.Commit)
		if diff.Empty() {
			fmt.Fprintln(w, "The work tree's configuration is that one.")
		} else {
			fmt.Fprintf(w, "The work tree's configuration differs from it: %s.\n", diff)
		}
	default:
		fmt.Fprintf(w, "No configuration of %s is trusted yet.\n", runner.SafeText(root))
	}
	if !hasGates(work) {
		fmt.Fprintln(w, "The work tree has no .gauntlet/ configuration: trusting that means the stop hook runs no gates for this project.")
	}
	for _, group := range [][]string{diff.Changed, diff.Removed, diff.Added} {
		for _, path := range group {
			for _, line := range trust.TextDiff(path, trusted.Files[path], work[path], trustDiffLines) {
				fmt.Fprintln(w, line)
			}
		}
	}
}

// isTerminal reports whether r is a terminal a person can answer on.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// confirm asks a yes/no question (no by default, and at the end of the
// input) and reports the answer.
func confirm(ctx context.Context, in io.Reader, out io.Writer, question string) (bool, error) {
	p := newPrompter(ctx, in, out, true)
	defer p.close()
	answer, err := p.choose(question, []string{"yes", "no"}, "no")
	return answer == "yes", err
}

// trustWritten records the configuration init just wrote in root as the
// project's trusted one, and says so (or why not).
func trustWritten(env *Env, root string) {
	pl, err := place.Locate(env.Ctx, root)
	if errors.Is(err, place.ErrNoRepository) {
		fmt.Fprintf(env.Stdout, "Not trusted yet: %s is not in a git work tree; run `agent-gauntlet trust` once it is.\n", runner.SafeText(root))
		return
	}
	var files config.Files
	if err == nil {
		files, err = config.ReadFiles(root)
	}
	if err == nil {
		err = stophook.RecordTrust(env.Ctx, pl, trust.HowInit, files, env.Getenv, time.Now())
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: the configuration was written but not trusted (%v); run `agent-gauntlet trust`\n", err)
		return
	}
	startLogRecord(env, root, files)
	fmt.Fprintln(env.Stdout, "Trusted the written configuration: the stop hook runs these gates; `agent-gauntlet trust` adopts later changes.")
}

// trustLine says whether the work tree's configuration of the project at
// root is the trusted one, in one line for validate and status ("" with
// the error when that cannot be told).
func trustLine(ctx context.Context, root string) (*trust.Status, string) {
	st, _, err := trust.Inspect(ctx, root)
	switch {
	case errors.Is(err, place.ErrNoRepository):
		return nil, "Trust: not in a git work tree, so no configuration can be trusted; the stop hook runs the work tree's."
	case err != nil:
		return nil, fmt.Sprintf("Trust: cannot tell whether the configuration is the trusted one: %v", err)
	}
	return &st, "Trust: " + st.Describe()
}

// noteDeletedConfig tells, when err says the work tree has no
// configuration, that the project's trusted one still applies (its
// .gauntlet/ was deleted): a deleted configuration is a changed one; or
// that the trusted records cannot be read, so that one may apply.
func noteDeletedConfig(env *Env, err error) {
	if !errors.Is(err, config.ErrNotFound) {
		return
	}
	root, ok, ferr := trust.FindRoot(env.Ctx, env.Cwd)
	if errors.Is(ferr, trust.ErrUnusable) {
		fmt.Fprintf(env.Stderr, "warning: %v\n", ferr)
		return
	}
	if ferr != nil || !ok {
		return
	}
	// Trusted as it is (no gates, removed on purpose): nothing to say.
	if st, line := trustLine(env.Ctx, root); st == nil || !st.Trusted {
		fmt.Fprintf(env.Stderr, "%s (project %s)\n", line, runner.SafeText(root))
	}
}

// warnUntrusted says in one warning line when the configuration a command
// run by hand uses (the work tree's) is not the trusted one the stop hook
// runs: which files differ, and that agent-gauntlet trust adopts them.
func warnUntrusted(env *Env) {
	if st, differs := untrusted(env); differs {
		fmt.Fprintf(env.Stderr, "warning: %s\n", st.Describe())
	}
}

// untrusted reports whether the configuration a command run by hand uses
// (the work tree's) is not the trusted one the stop hook runs, with how
// they stand. It is false when the two are the same: a trusted
// configuration, or nothing to trust yet (no record, no commit: the stop
// hook runs the work tree's too), outside a git work tree, or when git
// cannot tell. A record that cannot be read is never "nothing to trust".
func untrusted(env *Env) (trust.Status, bool) {
	st := handTrust(env)
	return st.status, st.differs
}

// handStanding is how the configuration a command run by hand uses (the
// work tree's) stands to trust.
type handStanding struct {
	// status and differs are what untrusted reports.
	status  trust.Status
	differs bool
	// nobody says that no one trusted any configuration of the project
	// (no record, and none committed at HEAD stands in), or that this
	// cannot be told: the stop hook runs the work tree's, saying so, and
	// takes no run by hand of it as a full pass (runner.Options
	// NobodyTrusted).
	nobody bool
}

// handTrust tells how the configuration a command run by hand uses stands
// to trust (handStanding), with one look at the trust record and HEAD.
func handTrust(env *Env) handStanding {
	root, ok, err := trust.FindRoot(env.Ctx, env.Cwd)
	if errors.Is(err, trust.ErrUnusable) {
		return handStanding{status: trust.Status{Source: trust.SourceNone, Unusable: err.Error()}, differs: true, nobody: true}
	}
	if err != nil || !ok {
		return handStanding{nobody: true}
	}
	st, _, err := trust.Inspect(env.Ctx, root)
	switch {
	case err != nil || st.Source == trust.SourceNone && st.Unusable == "":
		return handStanding{nobody: true}
	case st.Source == trust.SourceNone:
		return handStanding{status: st, differs: true, nobody: true}
	case st.Trusted && st.Unusable == "":
		return handStanding{}
	}
	return handStanding{status: st, differs: true}
}

// startLogRecord starts the record of the files the gauntlet writes in the
// log directory of the trusted configuration files at root: from now on
// a file there is the gauntlet's only when it wrote it (see
// logdir.Start). Best effort: without it, the first file the gauntlet
// writes there starts it.
func startLogRecord(env *Env, root string, files config.Files) {
	if len(files) == 0 {
		return
	}
	if cfg, err := config.LoadFiles(env.Ctx, root, files); err == nil {
		_ = logdir.Start(cfg.LogDirPath())
	}
}
