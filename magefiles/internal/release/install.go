package release

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// GoInstall runs `go install pkg@<p.Version>` as a user would, in module
// mode with an empty GOPATH under dir (its module cache included) and the
// prepared proxy first in GOPROXY, the default proxy after it for
// third-party modules. It returns the installed binary's path. The go
// command refuses a module with replace directives, and checks every
// module it downloads, siblings included, against the go.sum of the
// module providing pkg.
func (p *Prepared) GoInstall(ctx context.Context, pkg, dir string, log io.Writer) (string, error) {
	gopath := filepath.Join(dir, "gopath")
	if err := os.MkdirAll(gopath, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", gopath, err)
	}
	env := append(p.env([]string{p.Proxy}, filepath.Join(gopath, "pkg", "mod")), "GOPATH="+gopath, "GOBIN=")
	target := pkg + "@" + p.Version
	fmt.Fprintf(log, "+ GOPATH=%s GOPROXY=%s,... go install %s\n", gopath, p.Proxy, target)
	cmd := exec.CommandContext(ctx, "go", "install", target)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go install %s: %w\n%s", target, err, strings.TrimSpace(out.String()))
	}
	bin := filepath.Join(gopath, "bin", path.Base(pkg))
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("go install %s left no binary: %w", target, err)
	}
	return bin, nil
}
