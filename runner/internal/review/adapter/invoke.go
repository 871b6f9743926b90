package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/proc"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// Output bounds: a reviewer's stdout beyond MaxStdout and stderr beyond
// MaxStderr is streamed to the log but not kept in memory.
const (
	MaxStdout = 10 << 20
	MaxStderr = 1 << 20
)

// Request is one review CLI run.
type Request struct {
	// Root is the absolute project root: the working directory, except
	// for an Outside spec (which is given Root by flag).
	Root string
	// Model is passed with the adapter's model flag when not empty.
	Model string
	// Stdin is the whole input: prompt and diff.
	Stdin string
	// Timeout bounds the run (zero: only ctx bounds it).
	Timeout time.Duration
	// Log receives stdout and stderr as they arrive; may be nil.
	Log io.Writer
}

// Usage is what a run cost, as far as the CLI reports it.
type Usage struct {
	// CostUSD is valid when HasCost.
	CostUSD float64
	HasCost bool
	// Token counts (0 when not reported).
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	// Turns is the number of agent turns (0 when not reported).
	Turns int
}

// String renders the usage for a log line.
func (u Usage) String() string {
	var parts []string
	if u.HasCost {
		parts = append(parts, fmt.Sprintf("cost $%.4f", u.CostUSD))
	}
	parts = append(parts, fmt.Sprintf("input tokens %d", u.InputTokens), fmt.Sprintf("output tokens %d", u.OutputTokens))
	if u.CacheReadTokens > 0 || u.CacheWriteTokens > 0 {
		parts = append(parts, fmt.Sprintf("cache read %d", u.CacheReadTokens), fmt.Sprintf("cache write %d", u.CacheWriteTokens))
	}
	if u.Turns > 0 {
		parts = append(parts, fmt.Sprintf("turns %d", u.Turns))
	}
	return strings.Join(parts, ", ")
}

// Answer is what a finished review CLI left.
type Answer struct {
	// Argv is the program and its arguments as run.
	Argv []string
	// Stdout and Stderr as captured (bounded).
	Stdout string
	Stderr string
	// Text is the reviewer's answer: the envelope's text, or Stdout.
	Text string
	// ExitCode is the exit status (-1 when killed).
	ExitCode int
	// Duration is the wall time.
	Duration time.Duration
	// Usage is set when the CLI reported cost or tokens.
	Usage *Usage
	// EnvelopeError is the error the CLI reported inside its JSON envelope.
	EnvelopeError string
}

// LimitPhrase returns the usage-limit phrase found in the answer (stdout,
// stderr or the envelope's error), or "".
func (a Answer) LimitPhrase() string {
	return LimitPhrase(a.Stdout + "\n" + a.Stderr + "\n" + a.EnvelopeError)
}

// Failure describes why the answer is not a usable review: a non-zero exit
// or an error in the envelope; "" when it is usable.
func (a Answer) Failure() string {
	switch {
	case a.EnvelopeError != "":
		return a.EnvelopeError
	case a.ExitCode != 0:
		msg := fmt.Sprintf("process exited with code %d", a.ExitCode)
		if line := firstLine(a.Stderr); line != "" {
			msg += ": " + line
		}
		return msg
	}
	return ""
}

// Env returns the environment of a review CLI: the parent's, with
// GAUNTLET_STOP_HOOK_ACTIVE=1.
func Env() []string {
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvStopHookActive+"=") {
			env = append(env, kv)
		}
	}
	return append(env, EnvStopHookActive+"=1")
}

// Invoke runs spec for req and returns its answer. A non-zero exit is not an
// error (see Answer.Failure); failing to start, a timeout (wrapping
// proc.ErrTimeout) and cancellation are.
func Invoke(ctx context.Context, spec Spec, req Request) (Answer, error) {
	argv := spec.Argv(req.Root, req.Model)
	ans := Answer{Argv: append([]string{spec.Binary}, argv...)}
	path, err := exec.LookPath(spec.Binary)
	if err != nil {
		ans.ExitCode = -1
		return ans, fmt.Errorf("%s: %w", spec.Binary, err)
	}
	dir, err := workDir(spec, req.Root)
	if err != nil {
		ans.ExitCode = -1
		return ans, fmt.Errorf("%s: %w", spec.Name, err)
	}
	if spec.Outside {
		defer os.RemoveAll(dir)
	}
	var log io.Writer = io.Discard
	if req.Log != nil {
		log = &lockedWriter{w: req.Log}
	}
	stdout := &bounded{max: MaxStdout}
	stderr := &bounded{max: MaxStderr}
	res, err := proc.Run(ctx, proc.Spec{
		Path:    path,
		Args:    argv,
		Dir:     dir,
		Env:     Env(),
		Stdin:   strings.NewReader(req.Stdin),
		Stdout:  io.MultiWriter(stdout, log),
		Stderr:  io.MultiWriter(stderr, log),
		Timeout: req.Timeout,
	})
	ans.Stdout, ans.Stderr = stdout.String(), stderr.String()
	ans.ExitCode, ans.Duration = res.ExitCode, res.Duration
	if err != nil {
		if errors.Is(err, proc.ErrTimeout) {
			return ans, fmt.Errorf("%s timed out after %s: %w", spec.Name, req.Timeout, proc.ErrTimeout)
		}
		return ans, fmt.Errorf("run %s: %w", spec.Name, err)
	}
	ans.Text = ans.Stdout
	switch spec.Envelope {
	case EnvelopeClaude:
		unwrapClaude(&ans)
	case EnvelopeGemini:
		unwrapGemini(&ans)
	}
	return ans, nil
}

// workDir returns the working directory of a run of spec in root: root
// itself, or for an Outside spec a fresh empty directory, which the caller
// removes, made in the first of scratchParents that lies outside the
// project and its git work tree (from a directory inside them the CLI
// would find the project's files again).
func workDir(spec Spec, root string) (string, error) {
	if !spec.Outside {
		return root, nil
	}
	top := place.NearestTop(root)
	for _, parent := range scratchParents() {
		if inside(parent, top) {
			continue
		}
		dir, err := os.MkdirTemp(parent, "agent-gauntlet-reviewer-")
		if err != nil {
			return "", fmt.Errorf("create a working directory outside the project: %w", err)
		}
		return dir, nil
	}
	return "", fmt.Errorf("no temporary directory outside the project %s for the reviewer to run in: set TMPDIR to one", root)
}

// scratchParents are the directories an Outside run's working directory
// may be made in, in order: the system's temporary directory, then (on
// Unix, for a TMPDIR inside the project) /tmp.
func scratchParents() []string {
	if runtime.GOOS == "windows" {
		return []string{os.TempDir()}
	}
	return []string{os.TempDir(), "/tmp"}
}

// inside reports whether path is root or below it, after resolving links.
func inside(path, root string) bool {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// claudeEnvelope is the result object of `claude -p --output-format json`.
type claudeEnvelope struct {
	Type         string   `json:"type"`
	Subtype      string   `json:"subtype"`
	IsError      bool     `json:"is_error"`
	Result       *string  `json:"result"`
	TotalCostUSD *float64 `json:"total_cost_usd"`
	NumTurns     int      `json:"num_turns"`
	Usage        *struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// unwrapClaude reads claude's envelope; stdout that is not one leaves the
// answer as plain text.
func unwrapClaude(a *Answer) {
	var env claudeEnvelope
	if json.Unmarshal([]byte(strings.TrimSpace(a.Stdout)), &env) != nil || (env.Result == nil && env.Type == "") {
		return
	}
	a.Text = ""
	if env.Result != nil {
		a.Text = *env.Result
	}
	u := Usage{Turns: env.NumTurns}
	if env.TotalCostUSD != nil {
		u.CostUSD, u.HasCost = *env.TotalCostUSD, true
	}
	if env.Usage != nil {
		u.InputTokens, u.OutputTokens = env.Usage.InputTokens, env.Usage.OutputTokens
		u.CacheReadTokens, u.CacheWriteTokens = env.Usage.CacheReadInputTokens, env.Usage.CacheCreationInputTokens
	}
	a.Usage = &u
	if env.IsError || strings.HasPrefix(env.Subtype, "error") {
		msg := strings.TrimSpace(a.Text)
		if msg == "" {
			msg = "claude reported " + env.Subtype
		}
		a.EnvelopeError = msg
	}
}

// geminiEnvelope is the object of `gemini --output-format json`.
type geminiEnvelope struct {
	Response *string `json:"response"`
	Stats    *struct {
		Models map[string]struct {
			Tokens struct {
				Prompt     int64 `json:"prompt"`
				Candidates int64 `json:"candidates"`
				Cached     int64 `json:"cached"`
			} `json:"tokens"`
		} `json:"models"`
	} `json:"stats"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// unwrapGemini reads gemini's envelope from stdout or, failing that, the
// error envelope that gemini prints as the last thing on stderr when a turn
// fails (stdout is then empty); an answer without one stays plain text.
func unwrapGemini(a *Answer) {
	env, ok := parseGemini(a.Stdout)
	if !ok {
		if env, ok = parseGemini(trailingObject(a.Stderr)); !ok || env.Error == nil {
			return
		}
	}
	a.Text = ""
	if env.Response != nil {
		a.Text = *env.Response
	}
	if env.Stats != nil {
		var u Usage
		for _, m := range env.Stats.Models {
			u.InputTokens += m.Tokens.Prompt
			u.OutputTokens += m.Tokens.Candidates
			u.CacheReadTokens += m.Tokens.Cached
		}
		a.Usage = &u
	}
	if env.Error != nil {
		msg := strings.TrimSpace(env.Error.Message)
		if msg == "" {
			msg = "gemini reported an error " + env.Error.Type
		}
		a.EnvelopeError = msg
	}
}

// parseGemini parses s as gemini's envelope; ok is false when it is not one.
func parseGemini(s string) (env geminiEnvelope, ok bool) {
	if json.Unmarshal([]byte(strings.TrimSpace(s)), &env) != nil {
		return geminiEnvelope{}, false
	}
	return env, env.Response != nil || env.Error != nil
}

// trailingObject returns the JSON object that ends s: from the last line
// that starts with "{" to the end ("" when there is none).
func trailingObject(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if !strings.HasSuffix(s, "}") {
		return ""
	}
	if strings.HasPrefix(s, "{") && !strings.Contains(s, "\n{") {
		return s
	}
	if i := strings.LastIndex(s, "\n{"); i >= 0 {
		return s[i+1:]
	}
	return ""
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// bounded keeps the first max bytes written and drops the rest.
type bounded struct {
	mu  sync.Mutex
	buf strings.Builder
	max int
}

// Write keeps what fits within the bound and drops the rest.
func (b *bounded) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

// String returns what was kept.
func (b *bounded) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lockedWriter serializes the stdout and stderr copiers onto one log.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p under the lock.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
