package config

import (
	"errors"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// maxFileSize bounds every configuration file read (config.yml, a check, a
// review, fix instructions, the global config): a larger one is an error,
// never a memory blow-up.
const maxFileSize = 8 << 20

// readProblem renders an error of fsread.File or fsread.Dir as a problem
// message without the path (the problem names the file): what the path is
// when it is no regular file (or directory), else why it cannot be read.
func readProblem(err error) string {
	if msg, ok := irregular(err); ok {
		return msg
	}
	return "cannot read: " + fserr.Pathless(err).Error()
}

// irregular returns the message of an fsread error saying that the path is
// not what it must be (a FIFO, a dangling link, too large), without the
// path; ok is false for other errors.
func irregular(err error) (msg string, ok bool) {
	var notRegular *fsread.NotRegularError
	var tooLarge *fsread.TooLargeError
	if errors.As(err, &notRegular) || errors.As(err, &tooLarge) || errors.Is(err, fsread.ErrDanglingLink) {
		return fserr.Pathless(err).Error(), true
	}
	return "", false
}
