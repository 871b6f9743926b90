// Package install writes the gauntlet's stop hook into each agent's project
// settings, merging into the JSON already there, and reports where it is
// installed.
//
// A file that is not valid JSON (or whose hook section has an unexpected
// shape) is never rewritten: Install returns an error naming it and leaves
// it untouched. An existing gauntlet hook is never added twice.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/hookcmd"
	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/jsonc"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/jsonobj"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// claudeLocalSettings is Claude Code's per-user project settings file, where
// the TypeScript agent-gauntlet installed its hook.
var claudeLocalSettings = filepath.Join(".claude", "settings.local.json")

// Program is the command the hooks run.
const Program = "agent-gauntlet"

// Hook is the gauntlet command an installed hook runs.
type Hook string

// The gauntlet's hooks.
const (
	// StopHook answers an agent that wants to stop.
	StopHook Hook = "stop-hook"
	// StartHook tells a new agent session what is pending.
	StartHook Hook = "start-hook"
)

// hookCommand is what every installed stop-hook command starts with; any
// entry holding it is the gauntlet's (whatever its flags).
const hookCommand = Program + " " + string(StopHook)

// StartTimeoutSeconds is the timeout written for the session-start hook,
// which answers in milliseconds (it runs no git command and no gate).
const StartTimeoutSeconds = 30

// DefaultTimeoutSeconds is the hook timeout written for every agent: Claude
// Code's own default (600 s). The stop hook keeps its own deadline below it
// (see stophook.DeadlineFor).
const DefaultTimeoutSeconds = 600

// DefaultCursorLoopLimit bounds Cursor's automatic follow-ups. It is above
// the runs the default retry limit allows (max_retries 3 + 1), so the
// gauntlet's retry limit, not Cursor, ends a failing loop.
const DefaultCursorLoopLimit = 5

// Spec is where and how one agent's hook is configured in a project: the
// agent's row of hookproto.Dialects, for one of its hook events.
type Spec struct {
	// Agent is the agent the hook answers.
	Agent hookproto.Agent
	// Path is the settings file, relative to the project root.
	Path string
	// Event is the hook event's key (under "hooks", or at the top level).
	Event string
	// TopLevel: the events are keys of the document itself.
	TopLevel bool
	// Versioned files carry a top-level "version": 1 (Cursor, Copilot CLI).
	Versioned bool
	// Unit is how the client reads an entry's timeout.
	Unit hookproto.TimeoutUnit
	// Syntax is how the client reads the file.
	Syntax hookproto.Syntax
	// StrictTimeout: the client skips an entry whose timeout is not a
	// positive number.
	StrictTimeout bool
	// Aliases are other event keys the client runs as this event.
	Aliases []string
	// Note is printed after installing, "" when there is nothing to say.
	Note string
	// entry builds the hook entry appended to the event's list.
	entry func(command string, timeoutSeconds int) any
}

// specOf is the spec of hook in the settings of row d; false when the
// client has no such event.
func specOf(d hookproto.Dialect, hook Hook) (Spec, bool) {
	set := d.Settings
	event := set.Stop
	if hook == StartHook {
		if !d.Agent.HasStart() {
			return Spec{}, false
		}
		event = set.Start
	}
	spec := Spec{Agent: d.Agent, Path: filepath.FromSlash(set.Path), Event: event, TopLevel: set.TopLevel,
		Versioned: set.Versioned, Unit: set.Timeout, Syntax: set.Syntax, StrictTimeout: set.StrictTimeout}
	if hook == StopHook {
		spec.Note, spec.Aliases = set.Note, set.StopAliases
	}
	spec.entry = entryOf(set, hook)
	return spec, true
}

// entryOf builds the entries of the layout of set for hook, their timeout
// written in the client's unit.
func entryOf(set hookproto.Settings, hook Hook) func(string, int) any {
	unit := set.Timeout
	switch set.Layout {
	case hookproto.LayoutCursor:
		return func(command string, timeout int) any {
			type entry struct {
				Command   string `json:"command"`
				Timeout   int    `json:"timeout"`
				LoopLimit int    `json:"loop_limit,omitempty"`
			}
			e := entry{Command: command, Timeout: unit.Write(timeout)}
			if hook == StopHook {
				e.LoopLimit = DefaultCursorLoopLimit
			}
			return e
		}
	case hookproto.LayoutCopilot:
		return func(command string, timeout int) any {
			return struct {
				Type       string `json:"type"`
				Bash       string `json:"bash"`
				PowerShell string `json:"powershell"`
				TimeoutSec int    `json:"timeoutSec"`
			}{"command", command, command, unit.Write(timeout)}
		}
	}
	type handler struct {
		Type    string `json:"type"`
		Name    string `json:"name,omitempty"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	return func(command string, timeout int) any {
		h := handler{Type: "command", Command: command, Timeout: unit.Write(timeout)}
		if set.Named {
			h.Name = Program
		}
		return struct {
			Hooks []handler `json:"hooks"`
		}{[]handler{h}}
	}
}

// Specs returns every agent's stop-hook location and shape, in
// hookproto.Agents order.
func Specs() []Spec { return specs(StopHook) }

// StartSpecs returns where the agents that have a session-start event
// configure it: the same files as their stop hooks.
func StartSpecs() []Spec { return specs(StartHook) }

func specs(hook Hook) []Spec {
	var out []Spec
	for _, d := range hookproto.Dialects {
		if s, ok := specOf(d, hook); ok {
			out = append(out, s)
		}
	}
	return out
}

// SpecFor returns agent's stop-hook spec.
func SpecFor(agent hookproto.Agent) (Spec, bool) { return SpecForHook(agent, StopHook) }

// SpecForHook returns agent's spec for hook; false when the agent has no
// such event.
func SpecForHook(agent hookproto.Agent, hook Hook) (Spec, bool) {
	d, ok := hookproto.Lookup(agent)
	if !ok {
		return Spec{}, false
	}
	return specOf(d, hook)
}

// Command is the stop-hook command written for agent with the given
// timeout.
func Command(agent hookproto.Agent, timeoutSeconds int) string {
	return fmt.Sprintf("%s --agent %s --timeout %d", hookCommand, agent, timeoutSeconds)
}

// CommandFor is the command of hook written for agent.
func CommandFor(hook Hook, agent hookproto.Agent, timeoutSeconds int) string {
	if hook == StartHook {
		return fmt.Sprintf("%s %s --agent %s", Program, StartHook, agent)
	}
	return Command(agent, timeoutSeconds)
}

// Options tune Install.
type Options struct {
	// Path overrides the spec's settings file (relative to the root or
	// absolute), "" for the spec's.
	Path string
	// TimeoutSeconds is the hook timeout; 0 means DefaultTimeoutSeconds
	// (StartTimeoutSeconds for the start hook).
	TimeoutSeconds int
	// Hook is the hook to install ("" means StopHook).
	Hook Hook
}

// Result says what Install did.
type Result struct {
	// Path is the settings file (absolute).
	Path string
	// Added is false when the hook was already there (nothing written).
	Added bool
	// Command is the hook command, as written or as found.
	Command string
	// Skipped, when set, says why the hook was not installed.
	Skipped string
}

// Install adds agent's stop hook to its settings file under root, creating
// the file (and its directory) when missing and keeping every other key.
// Nothing is written when the hook is already there (for Claude Code, also
// when .claude/settings.local.json has it).
func Install(root string, agent hookproto.Agent, opts Options) (Result, error) {
	hook := opts.Hook
	if hook == "" {
		hook = StopHook
	}
	spec, ok := SpecForHook(agent, hook)
	if !ok {
		return Result{}, fmt.Errorf("install %s: no such hook for agent %q", hook, agent)
	}
	timeout := opts.TimeoutSeconds
	switch {
	case hook == StartHook:
		timeout = StartTimeoutSeconds
	case timeout <= 0:
		timeout = DefaultTimeoutSeconds
	}
	path := resolve(root, spec.Path, opts.Path)
	if agent == hookproto.Claude && opts.Path == "" {
		// A hook in the local settings (where the TypeScript tool put it)
		// would run too: never add a second one.
		local := filepath.Join(root, claudeLocalSettings)
		if st := checkFile(local, spec, hook); st.Installed {
			return Result{Path: local, Command: st.Command}, nil
		}
		// A stop hook in the local settings is the TypeScript tool's: that
		// file is left as it wrote it, and the session-start hook is not
		// put elsewhere without its stop hook.
		stop, _ := SpecFor(agent)
		if hook == StartHook && checkFile(local, stop, StopHook).Installed {
			return Result{Path: local, Skipped: "the stop hook is in " + claudeLocalSettings +
				", which init leaves as the earlier tool wrote it; add a SessionStart entry running `" +
				CommandFor(StartHook, agent, 0) + "` there to have it"}, nil
		}
	}
	// Refused before it is read: a link would be written through.
	if err := owned.FileParent(root, path); err != nil {
		return Result{}, err
	}
	data, err := fsread.File(path, maxSettingsFile)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, fserr.Wrap("read", path, err)
	}
	if !exists || strings.TrimSpace(string(data)) == "" {
		data = []byte("{}")
	}
	doc, hooks, list, err := parseSettings(data, spec)
	if err != nil {
		return Result{}, fmt.Errorf("refusing to modify %s: %v; fix or move the file, then retry", path, err)
	}
	if found := findCommand(list, hook, spec); found != "" {
		return Result{Path: path, Command: found}, nil
	}
	command := CommandFor(hook, agent, timeout)
	entry, err := jsonobj.Marshal(spec.entry(command, timeout))
	if err != nil {
		return Result{}, fmt.Errorf("encode hook for %s: %w", path, err)
	}
	form := jsonc.FormOf(data)
	if form.Comments {
		// The client reads them; a rewrite through a JSON encoder would
		// drop them.
		where := fmt.Sprintf("%q", spec.Event)
		if !spec.TopLevel {
			where = fmt.Sprintf("hooks.%s", spec.Event)
		}
		return Result{}, fmt.Errorf("refusing to modify %s: it holds comments, which rewriting it would drop; "+
			"add this entry to the list %s by hand: %s", path, where, entry)
	}
	list = append(list, entry)
	if err := setAll(doc, hooks, spec, list); err != nil {
		return Result{}, fmt.Errorf("encode %s: %w", path, err)
	}
	out, err := jsonobj.Pretty(doc)
	if err != nil {
		return Result{}, fmt.Errorf("encode %s: %w", path, err)
	}
	if err := writeFile(root, path, jsonc.Restore(out, form)); err != nil {
		return Result{}, err
	}
	return Result{Path: path, Added: true, Command: command}, nil
}

// parseSettings splits a settings file into the document, the object
// holding the events (its "hooks" object, or the document itself for a
// spec whose events are at the top level) and the event's list.
func parseSettings(data []byte, spec Spec) (doc, hooks *jsonobj.Object, list []json.RawMessage, err error) {
	doc, err = jsonobj.Parse(Readable(data, spec.Syntax))
	if err != nil {
		return nil, nil, nil, err
	}
	hooks, where := doc, ""
	if !spec.TopLevel {
		if hooks, err = doc.Child("hooks"); err != nil {
			return nil, nil, nil, err
		}
		where = "hooks."
	}
	if list, err = hooks.Array(spec.Event); err != nil {
		return nil, nil, nil, fmt.Errorf("%s%s is not a JSON array", where, spec.Event)
	}
	return doc, hooks, list, nil
}

// Readable is a settings file's data as a client of syntax reads it: a
// leading byte order mark dropped where the client accepts one, comments
// blanked out where it strips them.
func Readable(data []byte, syntax hookproto.Syntax) []byte {
	switch syntax {
	case hookproto.JSONWithBOM:
		return bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	case hookproto.JSONC:
		out, _ := jsonc.Strip(data)
		return out
	}
	return data
}

func setAll(doc, hooks *jsonobj.Object, spec Spec, list []json.RawMessage) error {
	raw, err := jsonobj.Marshal(list)
	if err != nil {
		return err
	}
	hooks.Set(spec.Event, raw)
	if hooks != doc {
		if raw, err = jsonobj.Marshal(hooks); err != nil {
			return err
		}
		doc.Set("hooks", raw)
	}
	if spec.Versioned {
		if _, ok := doc.Get("version"); !ok {
			doc.SetFirst("version", json.RawMessage("1"))
		}
	}
	return nil
}

// findCommand returns the first gauntlet command of hook found anywhere in
// the entries that the client of spec runs, "" when none is.
func findCommand(list []json.RawMessage, hook Hook, spec Spec) string {
	for _, h := range findHandlers(list, hook) {
		if h.ignoredBy(spec) == "" {
			return h.command
		}
	}
	return ""
}

// handler is one gauntlet hook found in a settings file.
type handler struct {
	command string
	// timeout is the entry's timeout as written, nil when it names none.
	timeout *float64
	// timeoutSet: the entry has a timeout field, a number or not.
	timeoutSet bool
	// inert: the command names the hook but never starts it (a comment,
	// an echo).
	inert bool
}

// ignoredBy says why the client of spec skips the entry h, "" when it
// runs it.
func (h handler) ignoredBy(spec Spec) string {
	switch {
	case h.inert:
		return "it names the stop hook but never runs it (a comment, an argument of another program)"
	case spec.StrictTimeout && h.timeoutSet && (h.timeout == nil || *h.timeout <= 0):
		return "its timeout is not a positive number, and the client skips such an entry"
	}
	return ""
}

// findHandlers returns every gauntlet hook of hook in the entries, in
// order.
func findHandlers(list []json.RawMessage, hook Hook) []handler {
	var out []handler
	for _, raw := range list {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		out = findIn(v, hook, out)
	}
	return out
}

// commandKeys are the fields whose string a client runs as a hook command
// (Copilot CLI names them after the shell).
var commandKeys = []string{"command", "bash", "powershell"}

// timeoutKeys are the fields of a hook object that hold its timeout, one
// per layout.
var timeoutKeys = []string{hookproto.LayoutNested.TimeoutKey(), hookproto.LayoutCopilot.TimeoutKey()}

// findIn appends the gauntlet hooks found in the command fields of hook
// objects at any depth. A bare string elsewhere does not count: the
// outdated shape `"hooks": ["agent-gauntlet stop-hook"]` is one that no
// client runs.
func findIn(v any, hook Hook, out []handler) []handler {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			out = findIn(e, hook, out)
		}
	case map[string]any:
		for _, k := range commandKeys {
			if c, ok := x[k].(string); ok && hookcmd.Mentions(c, string(hook)) {
				h := handler{command: c, inert: !isGauntletCommand(c, hook)}
				for _, tk := range timeoutKeys {
					if raw, ok := x[tk]; ok {
						h.timeoutSet = true
						if t, ok := raw.(float64); ok {
							h.timeout = &t
						}
						break
					}
				}
				return append(out, h)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = findIn(x[k], hook, out)
		}
	}
	return out
}

// IsStopHook reports whether a hook command runs the gauntlet's stop hook.
func IsStopHook(command string) bool { return isGauntletCommand(command, StopHook) }

// isGauntletCommand reports whether a hook command starts the gauntlet's
// hook when the client's shell runs it (hookcmd.Find): by name or path,
// through a package runner, with flags.
func isGauntletCommand(s string, hook Hook) bool {
	_, ok := hookcmd.Find(s, string(hook))
	return ok
}

// Ignored is an entry meant to be the gauntlet's hook that never runs it.
type Ignored struct {
	Command string
	// Why says why, for messages.
	Why string
}

// Status is where one agent's stop hook is installed.
type Status struct {
	Agent hookproto.Agent
	// Path is the settings file checked (absolute).
	Path string
	// Installed reports that Path holds the gauntlet's hook.
	Installed bool
	// Command is the installed command ("" when not installed).
	Command string
	// Count is how many gauntlet hooks of this kind the file holds.
	Count int
	// Commands are their commands, in order.
	Commands []string
	// Ignored are the entries meant to be the gauntlet's hook that never
	// run it: a command that names the hook without starting it (`#
	// agent-gauntlet stop-hook`), an entry the client skips.
	Ignored []Ignored
	// Timeout is the timeout the client gives the first one: its entry's,
	// read in the client's unit, else the client's default; 0 when not
	// installed.
	Timeout time.Duration
	// Err is set when Path exists but cannot be read or parsed.
	Err error
}

// Check reports agent's hook under root. For Claude Code it also looks in
// .claude/settings.local.json (where earlier versions installed it); path
// overrides the spec's file as for Install.
func Check(root string, agent hookproto.Agent, path string) Status {
	return CheckHook(root, agent, path, StopHook)
}

// CheckHook is Check for hook; an agent without such an event has an empty
// Status (Path "").
func CheckHook(root string, agent hookproto.Agent, path string, hook Hook) Status {
	spec, ok := SpecForHook(agent, hook)
	if !ok {
		return Status{Agent: agent}
	}
	paths := []string{resolve(root, spec.Path, path)}
	if agent == hookproto.Claude && path == "" {
		paths = append(paths, filepath.Join(root, claudeLocalSettings))
	}
	var first Status
	for i, p := range paths {
		st := checkFile(p, spec, hook)
		st.Agent = agent
		if st.Installed {
			return st
		}
		if i == 0 {
			first = st
		}
	}
	return first
}

// maxSettingsFile bounds what is read of a settings file or .gitignore.
const maxSettingsFile = 16 << 20

func checkFile(path string, spec Spec, hook Hook) Status {
	st := Status{Path: path}
	data, err := fsread.File(path, maxSettingsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return st
	}
	if err != nil {
		st.Err = fserr.Wrap("read", path, err)
		return st
	}
	if strings.TrimSpace(string(data)) == "" {
		return st
	}
	_, events, list, err := parseSettings(data, spec)
	if err != nil {
		st.Err = fmt.Errorf("%s: %v", path, err)
		return st
	}
	for _, alias := range spec.Aliases {
		more, _ := events.Array(alias)
		list = append(list, more...)
	}
	var found []handler
	for _, h := range findHandlers(list, hook) {
		if why := h.ignoredBy(spec); why != "" {
			st.Ignored = append(st.Ignored, Ignored{Command: h.command, Why: why})
			continue
		}
		found = append(found, h)
	}
	st.Count = len(found)
	for _, h := range found {
		st.Commands = append(st.Commands, h.command)
	}
	if st.Count == 0 {
		return st
	}
	st.Installed, st.Command = true, found[0].command
	st.Timeout = clientTimeout(spec, found[0].timeout)
	return st
}

// clientTimeout is the timeout the client of spec reads from an entry's
// value (nil: the client's default).
func clientTimeout(spec Spec, v *float64) time.Duration {
	if v == nil || *v <= 0 {
		d, _ := hookproto.Lookup(spec.Agent)
		return d.HookTimeout
	}
	return spec.Unit.Read(*v)
}

// CheckPaths refuses, before anything is written, the settings files
// Install would write for the hooks of agents under root (claudePath
// overriding Claude Code's, as Options.Path does): one outside root, or
// one that is a symbolic link, lies below one, or is not a regular file
// (owned.CheckFile), is named in a one-line error. init checks them all
// first, so that a refusal leaves the project as it was.
func CheckPaths(root string, agents []hookproto.Agent, claudePath string) error {
	for _, a := range agents {
		for _, hook := range []Hook{StopHook, StartHook} {
			spec, ok := SpecForHook(a, hook)
			if !ok {
				continue
			}
			override := ""
			if a == hookproto.Claude {
				override = claudePath
			}
			path := resolve(root, spec.Path, override)
			if rel, err := filepath.Rel(root, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return fmt.Errorf("refusing to write %s: it is outside the project %s", fserr.Quote(path), fserr.Quote(root))
			}
			if err := owned.CheckFile(root, path); err != nil {
				return err
			}
		}
	}
	return nil
}

func resolve(root, def, override string) string {
	p := def
	if override != "" {
		p = override
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}

// writeFile replaces path atomically (a temporary file renamed over it),
// keeping the mode of an existing file. A path that is a symbolic link
// (to a shared dotfiles copy, say), or below one under root, is refused:
// init writes nothing outside the project through a link.
func writeFile(root, path string, data []byte) error {
	if err := owned.FileParent(root, path); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Lstat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	return atomicfile.Write(path, data, mode)
}

// ParseAgents turns --agent values (names, "all", comma lists) into agents,
// in hookproto.Agents order without duplicates.
func ParseAgents(values []string) ([]hookproto.Agent, error) {
	want := map[hookproto.Agent]bool{}
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			switch name {
			case "":
				continue
			case "all":
				for _, a := range hookproto.Agents {
					want[a] = true
				}
				continue
			}
			a, err := hookproto.ParseAgent(name)
			if err != nil {
				return nil, fmt.Errorf("--agent: unknown agent %s (want one of %s, or all)", strconv.Quote(name), hookproto.AgentList())
			}
			want[a] = true
		}
	}
	var out []hookproto.Agent
	for _, a := range hookproto.Agents {
		if want[a] {
			out = append(out, a)
		}
	}
	return out, nil
}
