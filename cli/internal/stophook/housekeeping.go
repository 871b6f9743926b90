package stophook

import (
	"context"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// LogDirFrom says which configuration the log directory of a command that
// runs no gate comes from (Judgment.Housekeeping).
type LogDirFrom int

// Where Judgment.Housekeeping found the log directory.
const (
	// FromInForce: the configuration in force loads; it is the whole one.
	FromInForce LogDirFrom = iota
	// FromInForceSettings: the gates in force do not load, their
	// config.yml does and names the log directory.
	FromInForceSettings
	// FromWorkTree: the configuration in force has no config.yml that
	// loads (none trusted, or it does not load); the work tree's config.yml
	// does and names it.
	FromWorkTree
	// FromDefault: no config.yml loads; the default log directory.
	FromDefault
)

// Housekeeping is the configuration a command that runs no gate (clean)
// tidies a project up by (Judgment.Housekeeping).
type Housekeeping struct {
	// Config is the configuration read: the whole one in force, or one
	// read from a config.yml alone (From says which) for its log directory
	// and settings, its gates unknown.
	Config *config.Config
	// From says where Config comes from.
	From LogDirFrom
	// InForce is why the configuration in force does not open: it does not
	// load, or the trusted one has no gates; nil when From is FromInForce.
	InForce error
	// WorkTree is the work tree's whole configuration when it loads and is
	// not the one in force, else nil: runs by hand run it, so when the
	// gates in force are unknown its gates bound how long a run may hold
	// the lock.
	WorkTree *config.Config
}

// Housekeeping is what a command that runs no gate (clean) needs of the
// project j judges, whatever its configurations look like: the whole
// configuration in force when it loads; else (it does not load, or the
// trusted one has no gates) a configuration read from config.yml alone
// for its log directory and settings: the one in force's, else the work
// tree's, else the project root with the default log directory. Each
// candidate's log_dir is judged by every rule (tracked files included), so
// the directory is one the gauntlet may tidy up; one that breaks them is
// passed over. The error is the default log directory's problem (a
// *config.Errors naming log_dir) when every candidate is passed over. j
// must judge a project (Root not "").
func (j Judgment) Housekeeping(ctx context.Context) (Housekeeping, error) {
	h := Housekeeping{InForce: j.Err}
	if h.InForce == nil {
		if h.Config, h.InForce = j.Project.All(ctx); h.InForce == nil {
			return h, nil
		}
	}
	var wt *config.Project
	if j.Source != trust.SourceNone {
		if p, err := config.OpenProject(j.Root); err == nil && p.Root == filepath.Clean(j.Root) {
			wt = p
			h.WorkTree, _ = p.All(ctx)
		}
	}
	for _, c := range []struct {
		p    *config.Project
		from LogDirFrom
	}{{j.Project, FromInForceSettings}, {wt, FromWorkTree}} {
		if c.p == nil {
			continue
		}
		if cfg, err := c.p.LogDirSettings(ctx); err == nil {
			h.Config, h.From = cfg, c.from
			return h, nil
		}
	}
	h.From = FromDefault
	if _, err := config.NoProjectLogDir(ctx, j.Root); err != nil {
		return h, err
	}
	h.Config = &config.Config{Root: j.Root, LogDir: config.DefaultLogDir}
	return h, nil
}
