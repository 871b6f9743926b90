package release

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// fileProxy is a file-based module proxy being written: the layout of
// GOPROXY=file://<dir> (<escaped path>/@v/list, <version>.info, .mod, .zip).
type fileProxy struct{ dir string }

// url returns the proxy's GOPROXY entry.
func (p fileProxy) url() string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p.dir)}).String()
}

// add serves mv with the given go.mod and zip files.
func (p fileProxy) add(mv module.Version, gomod []byte, files []modzip.File, at time.Time) error {
	escPath, err := module.EscapePath(mv.Path)
	if err != nil {
		return err
	}
	escVer, err := module.EscapeVersion(mv.Version)
	if err != nil {
		return err
	}
	dir := filepath.Join(p.dir, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{mv.Version, at.UTC()})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, escVer+".info"), info, 0o644); err != nil {
		return fmt.Errorf("write proxy info of %s: %w", mv, err)
	}
	if err := os.WriteFile(filepath.Join(dir, escVer+".mod"), gomod, 0o644); err != nil {
		return fmt.Errorf("write proxy go.mod of %s: %w", mv, err)
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, mv, files); err != nil {
		return fmt.Errorf("zip %s: %w", mv, err)
	}
	if err := os.WriteFile(filepath.Join(dir, escVer+".zip"), zip.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write proxy zip of %s: %w", mv, err)
	}
	list := filepath.Join(dir, "list")
	old, err := os.ReadFile(list)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", list, err)
	}
	versions := strings.Fields(string(old))
	if !slices.Contains(versions, mv.Version) {
		versions = append(versions, mv.Version)
	}
	return os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}

// treeFiles lists the files a commit of the working tree would hold
// (tracked, and untracked but not ignored), relative to root.
func treeFiles(ctx context.Context, root string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return files, nil
}

// licenseFile is the file the go command copies from the repository root
// into the zip of a module in a subdirectory that has none.
const licenseFile = "LICENSE"

// moduleFiles returns the content of a module's zip: its files as the
// working tree has them, with go.mod and go.sum given, and the
// repository's LICENSE when the module has none. That is what the go
// command makes of a commit holding this tree (the module proxy builds its
// zips with `git archive`), so the hashes match.
func moduleFiles(root string, tree []string, dir string, gomod, gosum []byte) []modzip.File {
	files := []modzip.File{dataFile{"go.mod", gomod}}
	if len(gosum) > 0 {
		files = append(files, dataFile{"go.sum", gosum})
	}
	hasLicense := false
	for _, f := range tree {
		name, ok := strings.CutPrefix(f, dir+"/")
		if !ok || name == "go.mod" || name == "go.sum" {
			continue
		}
		full := filepath.Join(root, filepath.FromSlash(f))
		if _, err := os.Lstat(full); err != nil {
			continue // tracked but deleted from the working tree
		}
		files = append(files, diskFile{name, full})
		hasLicense = hasLicense || name == licenseFile
	}
	if !hasLicense && slices.Contains(tree, licenseFile) {
		files = append(files, diskFile{licenseFile, filepath.Join(root, licenseFile)})
	}
	return files
}

// diskFile is a zip entry read from the working tree.
type diskFile struct{ name, full string }

func (f diskFile) Path() string                 { return f.name }
func (f diskFile) Lstat() (fs.FileInfo, error)  { return os.Lstat(f.full) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.full) }

// dataFile is a zip entry with given content.
type dataFile struct {
	name string
	data []byte
}

func (f dataFile) Path() string                 { return f.name }
func (f dataFile) Lstat() (fs.FileInfo, error)  { return dataInfo(f), nil }
func (f dataFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

// dataInfo describes a dataFile as a regular file.
type dataInfo dataFile

func (i dataInfo) Name() string       { return path.Base(i.name) }
func (i dataInfo) Size() int64        { return int64(len(i.data)) }
func (i dataInfo) Mode() fs.FileMode  { return 0o644 }
func (i dataInfo) ModTime() time.Time { return time.Time{} }
func (i dataInfo) IsDir() bool        { return false }
func (i dataInfo) Sys() any           { return nil }
