package stophook

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// TestOwedNoticesAreNeverDroppedSilently generates floods of once-only
// notices (how many, of which kind, told first in which session, with
// how much time between stops, blocks among approves, answers that carry
// a notice already) and checks the class's invariant at every stop:
//
//   - every notice an approve owes (verdicts.Book.Told: the session whose
//     stop first told it always, every session for NoticeWindow; not
//     carried by the answer already) is named in the answer, or counted
//     in one "and N more" sentence that sends the reader to
//     `agent-gauntlet status`, which lists it (listNotices); one the book
//     could no longer keep is counted as dropped, in the answer and in
//     status alike;
//   - the notices first told at this stop go first; then an earlier
//     notice naming unverified work is never left out while an earlier
//     sentence-kind one (a configuration adopted) is named, and newer
//     ones go before older ones of the same kind;
//   - the answer's notices stay bounded in size, whatever the flood;
//   - the book as written (a stop that changes nothing writes nothing)
//     holds what the model says: nothing is recorded by an answer alone.
func TestOwedNoticesAreNeverDroppedSilently(t *testing.T) {
	const maxText = 300
	rapid.Check(t, func(t *rapid.T) {
		type told struct {
			text, session string
			at            time.Time
			dropped       bool
		}
		// The model: every notice recorded, oldest first, the book's
		// bound applied (the oldest kept one is dropped and counted).
		var model []*told
		live := map[string]*told{}
		droppedN := 0
		book := verdicts.NewBook()
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		next := 0
		newText := func(t *rapid.T) string {
			next++
			pad := strings.Repeat("x", rapid.IntRange(0, maxText-60).Draw(t, "pad"))
			if rapid.IntRange(0, 3).Draw(t, "kind") == 0 {
				return fmt.Sprintf("The configuration notice-%05d-end %s was adopted.", next, pad)
			}
			return fmt.Sprintf("the commits of notice-%05d-end %s", next, pad)
		}
		steps := rapid.IntRange(1, 30).Draw(t, "stops")
		for range steps {
			now = now.Add(rapid.SampledFrom([]time.Duration{0, time.Second, time.Hour, verdicts.NoticeWindow + time.Minute}).Draw(t, "gap"))
			session := rapid.SampledFrom([]string{"s1", "s2", "agent-own", ""}).Draw(t, "session")
			block := rapid.IntRange(0, 5).Draw(t, "block") == 0
			var once []string
			n := rapid.IntRange(0, 2).Draw(t, "notices")
			if rapid.IntRange(0, 15).Draw(t, "burst") == 0 {
				n = rapid.IntRange(3, verdicts.MaxNotices+40).Draw(t, "flood")
			}
			for range n {
				if len(model) > 0 && rapid.IntRange(0, 4).Draw(t, "repeat") == 0 {
					once = append(once, model[rapid.IntRange(0, len(model)-1).Draw(t, "which")].text)
				} else {
					once = append(once, newText(t))
				}
			}
			said := ""
			if rapid.Bool().Draw(t, "carried") {
				said = strings.Join(once, " ")
			}
			shown := slices.Clone(model)
			for _, text := range once {
				if live[text] != nil {
					continue
				}
				m := &told{text: text, session: session, at: now}
				model, live[text] = append(model, m), m
				if len(live) > verdicts.MaxNotices {
					oldest := model[slices.IndexFunc(model, func(m *told) bool { return !m.dropped })]
					oldest.dropped = true
					delete(live, oldest.text)
					droppedN++
				}
			}
			if !block {
				shown = model
			}
			// The stop works on a copy; it is kept only when it says it
			// changed something (deliverNotices writes nothing else).
			work := clone(t, book)
			o, changed := recordNotices(work, session, once, block, now)
			if changed {
				book = work
			}
			lines := toldLines(o, session, said, now)
			listed := strings.Join(listNotices(book), "\n")
			answer := strings.Join(lines, " ")
			if len(answer) > (maxToldNotices+2)*(maxText+200) {
				t.Fatalf("answer's notices are %d bytes long", len(answer))
			}
			left := 0
			for _, m := range shown {
				owes := session == "" || m.session == "" || m.session == session || now.Sub(m.at) < verdicts.NoticeWindow
				if m.dropped || !owes || strings.Contains(said, m.text) || strings.Contains(answer, m.text) {
					continue
				}
				left++
				if unverifiedNotice(m.text) && strings.Contains(answer, "): The configuration notice-") {
					t.Fatalf("unverified work %q left out while a configuration notice is named", m.text[:30])
				}
			}
			if left > 0 && (!strings.Contains(answer, fmt.Sprintf(" %d more earlier notice(s)", left)) || !strings.Contains(answer, "agent-gauntlet status")) {
				t.Fatalf("a stop of %q leaves out %d notice(s) without saying so: %.600s", session, left, answer)
			}
			if left == 0 && strings.Contains(answer, "more earlier notice(s)") {
				t.Fatalf("a stop of %q names every notice it owes, yet counts more: %.600s", session, answer)
			}
			if got := droppedCount(answer); droppedN > 0 && got != droppedN {
				t.Fatalf("the answer counts %d dropped notice(s), %d are", got, droppedN)
			}
			if got := droppedCount(listed); got != droppedN {
				t.Fatalf("status counts %d dropped notice(s), %d are", got, droppedN)
			}
			for _, m := range live {
				if !strings.Contains(listed, m.text) {
					t.Fatalf("status does not list %q", m.text[:30])
				}
			}
			last := map[byte]string{}
			for _, m := range regexp.MustCompile(`first told at (\S+?Z)[^)]*\): (Not verified: the commits|The configuration) notice-`).FindAllStringSubmatch(answer, -1) {
				k, at := m[2][0], m[1]
				if prev, ok := last[k]; ok && at > prev {
					t.Fatalf("a notice first told at %s named after an older one, of %s: %.600s", at, prev, answer)
				}
				last[k] = at
			}
		}
	})
}

// droppedCount is the count of dropped notices listed says.
func droppedCount(listed string) int {
	m := regexp.MustCompile(`(\d+) older notice\(s\)[^\n]*no longer kept`).FindStringSubmatch(listed)
	if m == nil {
		return 0
	}
	return atoi(m[1])
}

// atoi is s as a number.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// clone is a deep copy of b, through its stored form.
func clone(t *rapid.T, b *verdicts.Book) *verdicts.Book {
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	c := verdicts.NewBook()
	if err := json.Unmarshal(data, c); err != nil {
		t.Fatal(err)
	}
	return c
}
