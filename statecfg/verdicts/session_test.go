package verdicts

import (
	"fmt"
	"reflect"
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
	if len(got) != MaxSession || !reflect.DeepEqual(got[0], book(MaxSession)) || !reflect.DeepEqual(got[1], book(MaxSession+1)) {
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

// A book is one book by its ID wherever its key: judged again at another
// key (its repository moved) it replaces its record, while another book
// at the same key (a repository made anew or cloned at its path) is
// another book, and the record of the one before stays. Records made
// before books had IDs are told apart by their keys.
func TestSessionBookIdentity(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at1 := Key{CommonDir: "/r/.git", Project: ".", Worktree: "."}
	at2 := Key{CommonDir: "/moved/.git", Project: ".", Worktree: "."}
	for _, c := range []struct {
		name        string
		first, then SessionBook
		kept        int
	}{
		{"the same book moved", SessionBook{Key: at1, BookID: "A", Failing: []string{"check:x"}}, SessionBook{Key: at2, BookID: "A"}, 1},
		{"another book at its key", SessionBook{Key: at1, BookID: "A", Failing: []string{"check:x"}}, SessionBook{Key: at1, BookID: "B"}, 2},
		{"records without IDs, the same key", SessionBook{Key: at1}, SessionBook{Key: at1}, 1},
		{"records without IDs, another key", SessionBook{Key: at1}, SessionBook{Key: at2}, 2},
		{"a book with an ID at a key recorded without one", SessionBook{Key: at1}, SessionBook{Key: at1, BookID: "A"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			c.first.At, c.then.At = at, at
			for _, b := range []SessionBook{c.first, c.then} {
				if err := SeeSession(home, "s1", b); err != nil {
					t.Fatal(err)
				}
			}
			got := SessionBooks(home, "s1")
			if len(got) != c.kept || !reflect.DeepEqual(got[0], c.then) {
				t.Fatalf("books = %+v, want %d, the first %+v", got, c.kept, c.then)
			}
		})
	}
}

// A book keeps its ID through every write, a whole book held in memory
// written over it included (a run's), and another book has another one.
func TestBookIDKept(t *testing.T) {
	k := Key{CommonDir: t.TempDir(), Project: ".", Worktree: "."}
	id := func(k Key) string {
		b, err := Read(k)
		if err != nil || b == nil {
			t.Fatalf("read %v: %v", k, err)
		}
		return b.ID
	}
	if err := Update(k, func(b *Book) error { b.Branch = "a"; return nil }); err != nil {
		t.Fatal(err)
	}
	first := id(k)
	for _, change := range []func(b *Book){
		func(b *Book) { b.Branch = "b" },
		func(b *Book) { *b = *NewBook() },
	} {
		if err := Update(k, func(b *Book) error { change(b); return nil }); err != nil {
			t.Fatal(err)
		}
		if got := id(k); first == "" || got != first {
			t.Fatalf("ID %q after a write, was %q", got, first)
		}
	}
	other := Key{CommonDir: t.TempDir(), Project: ".", Worktree: "."}
	if err := Update(other, func(*Book) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if id(other) == first {
		t.Fatal("two books share an ID")
	}
}
