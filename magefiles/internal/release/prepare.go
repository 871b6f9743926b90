package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// Files are a module's go.mod and go.sum contents.
type Files struct{ Mod, Sum []byte }

// Prepared is the repository's modules made ready for one version, and the
// file-based module proxy that serves them at it.
type Prepared struct {
	// Version is the version the modules were prepared for.
	Version string
	// Order is the modules, each after the siblings it imports.
	Order []*Module
	// Files holds, by module directory, the go.mod and go.sum each module
	// has at Version.
	Files map[string]Files
	// Proxy is the GOPROXY entry of the proxy (file://...).
	Proxy string
	// goproxy is the GOPROXY the go command had before: the default proxy
	// that serves everything else.
	goproxy string
}

// Prepare serves every module of s at version from a file-based module
// proxy written under work, a directory the caller owns and removes. The
// modules go in dependency order; for each, its go.mod with every sibling
// requirement set to version is tidied by `go mod tidy` in module mode
// against the proxy, which writes the go.sum lines of the siblings from
// the zips already served, and the module is then served with the result.
// Commands run are echoed to log.
func Prepare(ctx context.Context, s *Set, version, work string, log io.Writer) (*Prepared, error) {
	if err := module.Check(RepoPath+"/"+s.Modules[0].Dir, version); err != nil {
		return nil, fmt.Errorf("version %q: %w", version, err)
	}
	if lines := s.Replaces(); len(lines) > 0 {
		return nil, errors.New(strings.Join(lines, "\n"))
	}
	order, err := s.Order(ctx)
	if err != nil {
		return nil, err
	}
	tree, err := treeFiles(ctx, s.Root)
	if err != nil {
		return nil, err
	}
	goproxy, err := goEnv(ctx, s.Root, "GOPROXY")
	if err != nil {
		return nil, err
	}
	modcache, err := goEnv(ctx, s.Root, "GOMODCACHE")
	if err != nil {
		return nil, err
	}
	proxy := fileProxy{filepath.Join(work, "proxy")}
	p := &Prepared{Version: version, Order: order, Files: map[string]Files{}, Proxy: proxy.url(), goproxy: goproxy}
	// Tidying needs every third-party module in the graph: the local
	// module cache serves the ones already downloaded, offline.
	chain := []string{p.Proxy}
	if modcache != "" {
		chain = append(chain, fileProxy{filepath.Join(modcache, "cache", "download")}.url())
	}
	env := p.env(chain, filepath.Join(work, "modcache"))
	now := time.Now()
	for _, m := range order {
		files, err := tidy(ctx, s.Root, m, version, filepath.Join(work, "gomod", filepath.FromSlash(m.Dir)), env, log)
		if err != nil {
			return nil, err
		}
		p.Files[m.Dir] = files
		mv := module.Version{Path: m.Path, Version: version}
		if err := proxy.add(mv, files.Mod, moduleFiles(s.Root, tree, m.Dir, files.Mod, files.Sum), now); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// env returns the environment of a go command in module mode that fetches
// modules through the proxies of chain and then the default GOPROXY,
// checks the repository's own modules against go.sum only (they are not
// in the checksum database), and keeps its module cache in modcache,
// writable so that it can be removed.
func (p *Prepared) env(chain []string, modcache string) []string {
	if p.goproxy != "" {
		chain = append(chain, p.goproxy)
	}
	return append(os.Environ(),
		"GOWORK=off",
		"GOPROXY="+strings.Join(chain, ","),
		"GONOSUMDB="+RepoPath,
		"GOFLAGS=-modcacherw",
		"GOMODCACHE="+modcache,
	)
}

// tidy writes m's go.mod with its sibling requirements at version, and its
// go.sum without sibling lines, into scratch, runs `go mod tidy -modfile`
// on them in m's directory, and returns the result. The module's own files
// are not touched.
func tidy(ctx context.Context, root string, m *Module, version, scratch string, env []string, log io.Writer) (Files, error) {
	f, err := modfile.Parse(m.moduleFile("go.mod"), m.Mod, nil)
	if err != nil {
		return Files{}, err
	}
	for _, r := range f.Require {
		if IsSibling(r.Mod.Path) {
			if err := f.AddRequire(r.Mod.Path, version); err != nil {
				return Files{}, fmt.Errorf("%s: %w", m.moduleFile("go.mod"), err)
			}
		}
	}
	f.Cleanup()
	gomod, err := f.Format()
	if err != nil {
		return Files{}, fmt.Errorf("format %s: %w", m.moduleFile("go.mod"), err)
	}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return Files{}, fmt.Errorf("create %s: %w", scratch, err)
	}
	modPath, sumPath := filepath.Join(scratch, "go.mod"), filepath.Join(scratch, "go.sum")
	if err := os.WriteFile(modPath, gomod, 0o644); err != nil {
		return Files{}, err
	}
	if err := os.WriteFile(sumPath, withoutSiblings(m.Sum), 0o644); err != nil {
		return Files{}, err
	}
	fmt.Fprintf(log, "+ (cd %s && GOWORK=off go mod tidy) at %s\n", m.Dir, version)
	cmd := exec.CommandContext(ctx, "go", "mod", "tidy", "-modfile="+modPath)
	cmd.Dir = filepath.Join(root, filepath.FromSlash(m.Dir))
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return Files{}, fmt.Errorf("go mod tidy in %s at %s: %w\n%s", m.Dir, version, err, strings.TrimSpace(out.String()))
	}
	var files Files
	if files.Mod, err = os.ReadFile(modPath); err != nil {
		return Files{}, err
	}
	if files.Sum, err = os.ReadFile(sumPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return Files{}, err
	}
	return files, nil
}
