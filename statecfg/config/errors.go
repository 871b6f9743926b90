package config

import (
	"errors"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
)

// ErrNotFound is matched (errors.Is) by the error Load and LoadProjectFile
// return when the project has no .gauntlet/config.yml.
var ErrNotFound = errors.New("no " + Dir + "/" + ProjectFile + " found")

// NotFoundError is returned when no .gauntlet/config.yml is found: the one
// wording of "no configuration" for every command.
type NotFoundError struct {
	// Dir is the absolute directory where the search started.
	Dir string
}

// Error names where the search started and where it stopped.
func (e *NotFoundError) Error() string {
	return ErrNotFound.Error() + " in " + fserr.Quote(e.Dir) + " or any parent directory up to the git top level"
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Problem is one configuration error or warning.
type Problem struct {
	// File is the file path relative to the project root (".gauntlet/config.yml").
	File string
	// Field is the field path inside File ("entry_points[1].checks"), or ""
	// when the problem concerns the whole file.
	Field string
	// Message says what is wrong.
	Message string
}

// String renders the problem as one line: `<file>: <field>: <message>`
// (empty parts are left out).
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(fserr.Quote(p.File))
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Errors is every problem found while loading a configuration. Load returns
// it (as error) when at least one problem was found.
type Errors struct {
	// Problems in the order found: config.yml first, then checks, then
	// reviews, then ci.yml.
	Problems []Problem
	// Warnings found along the way (unknown keys and the like), one line each,
	// as in Config.Warnings.
	Warnings []string
}

// Error renders the problems one per line.
func (e *Errors) Error() string { return strings.Join(e.Lines(), "\n") }

// Lines returns the problems rendered one line each.
func (e *Errors) Lines() []string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return lines
}
