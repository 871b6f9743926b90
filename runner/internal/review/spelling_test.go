package review

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"
	"pgregory.net/rapid"
)

// spellingRoot is the project root of the spelling tests: a project below
// the top level of its repository (/work/repo).
const spellingRoot = "/work/repo/pkg"

// drawPath draws a canonical project-relative path: segments with spaces,
// dots, dashes and non-ASCII letters, never "." or "..".
func drawPath(rt *rapid.T) string {
	seg := rapid.Custom(func(rt *rapid.T) string {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("abcxyz._- üé")), 1, 8, -1).Draw(rt, "segment")
		if strings.Trim(s, ".") == "" || strings.TrimSpace(s) != s {
			s = "f" + strings.TrimSpace(s) + "x"
		}
		return s
	})
	return strings.Join(rapid.SliceOfN(seg, 1, 4).Draw(rt, "segments"), "/")
}

// drawSpelling draws a way a reviewer may write the project path f.
func drawSpelling(rt *rapid.T, f string) string {
	forms := []func() string{
		func() string { return f },
		func() string { return "./" + f },
		func() string { return spellingRoot + "/" + f },
		func() string { return "pkg/" + f },                                                 // from the repository's top level
		func() string { return "../pkg/" + f },                                              // from a sibling of the project
		func() string { return "src/../" + f },                                              // through a directory and back
		func() string { return "b/" + f },                                                   // as the diff's header names it
		func() string { return `C:\Users\dev\repo\pkg\` + strings.ReplaceAll(f, "/", `\`) }, // a Windows reviewer
		func() string { return "/home/ci/checkout/pkg/" + f },                               // another machine's checkout
	}
	s := forms[rapid.IntRange(0, len(forms)-1).Draw(rt, "form")]()
	if rapid.Bool().Draw(rt, "doubled slashes") {
		s = strings.ReplaceAll(s, "/", "//")
	}
	if rapid.Bool().Draw(rt, "backslashes") {
		s = strings.ReplaceAll(s, "/", `\`)
	}
	if rapid.Bool().Draw(rt, "blanks") {
		s = " " + s + "\t"
	}
	return s
}

// Whatever spelling of its path a reviewer uses, a violation it reports
// again is the pending one: still open under its id, never counted fixed,
// never filtered as out of scope; and a new one on an added line is in
// scope, stored under the canonical path.
func TestSpellingsOfAPath(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		f := drawPath(rt)
		other := "other/unrelated.go"
		if f == other || strings.HasSuffix(other, "/"+path.Base(f)) || path.Base(f) == path.Base(other) {
			rt.Skip("the unrelated file has f's name")
		}
		spelling := drawSpelling(rt, f)
		issue := "The handle is dereferenced before the nil check"

		// a re-report in a verification run whose diff no longer holds f
		prev := gate.Violation{File: f, Line: 7, Issue: issue, Priority: "high", Status: gate.ViolationNew}
		prev.ID = ID(prev)
		changed := parse.ParseDiff(fmt.Sprintf("diff --git a/%[1]s b/%[1]s\n--- a/%[1]s\n+++ b/%[1]s\n@@ -1 +1,2 @@\n x\n+y\n", other))
		ev := evaluate(evalInput{text: failAnswer(viol(spelling, 7, issue, "high")), changed: changed, root: spellingRoot,
			previous: []gate.Violation{prev}})
		if ev.status != gate.StatusFail || len(ev.open) != 1 || len(ev.fixed) != 0 {
			rt.Fatalf("%q re-reported as %q: status %s, open %+v, fixed %+v, notes %q", f, spelling, ev.status, ev.open, ev.fixed, ev.notes)
		}
		if got := ev.open[0]; got.File != f || got.ID != prev.ID {
			rt.Fatalf("%q re-reported as %q: stored as %q with id %q, want id %q", f, spelling, got.File, got.ID, prev.ID)
		}

		// a first report on a line the diff adds
		changed = parse.ParseDiff(fmt.Sprintf("diff --git %s %s\nnew file mode 100644\n--- /dev/null\n+++ %[2]s\n@@ -0,0 +1,8 @@\n+1\n+2\n+3\n+4\n+5\n+6\n+7\n+8\n",
			quoteIfNeeded("a/"+f), quoteIfNeeded("b/"+f)))
		ev = evaluate(evalInput{text: failAnswer(viol(spelling, 7, issue, "high")), changed: changed, root: spellingRoot})
		if ev.status != gate.StatusFail || len(ev.open) != 1 || ev.open[0].File != f {
			rt.Fatalf("%q reported as %q: status %s, open %+v, notes %q", f, spelling, ev.status, ev.open, ev.notes)
		}
	})
}

// quoteIfNeeded writes a path as git does in a diff header: C-quoted when
// it holds a byte beyond ASCII.
func quoteIfNeeded(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] >= 0x80 {
			var b strings.Builder
			b.WriteByte('"')
			for j := 0; j < len(p); j++ {
				if p[j] >= 0x80 {
					fmt.Fprintf(&b, `\%03o`, p[j])
				} else {
					b.WriteByte(p[j])
				}
			}
			b.WriteByte('"')
			return b.String()
		}
	}
	return p
}
