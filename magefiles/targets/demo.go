package targets

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/testenv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// demoFiles is the example project the demo runs the gauntlet on.
//
//go:embed all:demo
var demoFiles embed.FS

// demoStep is one command of the demo, shown with its output.
type demoStep struct {
	title string
	// args run agent-gauntlet; shell (when set) runs `sh -c` instead.
	args  []string
	shell string
	stdin string
}

// Demo builds agent-gauntlet and shows a failing then passing run and the
// stop hook's answers on an embedded example. The example is a throwaway
// git repository with a .gauntlet/ configuration: a failing run, the stop
// hook blocking the agent with what failed inline, the fix, a review
// violation declined with update-review, and the stop hook approving.
func Demo(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "gauntlet-demo-")
	if err != nil {
		return fmt.Errorf("create demo directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	bin, err := Build(ctx, filepath.Join(tmp, "bin"))
	if err != nil {
		return err
	}
	repo := filepath.Join(tmp, "project")
	if err := writeDemoProject(repo); err != nil {
		return err
	}
	env, err := demoEnv(tmp, bin)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(bin), "claude"), []byte(demoReviewer), 0o755); err != nil {
		return fmt.Errorf("write the demo reviewer: %w", err)
	}
	setup := []string{
		"git init -q -b main", "git add -A", "git commit -q -m 'initial project'",
		"git checkout -q -b feature",
	}
	for _, s := range setup {
		if err := demoShell(ctx, repo, env, s); err != nil {
			return err
		}
	}
	hookInput := `{"session_id":"demo","hook_event_name":"Stop","stop_hook_active":false,"cwd":"` + repo + `"}`
	steps := []demoStep{
		{title: "The agent adds a feature but leaves a TODO behind", shell: `printf '#!/bin/sh\n# TODO: handle an empty name\necho "bye, $1"\n' > src/bye.sh && git status --short`},
		{title: "agent-gauntlet run: the no-todo check fails, and the reviewer (a stand-in for claude) reports a violation", args: []string{"run"}},
		{title: "The agent tries to stop: the stop hook blocks it, saying what failed (one JSON line)", args: []string{"stop-hook"}, stdin: hookInput},
		{title: "The agent fixes the TODO", shell: `printf '#!/bin/sh\necho "bye, ${1:-stranger}"\n' > src/bye.sh`},
		{title: "The agent lists the review violations", args: []string{"update-review", "list"}},
		{title: "The agent declines the violation, saying why, by its id", shell: `id=$(agent-gauntlet update-review list --json | sed -n 's/^\[{"id":"\([a-z2-7]*\)".*/\1/p') && agent-gauntlet update-review skip "$id" "The demo project is English-only."`},
		{title: "agent-gauntlet status: what is pending now", args: []string{"status"}},
		{title: "The agent tries to stop again: the hook verifies, the reviewer reports the violation again, the skip holds", args: []string{"stop-hook"}, stdin: hookInput},
		{title: "A stop right after: nothing to do, answered without running gates", args: []string{"stop-hook"}, stdin: hookInput},
	}
	for i, s := range steps {
		fmt.Fprintf(Out, "\n── %d. %s\n", i+1, s.title)
		if s.shell != "" {
			fmt.Fprintf(Out, "$ %s\n", s.shell)
			if err := demoShell(ctx, repo, env, s.shell); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(Out, "$ agent-gauntlet %s\n", strings.Join(s.args, " "))
		cmd := exec.CommandContext(ctx, bin, s.args...)
		cmd.Dir = repo
		cmd.Env = env
		cmd.Stdin = strings.NewReader(s.stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout = &stdout
		cmd.Stderr = &stderr
		err := cmd.Run()
		if s.stdin == "" {
			// run prints its progress on stderr and nothing on stdout.
			Out.Write(stderr.Bytes())
			Out.Write(stdout.Bytes())
		} else {
			showHookAnswer(stdout.Bytes(), stderr.Bytes())
		}
		if err != nil {
			fmt.Fprintf(Out, "(exit status %d)\n", cmd.ProcessState.ExitCode())
		}
	}
	return nil
}

// demoReviewer stands in for the claude review CLI: it reads the prompt and
// diff on stdin and reports one violation on the greeting line of
// src/bye.sh, every time (the violation the agent declines).
const demoReviewer = `#!/bin/sh
cat > /dev/null
echo '{"status":"fail","violations":[{"file":"src/bye.sh","line":3,"issue":"The greeting is hard-coded in English","fix":"Read it from a message catalogue","priority":"low","status":"new"}]}'
`

// showHookAnswer prints a stop hook's stderr, its one JSON line, and the
// block instructions (the JSON "reason") as the agent reads them.
func showHookAnswer(stdout, stderr []byte) {
	fmt.Fprintf(Out, "stderr: %s", stderr)
	fmt.Fprintf(Out, "stdout: %s", stdout)
	var answer struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if json.Unmarshal(stdout, &answer) == nil && answer.Reason != "" {
		fmt.Fprintf(Out, "\nThe agent is sent back to work with this \"reason\":\n\n")
		for _, line := range strings.Split(answer.Reason, "\n") {
			fmt.Fprintf(Out, "    %s\n", line)
		}
	}
}

// writeDemoProject copies the embedded example to dir.
func writeDemoProject(dir string) error {
	return fs.WalkDir(demoFiles, "demo", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, strings.TrimPrefix(p, "demo"))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := demoFiles.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// demoEnv is the caller's environment made hermetic (testenv: its own
// HOME and git configuration, no CI or stop-hook variables) with the built
// binary first on PATH.
func demoEnv(tmp, bin string) ([]string, error) {
	env, err := testenv.New(filepath.Join(tmp, "home"))
	if err != nil {
		return nil, err
	}
	return append(env.Inherit(os.Environ()), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH")), nil
}

// demoShell runs a setup or agent step with sh -c in the demo repository.
func demoShell(ctx context.Context, dir string, env []string, script string) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = Out
	cmd.Stderr = Err
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("demo step %q: %w", script, err)
	}
	return nil
}
