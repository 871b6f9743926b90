package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/atomicfile"
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
	doc, err := parseOrdered(data)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", path, err)
	}
	var list []json.RawMessage
	if raw, ok := doc.vals["violations"]; ok {
		if err := json.Unmarshal(raw, &list); err != nil {
			return 0, fmt.Errorf("parse %s: violations: %w", path, err)
		}
	}
	statusRaw, noteRaw := jsonString(status), jsonString(note)
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
		obj, err := parseOrdered(raw)
		if err != nil {
			continue
		}
		obj.set("status", statusRaw)
		obj.setAfter("result", "status", noteRaw)
		if list[i], err = obj.MarshalJSON(); err != nil {
			return 0, fmt.Errorf("encode %s: %w", path, err)
		}
		changed++
	}
	if changed == 0 {
		return 0, nil
	}
	raw, err := marshalRaw(list)
	if err != nil {
		return 0, fmt.Errorf("encode %s: %w", path, err)
	}
	doc.set("violations", raw)
	compact, err := doc.MarshalJSON()
	if err != nil {
		return 0, fmt.Errorf("encode %s: %w", path, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return 0, fmt.Errorf("encode %s: %w", path, err)
	}
	out.WriteByte('\n')
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := atomicfile.Write(path, out.Bytes(), mode); err != nil {
		return 0, err
	}
	return changed, nil
}

// jsonString is s as a JSON string, HTML characters not escaped.
func jsonString(s string) json.RawMessage {
	raw, _ := marshalRaw(s) // a string always encodes
	return raw
}

// marshalRaw is json.Marshal without HTML escaping.
func marshalRaw(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// ordered is a JSON object that keeps its keys in file order and its
// values as written.
type ordered struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseOrdered decodes data, which must be one JSON object.
func parseOrdered(data []byte) (*ordered, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &ordered{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

// set replaces key's value, or appends key.
func (o *ordered) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// setAfter replaces key's value, or inserts key right after the key after.
func (o *ordered) setAfter(key, after string, v json.RawMessage) {
	if _, ok := o.vals[key]; ok {
		o.vals[key] = v
		return
	}
	for i, k := range o.keys {
		if k == after {
			o.keys = append(o.keys[:i+1], append([]string{key}, o.keys[i+1:]...)...)
			o.vals[key] = v
			return
		}
	}
	o.set(key, v)
}

// MarshalJSON writes the object compactly, keys in order.
func (o *ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := marshalRaw(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		var c bytes.Buffer
		if err := json.Compact(&c, o.vals[k]); err != nil {
			return nil, err
		}
		b.Write(c.Bytes())
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
