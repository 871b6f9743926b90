package review

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/jsonobj"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// Mark sets "status" and "result" of the violations of the review JSON at
// path whose id is in ids and whose status is new, and returns how many it
// changed. Everything else in the file stays as it was: the keys in their
// order, fields this tool does not know, the other violations; only the
// indentation is made the tool's own (2 spaces). The file is replaced
// atomically, keeping its mode. A file without such a violation is not
// written.
func Mark(path string, ids map[string]bool, status, note string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	doc, err := jsonobj.Parse(data)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", path, err)
	}
	var list []json.RawMessage
	if raw, ok := doc.Get("violations"); ok {
		if err := json.Unmarshal(raw, &list); err != nil {
			return 0, fmt.Errorf("parse %s: violations: %w", path, err)
		}
	}
	statusRaw, _ := jsonobj.Marshal(status) // a string always encodes
	noteRaw, _ := jsonobj.Marshal(note)
	changed := 0
	for i, raw := range list {
		var v gate.Violation
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		v.Line = normalizeLine(v.Line)
		if !ids[ID(v)] || StatusOf(v) != gate.ViolationNew {
			continue
		}
		obj, err := jsonobj.Parse(raw)
		if err != nil {
			continue
		}
		obj.Set("status", statusRaw)
		obj.SetAfter("result", "status", noteRaw)
		if list[i], err = obj.MarshalJSON(); err != nil {
			return 0, fmt.Errorf("encode %s: %w", path, err)
		}
		changed++
	}
	if changed == 0 {
		return 0, nil
	}
	raw, err := jsonobj.Marshal(list)
	if err != nil {
		return 0, fmt.Errorf("encode %s: %w", path, err)
	}
	doc.Set("violations", raw)
	out, err := jsonobj.Pretty(doc)
	if err != nil {
		return 0, fmt.Errorf("encode %s: %w", path, err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := atomicfile.Write(path, out, mode); err != nil {
		return 0, err
	}
	_ = logdir.Note(path, true) // a new file in its place; see slotLog.Close
	return changed, nil
}
