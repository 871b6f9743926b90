package logdir

import (
	"regexp"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/procgroup"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// OwnJobKinds are the kinds of the job ids (`<kind>:<entry point>:<gate>`)
// in the gauntlet's own log names: the runner's gate kinds. A numbered file
// whose stem starts with another kind (build_output_final.1.log) is not the
// gauntlet's.
var OwnJobKinds = []string{"check", "review"}

// IsOwn reports whether the numbered file is in one of the gauntlet's
// formats: a console log, or a check or review log or review JSON whose
// stem is one JobNames writes (a check or review job's; build_output.1.log
// is not the gauntlet's).
func (n Name) IsOwn() bool {
	switch n.Kind {
	case KindConsole:
		return true
	case KindJobLog, KindSlotLog, KindSlotJSON:
		return validStem(n.Stem)
	}
	return false
}

// kind is what an entry name of the log directory (or of previous/) is to
// the gauntlet.
type kind int

const (
	// foreign: not a name the gauntlet writes; never moved or deleted.
	foreign kind = iota
	// runLog: one of its numbered files (Name.IsOwn).
	runLog
	// stateFile: the execution state.
	stateFile
	// kept: the debug logs, the lock, the stop hook's notice and the run's
	// scratch directory, which stay where they are.
	kept
	// previousDir: the archive directory.
	previousDir
	// legacyDeleted: the TypeScript tool's .session_ref, deleted on clean.
	legacyDeleted
	// archived: other files of ours that clean archives: the TypeScript
	// tool's stop-hook marker, temporary files a crash left behind.
	archived
	// commitDir: the directory of the logs of looks at past commits
	// (CommitDir); it moves with the execution state.
	commitDir
)

// tempRE matches a temporary file of an atomic write or a lock takeover:
// .<name>.<digits>.tmp; group 1 is the name without its leading dot.
var tempRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.([^/]+)\.\d+\.tmp$`) })

// fixedNames are the log directory's entries of fixed names the gauntlet
// (or the TypeScript tool) writes, and what each is.
var fixedNames = map[string]kind{
	state.File:           stateFile,
	DebugLogFile:         kept,
	DebugLogBackupFile:   kept,
	lock.File:            kept,
	NoticeFile:           kept,
	procgroup.ScratchDir: kept,
	PreviousDir:          previousDir,
	SessionRefFile:       legacyDeleted,
	StopHookMarkerFile:   archived,
	CommitDir:            commitDir,
}

// classify tells what the entry name is to the gauntlet.
func classify(name string) kind {
	if k, ok := fixedNames[name]; ok {
		return k
	}
	if isOwnNumbered(name) {
		return runLog
	}
	if strings.HasPrefix(name, procgroup.ScratchDir+"-") {
		// A run's fresh scratch directory (procgroup.OpenScratch).
		return kept
	}
	if m := tempRE().FindStringSubmatch(name); m != nil {
		if inner := m[1]; "."+inner == state.File || "."+inner == lock.File || isOwnNumbered(inner) {
			return archived
		}
	}
	return foreign
}

// isOwnNumbered reports whether name is one of the gauntlet's numbered
// files.
func isOwnNumbered(name string) bool {
	n, ok := ParseName(name)
	return ok && n.IsOwn()
}

// IsOwn reports whether name, an entry of the log directory or of its
// previous/, is in one of the formats the gauntlet writes: its numbered
// files (Name.IsOwn), .execution_state, .gauntlet-run.lock, .debug.log(.1),
// previous/, commit/, the TypeScript tool's .session_ref and .stop-hook-active, and
// the temporary files of its atomic writes. Clean moves and deletes nothing
// else.
func IsOwn(name string) bool { return classify(name) != foreign }
