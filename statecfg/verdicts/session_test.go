package verdicts

import (
	"fmt"
	"testing"
	"time"
)

// A session record keeps the books its stops judged, the most recent
// first, at most MaxSession of them, each once; it is never read for
// another session, and records nothing without a state home or a session.
func TestSessionBooks(t *testing.T) {
	home := t.TempDir()
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	book := func(i int) SessionBook {
		return SessionBook{Key: Key{CommonDir: "/r/.git", Project: ".", Worktree: fmt.Sprintf("worktrees/w%d", i)}, Root: "/w", At: at}
	}
	for i := range MaxSession + 2 {
		if err := SeeSession(home, "s1", book(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := SeeSession(home, "s1", book(MaxSession)); err != nil { // judged again: moves to the front, once
		t.Fatal(err)
	}
	got := SessionBooks(home, "s1")
	if len(got) != MaxSession || got[0] != book(MaxSession) || got[1] != book(MaxSession+1) {
		t.Fatalf("books = %+v", got)
	}
	seen := map[Key]bool{}
	for _, b := range got {
		if seen[b.Key] {
			t.Fatalf("book %v kept twice: %+v", b.Key, got)
		}
		seen[b.Key] = true
	}
	if got := SessionBooks(home, "s2"); got != nil {
		t.Fatalf("another session reads %+v", got)
	}
	if err := SeeSession("", "s1", book(0)); err != nil || SessionBooks("", "s1") != nil {
		t.Fatal("no state home must record and read nothing")
	}
	if err := SeeSession(home, "", book(0)); err != nil || SessionBooks(home, "") != nil {
		t.Fatal("no session must record and read nothing")
	}
}
