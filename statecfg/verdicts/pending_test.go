package verdicts

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	job      = "review:.:quality"
	jsonName = "review_._quality_claude@1.1.json"
)

var (
	vA = Violation{ID: "aaaaaaa", File: "src/a.go", Line: 3, Anchor: "h1", Issue: "x is unused", Fix: "remove x", Priority: "high"}
	vB = Violation{ID: "bbbbbbb", File: "src/b.go", Line: 7, Issue: "the file is never closed", Priority: "medium"}
	// vLegacy is a violation of an older version's log: no id.
	vLegacy = Violation{File: "src/c.go", LineText: "?", Issue: "magic number"}
)

// reviewJSON is a review JSON file as the engine writes it for vs, every
// violation new, as generic JSON the cases edit.
func reviewJSON(vs ...Violation) map[string]any {
	list := []any{}
	for _, v := range vs {
		m := map[string]any{"file": v.File, "issue": v.Issue, "status": "new"}
		if v.Line > 0 {
			m["line"] = float64(v.Line)
		} else {
			m["line"] = v.LineText
		}
		if v.ID != "" {
			m["id"] = v.ID
		}
		if v.Fix != "" {
			m["fix"] = v.Fix
		}
		list = append(list, m)
	}
	return map[string]any{"adapter": "claude", "timestamp": "2026-01-01T00:00:00.000Z", "status": "fail", "rawOutput": "{}", "violations": list}
}

// viol is the i-th violation object of a review JSON.
func viol(f map[string]any, i int) map[string]any { return f["violations"].([]any)[i].(map[string]any) }

// bookWith is a book whose slot 1 of job failed with vs, its review JSON
// named jsonName.
func bookWith(vs ...Violation) *Book {
	b := newBook()
	if err := b.RecordSlot(job, 1, SlotVerdict{Adapter: "claude", Status: StatusFail, Run: 1, At: time.Now(), JSON: jsonName, Violations: vs}); err != nil {
		panic(err)
	}
	return b
}

// got is a pending slot's violations as "id:status:note" and the skipped
// ones the same way.
func summarize(p Pending) (open, skipped []string) {
	for _, a := range p.Slots[job][1] {
		open = append(open, a.key()+":"+a.Status+":"+a.Note)
	}
	for _, s := range p.Skipped {
		skipped = append(skipped, s.key()+":"+s.Note)
	}
	return open, skipped
}

func (a Annotated) key() string {
	if a.ID != "" {
		return a.ID
	}
	return a.File
}

// Every way the agent can edit the review JSON, and what stays pending:
// only "fixed" or "skipped" and the "result" note, on a violation named by
// its id (or, without one, by its very file, line and issue), count.
func TestMergeRules(t *testing.T) {
	tests := []struct {
		name     string
		recorded []Violation
		edit     func(f map[string]any) // nil: the file is deleted
		open     []string
		skipped  []string
		// notPending: the slot has nothing left to verify.
		notPending bool
		warning    bool
	}{
		{name: "untouched", edit: func(map[string]any) {},
			open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "verdict flipped to pass, violations emptied", edit: func(f map[string]any) {
			f["status"] = "pass"
			f["violations"] = []any{}
		}, open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "verdict flipped, violations kept", edit: func(f map[string]any) { f["status"] = "pass" },
			open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "a violation deleted", edit: func(f map[string]any) { f["violations"] = f["violations"].([]any)[1:] },
			open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "the file deleted", edit: nil,
			open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "reworded, id kept", edit: func(f map[string]any) { viol(f, 0)["issue"] = "x is fine, actually" },
			open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "reworded and marked fixed, id kept: fixed, the recorded words stay", edit: func(f map[string]any) {
			viol(f, 0)["issue"] = "nothing"
			viol(f, 0)["status"] = "fixed"
			viol(f, 0)["result"] = "removed x"
		}, open: []string{"aaaaaaa:fixed:removed x", "bbbbbbb:new:"}},
		{name: "file and line changed, id kept", edit: func(f map[string]any) {
			viol(f, 0)["file"] = "other.go"
			viol(f, 0)["line"] = 99
		}, open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "id changed and marked fixed: names no violation", edit: func(f map[string]any) {
			viol(f, 0)["id"] = "zzzzzzz"
			viol(f, 0)["status"] = "fixed"
		}, open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "id removed, fields kept, marked fixed", edit: func(f map[string]any) {
			delete(viol(f, 0), "id")
			viol(f, 0)["status"] = "fixed"
		}, open: []string{"aaaaaaa:fixed:", "bbbbbbb:new:"}},
		{name: "id removed and reworded, marked fixed: names no violation", edit: func(f map[string]any) {
			delete(viol(f, 0), "id")
			viol(f, 0)["issue"] = "x is unused!"
			viol(f, 0)["status"] = "fixed"
		}, open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "a violation added, marked skipped", edit: func(f map[string]any) {
			f["violations"] = append(f["violations"].([]any), map[string]any{"id": "ccccccc", "file": "x.go", "line": 1, "issue": "made up", "status": "skipped", "result": "n/a"})
		}, open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "marked fixed with a note", edit: func(f map[string]any) {
			viol(f, 0)["status"] = "fixed"
			viol(f, 0)["result"] = "  removed x  "
		}, open: []string{"aaaaaaa:fixed:removed x", "bbbbbbb:new:"}},
		{name: "marked skipped with a note", edit: func(f map[string]any) {
			viol(f, 1)["status"] = "skipped"
			viol(f, 1)["result"] = "closed by the caller"
		}, open: []string{"aaaaaaa:new:"}, skipped: []string{"bbbbbbb:closed by the caller"}},
		{name: "every violation skipped: the slot is not pending", edit: func(f map[string]any) {
			viol(f, 0)["status"] = "skipped"
			viol(f, 1)["status"] = "SKIPPED "
		}, notPending: true, skipped: []string{"aaaaaaa:", "bbbbbbb:"}},
		{name: "status case and space", edit: func(f map[string]any) { viol(f, 0)["status"] = " Fixed" },
			open: []string{"aaaaaaa:fixed:", "bbbbbbb:new:"}},
		{name: "an unknown status is new", edit: func(f map[string]any) { viol(f, 0)["status"] = "done" },
			open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "duplicated, one fixed one skipped: the most pending wins", edit: func(f map[string]any) {
			dup := map[string]any{}
			for k, v := range viol(f, 0) {
				dup[k] = v
			}
			viol(f, 0)["status"] = "skipped"
			dup["status"] = "fixed"
			f["violations"] = append(f["violations"].([]any), dup)
		}, open: []string{"aaaaaaa:fixed:", "bbbbbbb:new:"}},
		{name: "duplicated, one left new: new", edit: func(f map[string]any) {
			dup := map[string]any{"id": "aaaaaaa", "status": "skipped"}
			f["violations"] = append(f["violations"].([]any), dup)
		}, open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}},
		{name: "a note that is not a string", edit: func(f map[string]any) {
			viol(f, 0)["status"] = "fixed"
			viol(f, 0)["result"] = map[string]any{"done": true}
		}, open: []string{`aaaaaaa:fixed:{"done":true}`, "bbbbbbb:new:"}},
		{name: "not JSON any more: a warning, all new", edit: func(f map[string]any) { f["__corrupt__"] = true },
			open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}, warning: true},
		{name: "violations not a list: a warning, all new", edit: func(f map[string]any) { f["violations"] = "none" },
			open: []string{"aaaaaaa:new:", "bbbbbbb:new:"}, warning: true},
		{name: "an older version's violation without id, marked fixed", recorded: []Violation{vLegacy}, edit: func(f map[string]any) {
			viol(f, 0)["status"] = "fixed"
		}, open: []string{"src/c.go:fixed:"}},
		{name: "an older version's violation without id, moved and marked fixed", recorded: []Violation{vLegacy}, edit: func(f map[string]any) {
			viol(f, 0)["line"] = 4
			viol(f, 0)["status"] = "fixed"
		}, open: []string{"src/c.go:new:"}},
		{name: "an older version's violation, an id made up for it", recorded: []Violation{vLegacy}, edit: func(f map[string]any) {
			viol(f, 0)["id"] = "ddddddd"
			viol(f, 0)["status"] = "skipped"
		}, open: []string{"src/c.go:new:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recorded := tc.recorded
			if recorded == nil {
				recorded = []Violation{vA, vB}
			}
			logDir := t.TempDir()
			if tc.edit != nil {
				f := reviewJSON(recorded...)
				tc.edit(f)
				writeJSON(t, filepath.Join(logDir, jsonName), f)
			}
			p, warnings := bookWith(recorded...).Pending(logDir, "", nil)
			open, skipped := summarize(p)
			if !slices.Equal(open, tc.open) || !slices.Equal(skipped, tc.skipped) {
				t.Errorf("pending %q, skipped %q; want %q, %q", open, skipped, tc.open, tc.skipped)
			}
			if _, ok := p.Slots[job][1]; ok == tc.notPending {
				t.Errorf("slot pending = %v, want %v", ok, !tc.notPending)
			}
			if (len(warnings) > 0) != tc.warning {
				t.Errorf("warnings = %q", warnings)
			}
			for _, a := range p.Slots[job][1] {
				if i := slices.IndexFunc(recorded, func(v Violation) bool { return v == a.Violation }); i < 0 {
					t.Errorf("a pending violation is not the recorded one: %+v", a.Violation)
				}
			}
		})
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := v.(map[string]any); ok && m["__corrupt__"] != nil {
		data = data[:len(data)/2]
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Whatever sequence of edits the agent makes to the review JSON, the
// violations pending (new or fixed) and skipped are exactly the recorded
// ones, each once, as recorded; and one is fixed or skipped only when an
// entry naming it says so.
func TestMergeKeepsEveryRecordedViolation(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	recorded := []Violation{vA, vB, vLegacy, {ID: "eeeeeee", File: "src/a.go", Line: 3, Issue: "x is unused"}}
	words := []any{"fixed", "skipped", "new", "FIXED", "", nil, 3, "aaaaaaa", "bbbbbbb", "eeeeeee", "src/a.go", "x is unused", "?", float64(3)}
	keys := []string{"id", "file", "line", "issue", "status", "result"}
	for range 3000 {
		f := reviewJSON(recorded...)
		for range r.IntN(10) {
			list := f["violations"].([]any)
			switch op := r.IntN(5); {
			case op == 0 && len(list) > 0:
				i := r.IntN(len(list))
				f["violations"] = append(list[:i:i], list[i+1:]...)
			case op == 1:
				f["violations"] = append(list, map[string]any{keys[r.IntN(len(keys))]: words[r.IntN(len(words))]})
			case len(list) > 0:
				m := list[r.IntN(len(list))].(map[string]any)
				if r.IntN(4) == 0 {
					delete(m, keys[r.IntN(len(keys))])
				} else {
					m[keys[r.IntN(len(keys))]] = words[r.IntN(len(words))]
				}
			}
		}
		logDir := t.TempDir()
		writeJSON(t, filepath.Join(logDir, jsonName), f)
		p, _ := bookWith(recorded...).Pending(logDir, "", nil)
		var all []Annotated
		all = append(all, p.Slots[job][1]...)
		for _, s := range p.Skipped {
			all = append(all, s.Annotated)
		}
		if len(all) != len(recorded) {
			t.Fatalf("%d violations pending or skipped, %d recorded; file %v", len(all), len(recorded), f)
		}
		for _, a := range all {
			if !slices.Contains(recorded, a.Violation) {
				t.Fatalf("not a recorded violation: %+v", a.Violation)
			}
			if a.Status != New && !said(f, a.Violation, a.Status) {
				t.Fatalf("%s is %s but no entry naming it says so: %v", a.key(), a.Status, f)
			}
		}
	}
}

// said reports whether an entry of the review JSON f names v with status.
func said(f map[string]any, v Violation, status string) bool {
	for _, e := range f["violations"].([]any) {
		data, _ := json.Marshal(e)
		var a annotation
		if json.Unmarshal(data, &a) != nil || !a.names(v) {
			continue
		}
		if s, _ := a.word(); s == status {
			return true
		}
	}
	return false
}

// Checks: the latest verdict counts, whatever the logs say (a deleted log
// changes nothing); an erring slot keeps its last verdict; a slot that
// failed naming nothing is pending with an empty list; keep filters jobs.
func TestPendingChecksAndSlots(t *testing.T) {
	b := newBook()
	now := time.Now()
	for job, st := range map[string]Status{"check:.:lint": StatusFail, "check:.:test": StatusError, "check:.:fmt": StatusPass} {
		if err := b.RecordCheck(job, CheckVerdict{Status: st, Run: 1, At: now, Log: job + ".1.log"}); err != nil {
			t.Fatal(err)
		}
	}
	mustSlot(t, b, "review:.:q", 1, SlotVerdict{Status: StatusFail, Run: 1, At: now})
	mustSlot(t, b, "review:.:q", 2, SlotVerdict{Status: StatusFail, Run: 1, At: now, Violations: []Violation{vA}})
	mustSlot(t, b, "review:.:q", 2, SlotVerdict{Status: StatusError, Run: 2, At: now})
	mustSlot(t, b, "review:.:q", 3, SlotVerdict{Status: StatusPass, Run: 2, At: now})
	mustSlot(t, b, "review:gone:q", 1, SlotVerdict{Status: StatusFail, Run: 1, At: now})

	p, warnings := b.Pending(t.TempDir(), "", func(job string) bool { return !strings.Contains(job, "gone") })
	want := Pending{
		Checks: map[string]bool{"check:.:lint": true, "check:.:test": true},
		Slots:  map[string]map[int][]Annotated{"review:.:q": {1: {}, 2: {{Violation: vA, Status: New}}}},
	}
	if !reflect.DeepEqual(p, want) || len(warnings) > 0 {
		t.Errorf("Pending = %+v, %q\nwant %+v", p, warnings, want)
	}
	if err := b.RecordCheck("check:.:lint", CheckVerdict{Status: StatusPass, Run: 3, At: now}); err != nil {
		t.Fatal(err)
	}
	if p, _ := b.Pending(t.TempDir(), "", nil); p.Checks["check:.:lint"] {
		t.Errorf("a check that passed since is pending")
	}
}

func mustSlot(t *testing.T, b *Book, job string, slot int, v SlotVerdict) {
	t.Helper()
	if err := b.RecordSlot(job, slot, v); err != nil {
		t.Fatal(err)
	}
}

// A slot with more violations than the bound keeps the first ones and
// stays failing even when every kept one is skipped.
func TestSlotBound(t *testing.T) {
	vs := make([]Violation, MaxViolations+5)
	for i := range vs {
		vs[i] = Violation{ID: strings.Repeat(string(rune('a'+i%26)), 3) + string(rune('0'+i%10)), File: "f.go", Line: i + 1, Issue: "i"}
	}
	b := bookWith(vs...)
	v := b.Slots[job][1]
	if len(v.Violations) != MaxViolations || v.Omitted != 5 {
		t.Fatalf("kept %d, omitted %d", len(v.Violations), v.Omitted)
	}
	f := reviewJSON(v.Violations...)
	for i := range v.Violations {
		viol(f, i)["status"] = "skipped"
	}
	logDir := t.TempDir()
	writeJSON(t, filepath.Join(logDir, jsonName), f)
	p, _ := b.Pending(logDir, "", nil)
	if _, ok := p.Slots[job][1]; !ok {
		t.Errorf("a slot with omitted violations is not pending once the kept ones are skipped")
	}
}
