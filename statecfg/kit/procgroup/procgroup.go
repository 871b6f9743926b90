// Package procgroup starts a child process in a process group (and, on
// Unix, a session) of its own, unattended, and kills that whole group, so
// that nothing a child started outlives it and nothing it starts waits for
// a human: the one place for what differs between Unix (sessions, process
// groups and their signals) and Windows (a new process group, and taskkill
// of the process tree).
package procgroup

import (
	"os"
	"os/exec"
	"strings"
)

// Set makes cmd start in a process group of its own, unattended (no
// controlling terminal, standard input from the null device unless cmd
// sets one, the environment of Unattended) and, when its context ends,
// kill that whole group (exec.Cmd.Cancel). It returns the tag (NewTag) in
// cmd's environment, for KillStrays once cmd is waited for.
func Set(cmd *exec.Cmd) (tag string) {
	cmd.SysProcAttr = Attr()
	cmd.Cancel = func() error { return Kill(cmd.Process) }
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	tag = NewTag()
	cmd.Env = append(Unattended(cmd.Env), tag)
	return tag
}

// unattended are the variables that make the programs a gate starts fail
// instead of waiting for an answer no one will give: git asks for no
// credential on a terminal nor through an askpass program (an empty
// GIT_ASKPASS hides SSH_ASKPASS and core.askPass from git), ssh runs no
// askpass program, Git Credential Manager shows no window, pagers copy
// their input through, and an editor (a commit message, an interactive
// rebase, a merge message) fails at once.
var unattended = []string{
	"GIT_TERMINAL_PROMPT=0",
	"GIT_ASKPASS=",
	"SSH_ASKPASS_REQUIRE=never",
	"GCM_INTERACTIVE=never",
	"GIT_PAGER=cat",
	"PAGER=cat",
	"GIT_EDITOR=false",
	"GIT_SEQUENCE_EDITOR=false",
	"EDITOR=false",
	"VISUAL=false",
	"GIT_MERGE_AUTOEDIT=no",
}

// PersonWanted are what programs print when, unattended as above, they
// wanted a person: opening the terminal a session of its own does not
// have (ENXIO, "No such device or address": shells, git's credential
// prompt, ssh's host-key question), git's GIT_TERMINAL_PROMPT=0 answer,
// sudo's password, the GIT_EDITOR=false editor. A failure whose output
// says one of them is the unattended setting's doing, not a verdict.
var PersonWanted = []string{
	"No such device or address",
	"terminal prompts disabled",
	"a terminal is required",
	"There was a problem with the editor 'false'",
}

// Unattended returns env (a list of KEY=value) with the variables that
// keep a child from waiting for a human set, replacing the values env had
// for them.
func Unattended(env []string) []string {
	set := make(map[string]bool, len(unattended))
	for _, kv := range unattended {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	out := make([]string, 0, len(env)+len(unattended))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !set[name] {
			out = append(out, kv)
		}
	}
	return append(out, unattended...)
}
