package logdir

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// KeptStateSuffix names the entry a person left at the execution state's
// name once KeepForeignState moved it aside: state.File + KeptStateSuffix
// (then ".1", ".2", ... when taken).
const KeptStateSuffix = ".kept"

// KeepForeignState moves aside, in the log directory dir, an entry at the
// execution state's name (state.File) that is not an execution state the
// gauntlet may write over, so that writing the state loses nothing; it
// returns the path it moved the entry to, "" when it moved nothing. An
// execution state is the gauntlet's to write over when the record of
// written files (Note) holds it as the gauntlet's, or, in a log directory
// the record does not know yet, when it is a regular file that reads as
// one (state.Read: this tool's, or the TypeScript tool's, whose fields it
// shares). Anything else (a person's notes or copy of a state, a
// symbolic link, a directory, a FIFO, a file the agent mangled) is
// renamed, never opened or followed, to state.File+KeptStateSuffix, a
// name the gauntlet never writes, so the person finds it beside the new
// state.
func KeepForeignState(dir string) (string, error) {
	fi, err := lstat(state.Path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	// Where the record knows the log directory, only the state it holds
	// is written over: a state-shaped file of a person's put there after
	// (a copy of the TypeScript tool's, kept to read) is moved aside like
	// any other. Where it does not, a state is taken over (the TypeScript
	// tool's, before this version ran here).
	if fi.Mode().IsRegular() {
		started := Started(dir)
		if started && Owned(state.Path(dir)) || !started && isState(dir) {
			return "", nil
		}
	}
	root, err := openRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	for i := 0; i < 1000; i++ {
		name := state.File + KeptStateSuffix
		if i > 0 {
			name += "." + strconv.Itoa(i)
		}
		if _, err := root.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := root.Rename(state.File, name); err != nil {
			return "", fmt.Errorf("move %s aside: %w", state.Path(dir), err)
		}
		return filepath.Join(dir, name), nil
	}
	return "", fmt.Errorf("move %s aside: every %s%s name is taken", state.Path(dir), state.File, KeptStateSuffix)
}
