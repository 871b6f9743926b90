package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object that keeps its keys in file order and its values
// as written, so that a merge changes only what it must.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject decodes data, which must be exactly one JSON object. A repeated
// key keeps its first position and its last value, as JSON parsers do.
func parseObject(data []byte) (*object, error) {
	if !json.Valid(data) {
		return nil, errors.New("not valid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // object keys are always strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

func (o *object) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// set replaces key's value, or appends key when new.
func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// setFirst sets key, placing it first when new.
func (o *object) setFirst(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append([]string{key}, o.keys...)
	}
	o.vals[key] = v
}

// child returns key's value as an object: a new empty one when key is absent
// or null, an error when it is something else.
func (o *object) child(key string) (*object, error) {
	v, ok := o.get(key)
	if !ok || isNull(v) {
		return &object{vals: map[string]json.RawMessage{}}, nil
	}
	c, err := parseObject(v)
	if err != nil {
		return nil, fmt.Errorf("%q is not a JSON object", key)
	}
	return c, nil
}

// array returns key's value as a list of raw elements: empty when key is
// absent or null, an error when it is not an array.
func (o *object) array(key string) ([]json.RawMessage, error) {
	v, ok := o.get(key)
	if !ok || isNull(v) {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, fmt.Errorf("%q is not a JSON array", key)
	}
	return list, nil
}

// MarshalJSON writes the object compactly, keys in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(o.vals[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// pretty renders v as 2-space indented JSON with a trailing newline.
func pretty(v any) ([]byte, error) {
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping (commands hold & and >).
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }
