package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
)

// Sight is what a gate that reads only some paths of the work tree can
// see there: those paths, and whatever the symbolic links among them,
// below them or on the way to them lead to, followed again from there
// (a link in src to ../conf, a link in conf to ../r.txt, ...).
type Sight struct {
	// Reached are the paths of the work tree (relative to its top level,
	// "" for the top level) that links lead to from the paths the gate
	// reads, beyond those paths.
	Reached []string
	// Ends identifies where each of those links leads (the path it
	// resolves to, or what is there when the snapshot does not hold it):
	// "" for no link.
	Ends string
}

// SightOf is the Sight of a gate that reads the paths scope (relative to
// the top level of the work tree, "" for all of it), given where every
// link of the snapshot leads (ends, sorted by Link: git.TreeSnapshot's
// LinkEnds). A link counts when it is one of the paths read, below one or
// above one (a named path through a linked directory); what it leads to
// in the work tree is then read too.
func SightOf(scope []string, ends []git.LinkEnd) Sight {
	byLink := make(map[string]int, len(ends))
	for i, e := range ends {
		byLink[e.Link] = i
	}
	taken := make([]bool, len(ends))
	seen := map[string]bool{}
	var queue, reached []string
	push := func(p string, extra bool) {
		if seen[""] || seen[p] {
			return
		}
		for dir := p; extra; {
			cut := strings.LastIndexByte(dir, '/')
			if cut < 0 {
				break
			}
			if dir = dir[:cut]; seen[dir] {
				return // read already, with the links below it
			}
		}
		seen[p] = true
		queue = append(queue, p)
		if extra {
			reached = append(reached, p)
		}
	}
	for _, p := range scope {
		push(p, false)
	}
	take := func(i int) {
		if taken[i] {
			return
		}
		taken[i] = true
		if ends[i].ID == "" {
			push(ends[i].Tree, true)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		// The link at p, those below it and those on the way to it.
		if p == "" {
			for i := range ends {
				take(i)
			}
			continue
		}
		if i, ok := byLink[p]; ok {
			take(i)
		}
		lo, _ := slices.BinarySearchFunc(ends, p+"/", func(e git.LinkEnd, t string) int { return strings.Compare(e.Link, t) })
		for i := lo; i < len(ends) && strings.HasPrefix(ends[i].Link, p+"/"); i++ {
			take(i)
		}
		for dir := p; ; {
			cut := strings.LastIndexByte(dir, '/')
			if cut < 0 {
				break
			}
			dir = dir[:cut]
			if i, ok := byLink[dir]; ok {
				take(i)
			}
		}
	}
	h := sha256.New()
	n := 0
	for i, e := range ends {
		if !taken[i] {
			continue
		}
		n++
		if e.ID != "" {
			fmt.Fprintf(h, "%s\x00%s\x00", e.Link, e.ID)
		} else {
			fmt.Fprintf(h, "%s\x00tree %s\x00", e.Link, e.Tree)
		}
	}
	s := Sight{Reached: reached}
	if n > 0 {
		s.Ends = hex.EncodeToString(h.Sum(nil))
	}
	slices.Sort(s.Reached)
	return s
}
