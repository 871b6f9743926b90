package git

import (
	"context"
	"slices"
	"strings"
)

// fetchActions are the first words of the reflog messages git writes when
// it moves a remote-tracking ref from a remote: `git fetch` ("fetch
// origin: fast-forward"), `git pull` and `git remote update` (through
// fetch), and `git clone` ("clone: from <url>").
var fetchActions = []string{"fetch", "pull", "clone"}

// TrackingRef returns the base branch's remote-tracking ref (the one
// ResolveRefs reads as Refs.Remote) and the remote it tracks: for main,
// refs/remotes/origin/main of origin; for upstream/main (a base that is
// one itself), refs/remotes/upstream/main of upstream.
func TrackingRef(base string) (ref, remote string) {
	if name, _, ok := strings.Cut(base, "/"); ok {
		return "refs/remotes/" + base, name
	}
	return "refs/remotes/origin/" + base, "origin"
}

// Fetched reports whether commit, what the base branch's remote-tracking
// ref names (Refs.Remote), was put there by git taking it from a remote:
// the remote the ref tracks is configured, and the ref's newest reflog
// entry moved it to commit with a fetch, a pull or a clone (or, for a ref
// with no reflog, as `git clone` leaves it, the remote's HEAD was cloned
// at commit). A ref moved by `git update-ref`, `git branch -f`, a push
// from this repository ("update by push") or a write of its files leaves
// no such entry, and a commit it names may be one the agent made: it is
// not the remote's. Nor is a fetch or pull from elsewhere (fromRemote): a
// path or url that is not the remote's configured url, another remote, or
// a fetch with no remote named while another remote's configured refspec
// writes the ref.
func Fetched(ctx context.Context, root, base, commit string) (bool, error) {
	if commit == "" || checkRef("base branch", base) != nil {
		return false, nil
	}
	ref, remote := TrackingRef(base)
	head := "refs/remotes/" + remote + "/HEAD"
	var logs, conf []byte
	err := parallel(
		func() (err error) {
			logs, _, err = run(ctx, call{root: root, args: []string{"log", "--walk-reflogs", "--ignore-missing",
				"--format=%gD%x1f%H%x1f%gs", ref, head, "--"}})
			return err
		},
		func() (err error) {
			conf, _, err = run(ctx, call{root: root, args: []string{"config", "-z", "--get-regexp", `^remote\..*\.(url|fetch)$`}, okCodes: []int{1}})
			return err
		})
	remotes := parseRemotes(conf)
	if err != nil || len(remotes[remote].urls) == 0 || strings.TrimSpace(remotes[remote].urls[0]) == "" {
		return false, err
	}
	own, cloned := "", false // the ref's newest entry; the remote's HEAD cloned at commit
	for line := range strings.Lines(string(logs)) {
		sel, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\x1f")
		name, _, _ := strings.Cut(sel, "@{")
		switch {
		case name == ref && own == "":
			own = rest
		case name == head:
			sha, msg, _ := strings.Cut(rest, "\x1f")
			cloned = cloned || sha == commit && reflogAction(msg) == "clone"
		}
	}
	if own == "" {
		return cloned, nil
	}
	sha, msg, _ := strings.Cut(own, "\x1f")
	return sha == commit && slices.Contains(fetchActions, reflogAction(msg)) && fromRemote(msg, ref, remote, remotes), nil
}

// reflogAction is the first word of a reflog message: the command that
// wrote it ("fetch" of "fetch origin: fast-forward").
func reflogAction(msg string) string {
	action, _, _ := strings.Cut(msg, ":")
	action, _, _ = strings.Cut(action, " ")
	return action
}
