package verdicts

import (
	"slices"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// sessionKind is the store's kind of the session records (SeeSession),
// kept in the per-user state directory (StateHome).
const sessionKind = "session"

// MaxSession bounds the books a session record keeps: the most recently
// judged ones.
const MaxSession = 8

// session is the books the stops of one agent session judged. A book is
// keyed by its worktree's git directory (Key.Worktree), not by the path a
// stop reports: a worktree moved away keeps its book, and another one
// added at the session's path gets a fresh one. This record ties them
// together, so that a later stop of the session, wherever it reports,
// still finds the book its earlier stops left failing.
type session struct {
	// Session is the session id, the record's key: a record found under
	// another key (a name shortened by a hash) is no record.
	Session string `json:"session"`
	// Books are the books judged, the most recent first.
	Books []SessionBook `json:"books"`
}

// SessionBook is a book a stop of a session judged: its key, the project
// root the stop judged (where the work tree was then), and when; the
// book's own ID (Book.ID, "" when it had none yet), which tells it from
// another book found later at the same key (a repository made anew or
// cloned at its path) and finds it again at another (its repository
// moved); and the gates the session's last answer there left failing or
// dropped unverified, all that is known of them once the book is out of
// reach.
type SessionBook struct {
	Key     Key       `json:"key"`
	Root    string    `json:"root"`
	At      time.Time `json:"at"`
	BookID  string    `json:"book_id,omitempty"`
	Failing []string  `json:"failing,omitempty"`
}

// Of reports that b records the book at k whose ID is id: the same ID,
// or, for a record made without one, the same key. A book found at b's
// key under another ID, or under none, is another book (a repository
// made anew or cloned at its path).
func (b SessionBook) Of(k Key, id string) bool {
	if b.BookID == "" {
		return b.Key == k
	}
	return b.BookID == id
}

// SeeSession records b as the book a stop of session judged, in place of
// any record of the same book (SessionBook.Of): another book once at b's
// key (a repository made anew at its path) keeps its own record. The
// record keeps the MaxSession most recent books; it is written only when
// b is not already the most recent one as it is. stateHome or session ""
// records nothing.
func SeeSession(stateHome, id string, b SessionBook) error {
	if stateHome == "" || id == "" {
		return nil
	}
	var s session
	return store.Open(stateHome, sessionKind).Update(&s, func() (bool, error) {
		if s.Session != id {
			s = session{Session: id}
		}
		if len(s.Books) > 0 && s.Books[0].Key == b.Key && s.Books[0].Root == b.Root && s.Books[0].BookID == b.BookID &&
			slices.Equal(s.Books[0].Failing, b.Failing) {
			return false, nil
		}
		s.Books = slices.DeleteFunc(s.Books, func(o SessionBook) bool { return o.Of(b.Key, b.BookID) })
		s.Books = append([]SessionBook{b}, s.Books...)
		s.Books = s.Books[:min(len(s.Books), MaxSession)]
		return true, nil
	}, id)
}

// SessionBooks are the books recorded as judged by the stops of session
// id (SeeSession), the most recent first; none for no record, one that
// cannot be read, or one made for another session.
func SessionBooks(stateHome, id string) []SessionBook {
	if stateHome == "" || id == "" {
		return nil
	}
	var s session
	if ok, err := store.Open(stateHome, sessionKind).Read(&s, id); !ok || err != nil || s.Session != id {
		return nil
	}
	return s.Books[:min(len(s.Books), MaxSession)]
}
