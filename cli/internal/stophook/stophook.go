// Package stophook answers an agent's stop hook: it reads the hook input,
// decides in the order of decide (stophook.go) whether the gauntlet must
// run, runs it in-process through runner.ExecuteRun, and writes exactly one
// line of JSON in the agent's dialect. Only a failed run blocks the agent.
//
// Run never panics and never fails: every surprise becomes an answer that
// lets the agent stop. The fast paths (invalid input, loop guard, no config,
// disabled, lock held, interval not elapsed) read a few small files and
// run no git command.
package stophook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/filelock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// EnvActive, when set (config.StopHookActive), marks a process started by
// the gauntlet itself (its review CLIs): their stop hooks allow, whatever
// the settings.
const EnvActive = config.EnvStopHookActive

// Bounds of one hook invocation.
const (
	// MaxInput is the largest hook input read (1 MiB).
	MaxInput = 1 << 20
	// DefaultStdinTimeout bounds the wait for the hook input.
	DefaultStdinTimeout = 5 * time.Second
	// DefaultAgentTimeout is the agent's hook timeout assumed when the
	// command gives none (no --timeout): the smallest any installer of the
	// gauntlet wrote, the TypeScript tool's 300 s for its `agent-gauntlet
	// stop-hook` entries, so that those hooks answer before Claude Code
	// kills them (deadline 270 s). Installs by this tool pass --timeout.
	DefaultAgentTimeout = 300 * time.Second
)

// DeadlineFor is the hook's own deadline for an agent that kills the hook
// after agentTimeout (DefaultAgentTimeout when 0): a tenth less (540 s for
// Claude Code's 600 s, 270 s for 300 s), at least 5 s less when that leaves
// half, so the answer is written in time.
// The run is cancelled at the deadline and gets Grace(deadline) to stop.
func DeadlineFor(agentTimeout time.Duration) time.Duration {
	if agentTimeout <= 0 {
		agentTimeout = DefaultAgentTimeout
	}
	margin := max(agentTimeout/10, min(5*time.Second, agentTimeout/2))
	return agentTimeout - margin
}

// Grace is how long a run cancelled at deadline may take to stop its gates
// and release its lock before the hook answers without it: a twentieth of
// the deadline (at least a second when the deadline allows), at most 10 s,
// so that deadline plus grace stays within the margin DeadlineFor keeps.
func Grace(deadline time.Duration) time.Duration {
	return min(max(deadline/20, min(time.Second, deadline/2)), 10*time.Second)
}

// Options configure Run. Zero values take the defaults.
type Options struct {
	// Agent selects the dialect; "" detects it from the input.
	Agent hookproto.Agent
	// Stdin is the hook input; Stdout receives the one answer line; Stderr
	// diagnostics.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Cwd is the process working directory, used when the input names none.
	Cwd string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// StdinTimeout bounds the wait for the input (DefaultStdinTimeout).
	StdinTimeout time.Duration
	// AgentTimeout is how long the agent lets the hook run (the command's
	// --timeout); 0 when not said: the deadline then follows the client's
	// default (see limitFor).
	AgentTimeout time.Duration
	// ClientTimeout, when set, stands for the client's default hook
	// timeout (tests).
	ClientTimeout time.Duration
	// Deadline, when set, bounds the whole hook from its start instead of
	// DeadlineFor(AgentTimeout); a run still going then is cancelled and
	// answered as infrastructure_error.
	Deadline time.Duration
	// BeforeRun, when set, is called once the hook has decided to run the
	// gauntlet, before the run starts: the process installs there the
	// signal handlers that it keeps off the fast paths.
	BeforeRun func()
	// Version returns the version that keys the result cache (see
	// runner.Options.Version), asked only when the gauntlet runs; nil runs
	// without the cache.
	Version func() string
	// Fault, when set, is why the hook cannot do its work (its command
	// line does not parse): the answer is an approve with status error
	// saying so, and, like every approve, what is not verified.
	Fault error
}

// deps are the effects of the hook that tests replace.
type deps struct {
	// execute runs the gauntlet.
	execute func(context.Context, runner.Options) runner.RunResult
}

// version is the version that keys the result cache, "" without one.
func (h *hook) version() string {
	if h.o.Version == nil {
		return ""
	}
	return h.o.Version()
}

// realDeps are the real effects.
func realDeps() deps { return deps{execute: runner.ExecuteRun} }

func (o Options) withDefaults() Options {
	if o.Stdin == nil {
		o.Stdin = eofReader{}
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.StdinTimeout <= 0 {
		o.StdinTimeout = DefaultStdinTimeout
	}
	return o
}

type eofReader struct{}

// Read reports the end of input at once.
func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// Outcome is the hook's decision.
type Outcome struct {
	// Agent is the dialect answered in.
	Agent hookproto.Agent
	// Status is the gauntlet status, the one type shared with the runner.
	Status runner.GauntletStatus
	// Message is the human summary (runner.Message(Status, detail)).
	Message string
	// Instructions tell the agent what to do (blocks only).
	Instructions string
	// LogDir is the project's log directory ("" before it is known).
	LogDir string
	// Root is the root of the project judged ("" when none was found):
	// the one Judge finds.
	Root string
	// configErr is the configuration error that kept the run from
	// starting, for decide to judge (see configProblem).
	configErr error
	// debug holds the resolved debug-log settings once known.
	debug config.DebugLog
	// preExisting is true when the run found failures the base branch has
	// too: the message names them, so it is not routine.
	preExisting bool
	// unverified says what an approve without a run leaves unverified
	// when no failure is pending ("" for the work tree as it is now);
	// asPassed is set instead when such an approve is known to answer for
	// the tree as it is (nothing changed since a full pass).
	unverified string
	asPassed   bool
	// noVerdict are the gates of an infrastructure error that reached no
	// verdict (noVerdict): always named as not verified, whatever else is.
	noVerdict []string
	// once is what of unverified the run says once (runner's
	// RunResult.Once): tell hands it to the verdict book (onceNotices).
	once string
	// Pending are the gates that wait to be verified (see tell).
	Pending []string
	// configBlock marks the block of a configuration that does not load
	// (configProblem, brokenWorkTree), or of git's rule files that are not
	// files (ruleFileBlock): the one block the next stop with the loop
	// signal may be let go after (hook.afterConfigBlock).
	configBlock bool
	// told is true when tell added what the answer did not verify, or how
	// the configuration in force stands to the work tree's: nobody may
	// miss it.
	told bool
}

// Block reports whether the outcome keeps the agent working.
func (o Outcome) Block() bool { return runner.IsBlocking(o.Status) }

// Response is the outcome before encoding.
func (o Outcome) Response() hookproto.Response {
	return hookproto.Response{Block: o.Block(), Status: string(o.Status), Message: o.Message,
		Instructions: o.Instructions, Pending: o.Pending,
		Routine: runner.IsRoutine(o.Status) && !o.preExisting && !o.told}
}

// Run answers one stop: it decides, appends the decision to the debug log
// when enabled, and writes exactly one line to Stdout (write errors such as
// a closed stdout are ignored). A panic anywhere becomes status error.
func Run(ctx context.Context, opts Options) Outcome {
	return run(ctx, opts, realDeps())
}

// run is Run with the effects of d.
func run(ctx context.Context, opts Options, d deps) Outcome {
	o := opts.withDefaults()
	h := &hook{o: o, d: d, start: time.Now()}
	out := h.safeDecide(ctx)
	if out.LogDir != "" {
		runner.RecordStopHook(out.LogDir, out.debug, o.Now, decisionWord(out.Block()), string(out.Status))
	}
	fmt.Fprintf(o.Stderr, "agent-gauntlet stop-hook: %s (%s)\n", out.Message, out.Status)
	_, _ = o.Stdout.Write(hookproto.Encode(out.Agent, out.Response()))
	return out
}

func decisionWord(block bool) string {
	if block {
		return "block"
	}
	return "allow"
}

// hook is one invocation.
type hook struct {
	o Options
	d deps
	// start is when the hook began, on the real clock: the deadline is a
	// real-time bound, whatever clock Options.Now injects for the interval.
	start time.Time
	agent hookproto.Agent
	// limit is the deadline, known once the agent is.
	limit limit
	// afterConfigBlock: the input carries the loop signal and this
	// hook's last answer to the session was the block of a configuration
	// that does not load (takeBlock). The loop signal alone also follows
	// another hook's block, a gate's block, or one long past: the stop
	// that a broken configuration's block lets go needs that very block.
	afterConfigBlock bool
	// held release the directories the stop holds open (hold), once it
	// has answered.
	held []func()
}

func (h *hook) warn(format string, args ...any) {
	fmt.Fprintf(h.o.Stderr, "agent-gauntlet stop-hook: warning: "+format+"\n", args...)
}

// answer builds an outcome for status with an optional detail.
func (h *hook) answer(status runner.GauntletStatus, detail string) Outcome {
	return Outcome{Agent: h.agent, Status: status, Message: runner.Message(status, detail)}
}

func (h *hook) safeDecide(ctx context.Context) (out Outcome) {
	h.agent = h.o.Agent
	if h.agent == "" {
		h.agent = hookproto.Claude // until the input says otherwise
	}
	var known facts
	ctx, waits := gitcmd.WithWaits(ctx)
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(h.o.Stderr, "agent-gauntlet stop-hook: panic: %v\n%s", r, debug.Stack())
			out = h.answer(runner.StatusError, fmt.Sprintf("Internal error: %v", r))
			known.site, known.sessionRoot = nil, "" // nothing more is read after a panic
		}
		out = h.tell(ctx, out, &known)
		h.seeSession(known.asked, known.sessionRoot, known.failing)
		out.LogDir, out.debug, out.Root = known.logDir, known.debug, known.judged
		if out.Block() && known.root != "" {
			h.noteBlock(ctx, known.root, known.session, out.configBlock)
		}
		h.noteAnswer(ctx, known.judged, known.asked, out)
		for _, r := range h.held {
			r()
		}
	}()
	out = h.decide(ctx, &known)
	if found := waits.Found(); len(found) > 0 && !known.guarded {
		return h.gitWaitBlock(found)
	}
	return out
}

// facts are what decide found out on the way to its answer, for tell and
// the debug log.
type facts struct {
	// site is the project and the configuration in force, once known.
	site *site
	// logDir is the project's log directory and debug its debug-log
	// settings, once known.
	logDir string
	debug  config.DebugLog
	// settings are the stop hook's settings, once resolved.
	settings *config.StopHook
	// root is the project's root and session the agent session, once
	// known: a block is recorded there for the loop guard (noteBlock).
	root, session string
	// unjudged are the trusted projects in the session's reach that this
	// stop does not judge (trust.Discovery): their pending failures are
	// named, never dropped.
	unjudged []trust.Known
	// left are the gates a session's record kept for the unjudged
	// projects whose verdict books are out of reach (sessionLeft).
	left outOfReach
	// sessionRoot is the root of the project judged, once the stop is
	// one the session's record keeps (seeSession), and failing what its
	// answer leaves failing or dropped there (tell).
	sessionRoot string
	failing     []string
	// judged is the root of the project judged, once found, and asked
	// the session that asked: every answer is recorded there for
	// `agent-gauntlet status` (noteAnswer), the loop guard's too.
	judged, asked string
	// guarded is true when the loop guard answers (guard): what git
	// waited on does not change that answer.
	guarded bool
}

// decide answers in order: the input, the loop guard, the project, its
// settings, a run in progress, the interval, the run. It records what it
// finds in known as soon as it is found.
func (h *hook) decide(ctx context.Context, known *facts) Outcome {
	// 1 and 2. The input, and the loop guard. Reading it has its own
	// bound; the deadline follows the agent it names.
	in, stop := h.input(ctx)
	if stop != nil && h.o.Fault != nil {
		return *h.guard(in) // what made the hook fail comes first
	}
	if stop != nil {
		return *stop
	}
	guard := h.guard(in)
	known.guarded = guard != nil
	h.limit = limitFor(h.o, h.agent)
	ctx, cancel := context.WithDeadline(ctx, h.start.Add(h.limit.deadline))
	defer cancel()
	// A lock of the gauntlet's records held by someone else (the agent,
	// on purpose) is waited for until the deadline at most: the answer
	// never waits on it.
	filelock.SetDeadline(h.start.Add(h.limit.deadline))

	// 3. The session's project and the configuration in force there: the
	// trusted one (the work tree's only when nothing can be trusted),
	// opened once, its settings read now, its gates when a lock is judged,
	// the whole of it by the run it is handed to. The loop guard's answer
	// waits for it too, so that it names what is pending there.
	found, left, where, stop := h.locate(ctx, in)
	known.unjudged, known.left, known.judged, known.asked = found.Unjudged, left, found.Root, in.SessionID
	root := found.Root
	if stop != nil {
		return *cmp.Or(guard, stop)
	}
	if guard == nil {
		known.root, known.session = root, in.SessionID
		h.afterConfigBlock = h.takeBlock(ctx, root, in.SessionID) && in.Continuing
		// Git's own files are looked at before anything runs git: a FIFO
		// there would hold the stop until its deadline.
		if odd := gitFileProblems(root); len(odd) > 0 {
			return h.gitFileBlock(odd)
		}
	}
	s, stop := h.open(ctx, root, where)
	h.hold(ctx, root, "")
	if s != nil {
		s.shadowed = found.Shadowed
		if s.pinned != "" {
			s.pinned += h.pinAside(ctx, root)
		}
	}
	known.site = s
	if guard != nil {
		return *guard // it records nothing (a review CLI's hook runs inside a run)
	}
	watched := false
	if s != nil {
		s.reachChange = h.watchReach(sessionDir(in, h.o), found, in.SessionID)
		h.seeWorkspace(sessionDir(in, h.o), s)
		known.sessionRoot = root
		if where.From == recalledFrom {
			s.reachChange = strings.TrimSpace(recalledNote(where, root) + " " + s.reachChange)
		}
		s.trustChange, watched = h.watchTrust(ctx, s, in.SessionID, nil)
	}
	if stop != nil {
		return *stop
	}
	out := h.gate(ctx, in, s, known)
	if s != nil && !watched {
		// The run made the verdict book: it keeps from now on what this
		// stop ran with, compared with the project's baseline.
		s.trustChange, _ = h.watchTrust(ctx, s, in.SessionID, nil)
	}
	return out
}

// gate answers for the session's project s (steps 4 to 7): its settings,
// a run in progress, the interval, the run.
func (h *hook) gate(ctx context.Context, in hookproto.Input, s *site, known *facts) Outcome {
	cfg, err := s.project.Settings()
	if err != nil {
		if s.source == trust.SourceNone {
			return h.configFailure(ctx, s.root, err)
		}
		if out := h.layoutBlock(ctx, s, err); out != nil {
			return *out
		}
		return h.answer(runner.StatusError, "The trusted configuration does not load: "+config.ErrorText(err))
	}

	// 4. Settings: env > project > global > defaults, resolved once for the
	// hook and its run, in the environment of the work tree.
	eff := config.Resolve(cfg, workTreeEnv(h.o.Getenv))
	for _, w := range eff.Warnings {
		h.warn("%s", w)
	}
	settings := eff.StopHook
	logDir := cfg.LogDirPath()
	h.hold(ctx, s.root, logDir)
	known.logDir, known.debug, known.settings = logDir, eff.DebugLog, &settings
	if in.Continuing && !settings.VerifyOnContinue {
		return h.answer(runner.StatusStopHookActive, "This stop follows a block (the loop signal), and "+
			"stop_hook.verify_on_continue is off ("+h.origin(settings.From.VerifyOnContinue, s, "")+
			"), so the gates did not run.")
	}
	if !settings.Enabled {
		return h.answer(runner.StatusStopHookDisabled, h.disabledDetail(settings, s))
	}

	// 5. Another run in progress. A lock no live run can hold is not: ours
	// whose process is gone (a run killed by SIGKILL leaves it) or whose
	// run's deadline passed, or any lock older than the longest run of the
	// configuration; the run takes it over, with a warning in its console
	// log.
	if lock.Exists(logDir) {
		if info := lock.Inspect(logDir, lockMaxAge(s.project)); info.Held {
			return h.answer(runner.StatusLockExists, info.Message()+
				" If no gauntlet run is in progress, the lock was left or planted: delete it.")
		}
	}

	// Git's rule files are looked at before any git command reads them: a
	// FIFO there would hold the stop until its deadline. What is found
	// blocks once per turn, as a broken configuration does (its block
	// counts as one: configBlock).
	if found := h.ruleFiles(ctx, s); len(found) > 0 {
		if h.afterConfigBlock {
			return h.answer(runner.StatusStopHookActive, "Where git reads its ignore or attribute rules there is "+
				"what is not a file ("+strings.Join(found, ", ")+"), and the stop right after such a block is allowed: "+
				"the gates did not run.")
		}
		return h.ruleFileBlock(found)
	}

	// 6. The run interval, unless failures are pending verification.
	if remaining := h.intervalRemaining(ctx, s.root, logDir, settings.RunIntervalMinutes); remaining > 0 {
		// The approve answers for the tree as it is: the ignore rules in
		// the work tree are listed as a stop that runs the gates lists
		// them (the listing memo makes it free when no directory changed),
		// so that a rule hiding a file is told here too. A listing git
		// cannot make is as if not asked (ignoreRules), without a warning
		// here: the next stop that runs the gates gives it.
		if r := h.rules(ctx, s, true, func(string, ...any) {}); r != nil {
			h.watchTrust(ctx, s, in.SessionID, r)
		}
		out := h.answer(runner.StatusIntervalNotElapsed,
			fmt.Sprintf("Next run in %s (interval %d min). run_interval_minutes is set by %s.", remaining,
				settings.RunIntervalMinutes, h.origin(settings.From.RunIntervalMinutes, s, config.EnvStopHookIntervalMinutes)))
		return h.sinceLastPass(ctx, s, cfg, eff.Base(""), out)
	}

	return h.verify(ctx, in, s, eff, logDir)
}

// verify runs the configuration in force of the session's project s
// (step 7), with the hook's effective settings eff. A work tree's
// configuration that the change broke blocks first: the agent can fix it,
// and no retry budget ends such a loop, so once per turn: the stop right
// after that block runs the trusted gates, which a broken work tree never
// stops (their retry budget ends the loop).
func (h *hook) verify(ctx context.Context, in hookproto.Input, s *site, eff config.Effective, logDir string) Outcome {
	if err := s.workTreeProblem(); err != nil && !h.afterConfigBlock {
		return h.brokenWorkTree(err, s.source)
	}
	start := ""
	if s.source == trust.SourceRecord {
		start = s.trust.StartPoint()
	}
	// The ignore rules in the work tree are listed while the gates run:
	// what a change of them hid from this run is what the answer tells.
	// Its warnings wait for the run: one writer of stderr at a time.
	rules := make(chan *seenRules, 1)
	var warnings []string
	later := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	go func() {
		defer func() {
			if r := recover(); r != nil {
				later("cannot list the ignore rules: %v", r)
				rules <- nil
			}
		}()
		rules <- h.rules(ctx, s, true, later)
	}()
	out := h.run(ctx, s.project, eff, logDir, in.SessionID, start)
	r := <-rules
	for _, w := range warnings {
		h.warn("%s", w)
	}
	if r != nil {
		h.watchTrust(ctx, s, in.SessionID, r)
	}
	if out.configErr != nil {
		if s.source != trust.SourceNone {
			if block := h.layoutBlock(ctx, s, out.configErr); block != nil {
				return *block
			}
		}
		// A configuration broken by the change blocks once per turn: it has
		// no retry budget to end a loop.
		if h.afterConfigBlock {
			return h.answer(runner.StatusStopHookActive, "The configuration does not load, "+
				"and the stop right after such a block is allowed: the gates did not run.")
		}
		if s.source != trust.SourceNone {
			return h.answer(runner.StatusError, config.ErrorText(out.configErr))
		}
		return h.configProblem(ctx, s.root, out.configErr)
	}
	return out
}

// input reads and decodes the hook input (step 1). A non-nil outcome
// answers.
func (h *hook) input(ctx context.Context) (hookproto.Input, *Outcome) {
	stop := func(status runner.GauntletStatus, detail string) (hookproto.Input, *Outcome) {
		out := h.answer(status, detail)
		return hookproto.Input{}, &out
	}
	data, err := readInput(ctx, h.o.Stdin, MaxInput, h.o.StdinTimeout)
	if err != nil {
		return stop(runner.StatusInvalidInput, err.Error())
	}
	agent := h.o.Agent
	if agent == "" {
		agent = hookproto.FromEnv(h.o.Getenv)
	}
	in, err := hookproto.Decode(data, agent)
	if err != nil {
		if h.agent = agent; agent == "" {
			h.agent = hookproto.Detect(data)
		}
		return stop(runner.StatusInvalidInput, decodeProblem(err))
	}
	h.agent = in.Agent
	return in, nil
}

// guard applies the loop guard's first rules (step 2): a hook that cannot
// work (Options.Fault) allows, the gauntlet's own review CLIs always stand
// down, and only a completed turn is verified. A non-nil outcome answers,
// once the project is known (nil: go on).
func (h *hook) guard(in hookproto.Input) *Outcome {
	var out Outcome
	switch {
	case h.o.Fault != nil:
		out = h.answer(runner.StatusError, h.o.Fault.Error())
	case config.StopHookActive(h.o.Getenv):
		out = h.answer(runner.StatusStopHookActive, "Set by the gauntlet for its own review CLIs ("+EnvActive+").")
	case !in.Completed():
		out = h.answer(runner.StatusStopHookDisabled,
			fmt.Sprintf("%s reports the turn ended with status %q; only completed turns are verified.",
				in.Agent.DisplayName(), in.AgentStatus))
	default:
		return nil
	}
	return &out
}

// configProblem answers for a configuration of the project at root that
// does not load (err, as runner.LoadProject returns it): when the change
// broke it (HEAD's loads, or there is no commit yet:
// runner.BrokenByChange) the agent is blocked with the problems as
// instructions, it can fix them; otherwise (broken at HEAD too, or commits
// without one) the stop is allowed with status error.
func (h *hook) configProblem(ctx context.Context, root string, err error) Outcome {
	var errs *config.Errors
	if !errors.As(err, &errs) || !runner.BrokenByChange(ctx, root) {
		return h.answer(runner.StatusError, config.ErrorText(err))
	}
	detail := brokenConfigDetail
	if noCommitYet(ctx, root) {
		detail = uncommittedConfigDetail
	}
	out := h.answer(runner.StatusFailed, detail)
	out.Instructions = ConfigInstructions(config.ErrorText(err))
	out.configBlock = true
	return out
}

// noCommitYet reports whether the repository of the project at root has
// no commit yet (trust.HeadCommit's empty start).
func noCommitYet(ctx context.Context, root string) bool {
	p, err := place.Locate(ctx, root)
	if err != nil {
		return false
	}
	commit, err := trust.HeadCommit(ctx, p)
	return err == nil && commit == trust.EmptyStart
}

// brokenConfigDetail is the message's detail of a configuration the change
// broke.
const brokenConfigDetail = "The .gauntlet/ configuration in the work tree no longer loads; the committed one does."

// uncommittedConfigDetail is the message's detail of a configuration that
// does not load in a repository with no commit yet, where the whole work
// tree is the change.
const uncommittedConfigDetail = "The .gauntlet/ configuration in the work tree does not load; nothing is committed yet, so it is part of the change."

// brokenWorkTree blocks for a work tree's configuration that does not load
// (err) while the trusted one in force, from source, does: the agent's
// change broke it, and its problems are the instructions.
func (h *hook) brokenWorkTree(err error, source trust.Source) Outcome {
	detail := brokenConfigDetail
	if source == trust.SourceRecord {
		detail = "The .gauntlet/ configuration in the work tree no longer loads; the trusted one does."
	}
	out := h.answer(runner.StatusFailed, detail)
	out.Instructions = ConfigInstructions(config.ErrorText(err))
	out.configBlock = true
	return out
}

// absDir is dir made absolute, as it is when that fails.
func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// lockMaxAge is the age past which a lock of the project p is stale
// (runner.LockMaxAge of its whole configuration, its gates read without
// git), 0 when runs are unbounded or the configuration does not load (the
// run will say why).
func lockMaxAge(p *config.Project) time.Duration {
	cfg, err := p.Gates()
	if err != nil {
		return 0
	}
	return runner.LockMaxAge(cfg)
}

// decodeProblem words a hookproto.Decode error for the invalid_input
// message: an empty input and one that is not a JSON object each get their
// own sentence.
func decodeProblem(err error) string {
	switch {
	case errors.Is(err, hookproto.ErrEmpty):
		return "The input is empty: the agent sent nothing on stdin."
	case errors.Is(err, hookproto.ErrNotObject):
		return "The input is not a JSON object."
	}
	return err.Error()
}

// intervalRemaining is the time left before the interval allows a run in
// the project at root, 0 when a run is due (see runner.IntervalRemaining:
// the gauntlet's own records decide, with the execution state).
func (h *hook) intervalRemaining(ctx context.Context, root, logDir string, minutes int) time.Duration {
	remaining, _ := runner.IntervalRemaining(ctx, root, logDir, minutes, h.o.Now())
	return remaining
}

// run executes the gauntlet on the project p with the hook's effective
// settings eff, for the agent session session, under the hook's deadline.
// A run that outlives the deadline gets Grace to stop, then the hook
// answers without it.
func (h *hook) run(ctx context.Context, p *config.Project, eff config.Effective, logDir, session, start string) Outcome {
	root := p.Root
	type result struct {
		res   runner.RunResult
		panic any
		stack []byte
	}
	if h.o.BeforeRun != nil {
		h.o.BeforeRun()
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{panic: r, stack: debug.Stack()}
			}
		}()
		done <- result{res: h.d.execute(ctx, runner.Options{
			Dir: root, Project: p, Settings: &eff, Kinds: runner.KindsAll, Command: "stop-hook", Silent: true,
			Getenv: workTreeEnv(h.o.Getenv), Now: h.o.Now, SessionID: session, Agent: true, Version: h.version(),
			StartPoint: start,
		})}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		select {
		case r = <-done:
		case <-time.After(Grace(h.limit.deadline)):
		}
		out := h.cut(ctx, logDir)
		out.noVerdict = unfinished(r.res.Gates)
		return out
	}
	if r.panic != nil {
		fmt.Fprintf(h.o.Stderr, "agent-gauntlet stop-hook: panic in the run: %v\n%s", r.panic, r.stack)
		return h.answer(runner.StatusError, fmt.Sprintf("Internal error in the run: %v", r.panic))
	}
	if ctx.Err() != nil {
		return h.cut(ctx, logDir)
	}
	return h.fromRun(r.res, root, logDir)
}

// cut answers a run the deadline or a signal ended: the agent may stop,
// unverified. Where the client shows no one the message of an allow
// (hookproto.AllowTells), it is also left for the next session's start
// hook to tell (TakeNotice).
func (h *hook) cut(ctx context.Context, logDir string) Outcome {
	detail := h.deadlineDetail(ctx)
	if !hookproto.AllowTells(h.agent) {
		leaveNotice(logDir, "The last stop was let through unverified: "+detail)
	}
	return h.answer(runner.StatusInfrastructureError, detail)
}

// ciVars are the environment variables that put a run in CI mode (see
// config.IsCI), or steer its changes in that mode.
var ciVars = []string{config.EnvCI, config.EnvGitHubActions, config.EnvGitHubBaseRef, config.EnvGitHubSHA}

// workTreeEnv is getenv without the CI variables: the stop hook judges the
// work tree an agent leaves (its uncommitted and untracked changes, the
// gates that run locally), even when the agent works where CI=true or
// GITHUB_ACTIONS=true, where a run would compare commits only and approve
// a failing change not committed yet.
func workTreeEnv(getenv func(string) string) func(string) string {
	return func(k string) string {
		if slices.Contains(ciVars, k) {
			return ""
		}
		return getenv(k)
	}
}

func (h *hook) deadlineDetail(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return h.limit.missed(h.agent)
	}
	return "The stop hook was interrupted."
}

// fromRun turns the run's result into the outcome: its status unchanged.
func (h *hook) fromRun(res runner.RunResult, root, logDir string) Outcome {
	status := res.Status
	if !slices.Contains(runner.AllStatuses, status) {
		return h.answer(runner.StatusError, fmt.Sprintf("The run returned an unknown status %q.", status))
	}
	detail := res.Detail()
	if res.ConfigErr != nil {
		detail = config.ErrorText(res.ConfigErr)
	}
	if status == runner.StatusPassedWithWarnings && res.Skipped > 0 {
		// Skipped is the agent's word, not a verification: say how much.
		detail = strings.TrimSpace(detail + fmt.Sprintf(" The agent skipped %d review violation(s) instead of "+
			"fixing them (agent-gauntlet status lists each with its reason).", res.Skipped))
	}
	out := h.answer(status, detail)
	out.Message = res.Headline(detail)
	var errs *config.Errors
	if errors.As(res.ConfigErr, &errs) {
		out.configErr = res.ConfigErr
	}
	out.preExisting = res.PreExisting > 0
	out.unverified, out.once = res.Unverified, res.Once
	if status == runner.StatusInfrastructureError {
		out.noVerdict = noVerdict(res.Gates)
	}
	if status == runner.StatusNoApplicableGates && res.ErrorMessage != "" {
		// Gates that applied but could not run (see runner's noGates).
		out.unverified = strings.TrimPrefix(out.unverified+"; "+res.ErrorMessage, "; ")
	}
	switch {
	case out.Block() && res.GatesRun == 0 && res.ErrorMessage != "":
		out.Instructions = WorkTreeInstructions(res.ErrorMessage)
	case out.Block():
		out.Instructions = BlockReason(consoleLogPath(res.ConsoleLogPath, root, logDir), res.Gates)
	}
	return out
}

// consoleLogPath is the run's console log made absolute, else the latest in
// the log directory, else "".
func consoleLogPath(p, root, logDir string) string {
	if p == "" {
		latest, err := logdir.LatestConsoleLog(logDir)
		if err != nil {
			return ""
		}
		p = latest
	}
	if p != "" && !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	return p
}
