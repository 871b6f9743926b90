//go:build unix

package cachediff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// reviewerName is the program name of the stand-in reviewer: the test
// binary itself, linked into the sandbox's bin/ as `claude` (TestMain
// dispatches on the name).
const reviewerName = "claude"

// diffMarker separates the prompt from the diff on the reviewer's stdin.
const diffMarker = "--- DIFF ---"

var (
	hunkRE    = regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`)
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

// reviewerMain is the stand-in reviewer, a function of its input only (as
// the answer cache, keyed by the question, requires): every line the diff
// adds holding BAD is a violation, and so is every earlier violation the
// prompt lists unless the diff removes a BAD line of its file.
func reviewerMain(stdin io.Reader, stdout, stderr io.Writer) int {
	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "stand-in claude:", err)
		return 3
	}
	found := review(string(data))
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

// review returns the violations for one reviewer input.
func review(input string) []finding {
	prompt, diff, _ := strings.Cut(input, "\n"+diffMarker+"\n")
	added, removedIn := readDiff(diff)
	var out []finding
	seen := map[string]bool{}
	add := func(file string, line int) {
		key := fmt.Sprintf("%s:%d", file, line)
		if !seen[key] {
			seen[key] = true
			out = append(out, finding{File: file, Line: line, Issue: "BAD line", Fix: "remove it", Priority: "high", Status: "new"})
		}
	}
	for _, a := range added {
		add(a.File, a.Line)
	}
	for _, l := range strings.Split(prompt, "\n") {
		m := previewRE.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || !strings.Contains(m[3], "BAD") || removedIn[m[1]] {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		add(m[1], n)
	}
	return out
}

// readDiff returns the lines a unified diff adds that hold BAD (numbered
// in the new file), and the files it removes such a line from.
func readDiff(diff string) ([]finding, map[string]bool) {
	var added []finding
	removed := map[string]bool{}
	oldFile, file, line := "", "", 0
	sc := bufio.NewScanner(strings.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			oldFile, file, line = "", "", 0
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
		case strings.HasPrefix(l, "--- "):
			oldFile = strings.TrimPrefix(strings.TrimPrefix(l, "--- "), "a/")
		case hunkRE.MatchString(l):
			line, _ = strconv.Atoi(hunkRE.FindStringSubmatch(l)[2])
		case strings.HasPrefix(l, "+"):
			if strings.Contains(l, "BAD") && file != "/dev/null" {
				added = append(added, finding{File: file, Line: line})
			}
			line++
		case strings.HasPrefix(l, "-"):
			if strings.Contains(l, "BAD") {
				removed[oldFile] = true
			}
		case strings.HasPrefix(l, " "):
			line++
		}
	}
	return added, removed
}
