package release

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// sumLine is one go.sum line split into the module path, the version field
// ("v1.2.3" or "v1.2.3/go.mod") and the hash.
type sumLine struct{ path, version, hash string }

// parseSum splits go.sum content into lines; malformed lines are kept as
// they are (path holds the whole line) so that nothing is lost.
func parseSum(sum []byte) []sumLine {
	var lines []sumLine
	for _, l := range strings.Split(string(sum), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		f := strings.Fields(l)
		if len(f) != 3 {
			lines = append(lines, sumLine{path: l})
			continue
		}
		lines = append(lines, sumLine{f[0], f[1], f[2]})
	}
	return lines
}

// formatSum joins lines back into go.sum content.
func formatSum(lines []sumLine) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		if l.version == "" {
			b.WriteString(l.path)
		} else {
			fmt.Fprintf(&b, "%s %s %s", l.path, l.version, l.hash)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// withoutSiblings returns go.sum content without the lines of this
// repository's modules.
func withoutSiblings(sum []byte) []byte {
	var keep []sumLine
	for _, l := range parseSum(sum) {
		if !IsSibling(l.path) {
			keep = append(keep, l)
		}
	}
	return formatSum(keep)
}

// Tidied returns the go.mod and go.sum that module m should have in the
// working tree when p was prepared at the version the modules are in step
// at: the prepared go.mod, and the prepared go.sum in which each sibling
// line keeps the hash m's go.sum has now. Those are the hashes of the
// released version (written by the release that set the version); the
// prepared ones hash the working tree, which has moved on since. A sibling
// line that m's go.sum lacks is left out: the release writes it.
func (p *Prepared) Tidied(m *Module) Files {
	prepared := p.Files[m.Dir]
	now := map[[2]string]string{}
	for _, l := range parseSum(m.Sum) {
		now[[2]string{l.path, l.version}] = l.hash
	}
	var lines []sumLine
	for _, l := range parseSum(prepared.Sum) {
		if IsSibling(l.path) {
			h, ok := now[[2]string{l.path, l.version}]
			if !ok {
				continue
			}
			l.hash = h
		}
		lines = append(lines, l)
	}
	var sum []byte
	if len(lines) > 0 {
		sum = formatSum(lines)
	}
	return Files{Mod: prepared.Mod, Sum: sum}
}

// goEnv returns one variable of `go env`.
func goEnv(ctx context.Context, dir, name string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", name)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
