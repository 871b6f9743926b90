package config

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// Changed-file scoping of check gates: what a check's command
// may name to receive the changed files of its entry point.
const (
	// ChangedFilesPlaceholder in a check's command becomes the changed
	// files of its entry point, one shell-quoted word each, relative to the
	// check's working directory.
	ChangedFilesPlaceholder = "${CHANGED_FILES}"
	// EnvChangedFilesFile names, in every check's environment, a file that
	// lists the same files, each followed by a NUL byte.
	EnvChangedFilesFile = "GAUNTLET_CHANGED_FILES_FILE"
)

// UsesChangedFiles reports whether the check's command names
// ${CHANGED_FILES} (its file list is then split into batches that each fit
// on a command line).
func (c *Check) UsesChangedFiles() bool {
	return strings.Contains(c.Command, ChangedFilesPlaceholder)
}

// Scoped reports whether the check works on the changed files of its entry
// point: it has a glob, or its command names ${CHANGED_FILES} or
// $GAUNTLET_CHANGED_FILES_FILE. A scoped check with no changed file left
// after narrowing does not apply.
func (c *Check) Scoped() bool {
	return len(c.Glob) > 0 || c.UsesChangedFiles() || strings.Contains(c.Command, EnvChangedFilesFile)
}

// MatchesGlob reports whether rel, a changed file's path relative to the
// check's working directory, passes the check's glob: always when it has
// none; else when one pattern matches. A pattern without a '/' is matched
// against the file's base name, at any depth (`*.go`); a pattern with one
// against the whole relative path (`cmd/**/*.go`; a leading "./" anchors a
// pattern to the working directory itself: `./*.go`).
func (c *Check) MatchesGlob(rel string) bool {
	if len(c.Glob) == 0 {
		return true
	}
	for i, p := range c.Glob {
		subject := path.Base(rel)
		if strings.Contains(p, "/") {
			subject = rel
		}
		if i < len(c.globs) {
			if c.globs[i].Match(subject) {
				return true
			}
		} else if glob.Match(strings.TrimPrefix(p, "./"), subject) {
			return true // a check built by hand, not loaded
		}
	}
	return false
}

// parseScope decodes the scoping and baseline keys of a check file: glob
// (a pattern or a list of them, compiled here so that a bad one is an
// error naming the file and field), baseline, and the rules of
// ${CHANGED_FILES} in command.
func parseScope(o *object, chk *Check) {
	if patterns, ok := o.stringOrList("glob"); ok {
		parseGlobs(o, chk, patterns)
	}
	chk.baseline = o.boolean("baseline")
	if chk.Command == "" {
		return
	}
	if msg := placeholderProblem(chk.Command); msg != "" {
		o.errorf("command", "%s", msg)
	}
	if lookalikeRE().MatchString(strings.ReplaceAll(chk.Command, ChangedFilesPlaceholder, "")) {
		o.f.warnf(o.field("command"), "only the exact %s is replaced by the changed files; $CHANGED_FILES and ${CHANGED_FILES...} forms are empty shell variables", ChangedFilesPlaceholder)
	}
}

// lookalikeRE finds a $CHANGED_FILES the shell would expand (to nothing).
var lookalikeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{?CHANGED_FILES\b`) })

// parseGlobs compiles the glob patterns of a check.
func parseGlobs(o *object, chk *Check, patterns []string) {
	if len(patterns) == 0 {
		o.errorf("glob", "must name at least one pattern (leave it out to take every changed file)")
		return
	}
	for i, p := range patterns {
		field := "glob"
		if len(patterns) > 1 || o.isList("glob") {
			field = fmt.Sprintf("glob[%d]", i)
		}
		m, err := glob.Compile(strings.TrimPrefix(p, "./"))
		if err != nil {
			o.errorf(field, "%v", err)
			continue
		}
		chk.Glob = append(chk.Glob, p)
		chk.globs = append(chk.globs, m)
	}
}

// resolveBaselines applies config.yml's baseline to the checks that do not
// set their own.
func resolveBaselines(cfg *Config) {
	for _, chk := range cfg.Checks {
		chk.Baseline = cfg.Baseline
		if chk.baseline != nil {
			chk.Baseline = *chk.baseline
		}
	}
}

// stringOrList returns a string value as a one-item list, or a list of
// non-empty strings.
func (o *object) stringOrList(key string) ([]string, bool) {
	v, ok := o.get(key)
	if !ok {
		return nil, false
	}
	if s, isStr := v.(string); isStr {
		if strings.TrimSpace(s) == "" {
			o.errorf(key, msgNonEmpty)
			return nil, false
		}
		return []string{s}, true
	}
	if _, isList := v.([]any); !isList {
		o.errorf(key, "must be a string or a list of strings")
		return nil, false
	}
	return o.strings(key)
}

// isList reports whether key holds a list.
func (o *object) isList(key string) bool {
	_, ok := o.m[key].([]any)
	return ok
}
