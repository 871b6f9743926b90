//go:build unix

package lifecycle

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// reviewerName is the program name of the stand-in reviewer: the test binary
// itself, linked into the sandbox's bin/ as `claude` (TestMain dispatches
// on the name).
const reviewerName = "claude"

// reviewerErrors is the file, in $MARKS, where the stand-in records a call
// it refused (wrong flags or environment); any such line is a violation.
const reviewerErrors = "reviewer-errors"

// Files in $MARKS that steer the stand-in: its fault (see reviewerFaults)
// and how it spells paths ("abs", "dot", "win"; as the diff does
// otherwise); and where it records a diff that showed a text file as binary.
const (
	faultFile    = "reviewer-fault"
	spellingFile = "reviewer-spelling"
	binaryFile   = "reviewer-binary"
)

// reviewerArgv is the exact argv the claude adapter must pass (see
// runner/internal/review/adapter.Specs; no model is configured).
var reviewerArgv = []string{
	"-p",
	"--allowedTools", "Read,Glob,Grep",
	"--max-turns", "10",
	"--output-format", "json",
	"--settings", `{"disableAllHooks":true}`,
	"--setting-sources", "user",
	"--strict-mcp-config",
}

// diffMarker separates the prompt from the diff on the reviewer's stdin.
const diffMarker = "--- DIFF ---"

var (
	markerRE  = regexp.MustCompile(`REVIEWME-\d+`)
	hunkRE    = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@`)
	previewRE = regexp.MustCompile(`^\d+\. (\S+):(\d+) - (.*)$`)
)

// finding is one violation the stand-in reports.
type finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Issue    string `json:"issue"`
	Fix      string `json:"fix"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// reviewerMain is the stand-in reviewer: it checks its flags and
// environment, then reviews deterministically. Every REVIEWME-<n> marker on
// a line the diff adds is a violation; so is every earlier violation listed
// for verification whose marker is still in its file (reported at the
// nearest line holding it), as a careful reviewer would. It answers in
// claude's JSON envelope, run from the project root.
func reviewerMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var problems []string
	if !slices.Equal(args, reviewerArgv) {
		problems = append(problems, fmt.Sprintf("argv %q, want %q", args, reviewerArgv))
	}
	if v := os.Getenv("GAUNTLET_STOP_HOOK_ACTIVE"); v != "1" {
		problems = append(problems, fmt.Sprintf("GAUNTLET_STOP_HOOK_ACTIVE=%q, want 1", v))
	}
	if len(problems) > 0 {
		if marks := os.Getenv("MARKS"); marks != "" {
			f, err := os.OpenFile(filepath.Join(marks, reviewerErrors), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintln(f, strings.Join(problems, "; "))
				_ = f.Close()
			}
		}
		fmt.Fprintln(stderr, "stand-in claude:", strings.Join(problems, "; "))
		return 3
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "stand-in claude:", err)
		return 3
	}
	marks := os.Getenv("MARKS")
	fault, _ := os.ReadFile(filepath.Join(marks, faultFile))
	switch string(fault) {
	case "crash":
		fmt.Fprintln(stderr, "Error: connect ECONNREFUSED 127.0.0.1:443")
		return 1
	case "timeout":
		time.Sleep(time.Minute)
		return 0
	case "quota":
		fmt.Fprintln(stdout, `{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached|1767225600"}`)
		return 1
	case "garbage":
		fmt.Fprintln(stdout, "I had a look and it seems fine.")
		return 0
	}
	if _, diff, _ := strings.Cut(string(data), "\n"+diffMarker+"\n"); binaryRE.MatchString(diff) {
		_ = os.WriteFile(filepath.Join(marks, binaryFile), []byte(binaryRE.FindString(diff)+"\n"), 0o644)
	}
	found := review(string(data), readWorkFile)
	spelling, _ := os.ReadFile(filepath.Join(marks, spellingFile))
	for i := range found {
		found[i].File = spell(found[i].File, string(spelling))
	}
	answer := map[string]any{"status": "pass", "message": "No problems found"}
	if len(found) > 0 {
		answer = map[string]any{"status": "fail", "violations": found}
	}
	text, _ := json.Marshal(answer)
	env, _ := json.Marshal(map[string]any{
		"type": "result", "subtype": "success", "is_error": false, "result": string(text),
		"total_cost_usd": 0, "num_turns": 1, "usage": map[string]int{"input_tokens": len(data), "output_tokens": len(text)},
	})
	fmt.Fprintln(stdout, string(env))
	return 0
}

// binaryRE matches git's line for a file it shows as binary.
var binaryRE = regexp.MustCompile(`(?m)^Binary files .* differ$`)

// spell writes a project-relative path the way how says: absolute, with
// "./", with Windows separators, or as it is.
func spell(p, how string) string {
	switch how {
	case "abs":
		if wd, err := os.Getwd(); err == nil {
			return filepath.Join(wd, p)
		}
	case "dot":
		return "./" + p
	case "win":
		return strings.ReplaceAll(p, "/", `\`)
	}
	return p
}

// readWorkFile reads a file of the project (the working directory).
func readWorkFile(rel string) (string, bool) {
	data, err := os.ReadFile(filepath.FromSlash(rel))
	return string(data), err == nil
}

// review returns the violations for one reviewer input (prompt, marker,
// diff), reading current files through read.
func review(input string, read func(string) (string, bool)) []finding {
	prompt, diff, _ := strings.Cut(input, "\n"+diffMarker+"\n")
	var out []finding
	seen := map[string]bool{}
	add := func(file string, line int, token string) {
		key := fmt.Sprintf("%s:%d:%s", file, line, token)
		if !seen[key] {
			seen[key] = true
			out = append(out, finding{File: file, Line: line, Issue: token + " marker left in the code",
				Fix: "remove the marker", Priority: "high", Status: "new"})
		}
	}
	for _, a := range addedMarkers(diff) {
		add(a.File, a.Line, a.Issue)
	}
	for _, p := range listedViolations(prompt) {
		token := markerRE.FindString(p.Issue)
		content, ok := read(p.File)
		if token == "" || !ok {
			continue
		}
		if line := nearestLine(content, token, p.Line); line > 0 {
			add(p.File, line, token)
		}
	}
	return out
}

// addedMarkers returns, per line a unified diff adds (numbered in the new
// file), each REVIEWME marker on it (Issue holds the marker).
func addedMarkers(diff string) []finding {
	var out []finding
	file, line := "", 0
	sc := bufio.NewScanner(strings.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			file, line = "", 0
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if file == "/dev/null" {
				file = ""
			}
		case strings.HasPrefix(l, "--- "):
		case hunkRE.MatchString(l):
			line, _ = strconv.Atoi(hunkRE.FindStringSubmatch(l)[1])
		case strings.HasPrefix(l, "+"):
			for _, tok := range markerRE.FindAllString(l, -1) {
				if file != "" {
					out = append(out, finding{File: file, Line: line, Issue: tok})
				}
			}
			line++
		case strings.HasPrefix(l, " "):
			line++
		}
	}
	return out
}

// listedViolations parses the verification section of a prompt: the
// earlier violations to verify or still open.
func listedViolations(prompt string) []finding {
	var out []finding
	for _, l := range strings.Split(prompt, "\n") {
		m := previewRE.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		out = append(out, finding{File: m[1], Line: n, Issue: m[3]})
	}
	return out
}

// nearestLine returns the 1-based number of the line of content holding
// token nearest to want, or 0.
func nearestLine(content, token string, want int) int {
	best := 0
	for i, l := range strings.Split(content, "\n") {
		if strings.Contains(l, token) && (best == 0 || abs(i+1-want) < abs(best-want)) {
			best = i + 1
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
