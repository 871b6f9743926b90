package git

import (
	"path/filepath"
	"slices"
	"strings"
)

// remoteConf is what the configuration says of one remote: its urls and
// its fetch refspecs.
type remoteConf struct {
	urls, fetch []string
}

// parseRemotes reads `git config -z --get-regexp` output of
// remote.<name>.url and remote.<name>.fetch into each remote's settings.
func parseRemotes(out []byte) map[string]remoteConf {
	remotes := map[string]remoteConf{}
	for entry := range strings.SplitSeq(string(out), "\x00") {
		key, value, _ := strings.Cut(entry, "\n")
		rest, ok := strings.CutPrefix(key, "remote.")
		if !ok {
			continue
		}
		dot := strings.LastIndexByte(rest, '.')
		if dot < 0 {
			continue
		}
		name, field := rest[:dot], rest[dot+1:]
		c := remotes[name]
		switch field {
		case "url":
			c.urls = append(c.urls, value)
		case "fetch":
			c.fetch = append(c.fetch, value)
		}
		remotes[name] = c
	}
	return remotes
}

// valueOptions are the options of `git fetch` and `git pull` whose value
// may follow as the next word, so that word is no repository.
var valueOptions = []string{"--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j", "--jobs",
	"--upload-pack", "--negotiation-tip", "-o", "--server-option", "--filter", "--refmap",
	"--submodule-prefix", "--recurse-submodules-default", "-s", "--strategy", "-X", "--strategy-option",
	"--cleanup", "--shallow-submodules"}

// fromRemote reports whether a fetch or pull reflog message (git writes
// "fetch <arguments>: <note>") took ref from remote: the repository it
// names is remote or one of remote's configured urls; or it names none
// (or fetched several, --all, --multiple, as `git remote update` does)
// and no other configured remote has a fetch refspec that writes ref. A
// clone's entry ("clone: from <url>") is the repository's first. Any word
// it cannot place makes the answer no: an unverified base is judged from
// the trusted start point, never from the agent's.
func fromRemote(msg, ref, remote string, remotes map[string]remoteConf) bool {
	action, _, _ := strings.Cut(msg, ":")
	words := strings.Fields(action)
	if len(words) == 0 || words[0] == "clone" {
		return len(words) > 0
	}
	var positional []string
	multiple, dashdash := false, false
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case dashdash || !strings.HasPrefix(w, "-"):
			positional = append(positional, w)
		case w == "--":
			dashdash = true
		case w == "--all" || w == "--multiple":
			multiple = true
		case slices.Contains(valueOptions, w):
			i++
		}
	}
	if multiple {
		return !slices.ContainsFunc(positional, func(p string) bool { return p != remote && !isURLOf(p, remotes[remote]) && remotes[p].urls == nil }) &&
			!otherWrites(ref, remote, remotes)
	}
	if len(positional) == 0 {
		return !otherWrites(ref, remote, remotes)
	}
	return positional[0] == remote || isURLOf(positional[0], remotes[remote])
}

// isURLOf reports whether repo is one of c's urls, as written or, both
// absolute paths, as the same path.
func isURLOf(repo string, c remoteConf) bool {
	return slices.ContainsFunc(c.urls, func(u string) bool {
		return u == repo || filepath.IsAbs(u) && filepath.IsAbs(repo) && filepath.Clean(u) == filepath.Clean(repo)
	})
}

// otherWrites reports whether a remote other than remote has a configured
// fetch refspec whose destination is ref.
func otherWrites(ref, remote string, remotes map[string]remoteConf) bool {
	for name, c := range remotes {
		if name == remote {
			continue
		}
		for _, spec := range c.fetch {
			if strings.HasPrefix(spec, "^") {
				continue
			}
			_, dst, ok := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
			if ok && refspecMatches(dst, ref) {
				return true
			}
		}
	}
	return false
}

// refspecMatches reports whether a refspec side (with at most one *)
// names ref.
func refspecMatches(pattern, ref string) bool {
	pre, post, star := strings.Cut(pattern, "*")
	if !star {
		return pattern == ref
	}
	return len(ref) >= len(pre)+len(post) && strings.HasPrefix(ref, pre) && strings.HasSuffix(ref, post)
}
