// Package jsonobj edits JSON files that people and other tools own (an
// agent's settings.json, a review JSON the agent edits) without rewriting
// what an edit does not touch: an Object keeps its keys in file order and
// its values as written, and values are encoded without HTML escaping
// (commands hold & and >).
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a JSON object that keeps its keys in file order and its
// values as written.
type Object struct {
	keys []string
	vals map[string]json.RawMessage
}

// New is an empty object.
func New() *Object { return &Object{vals: map[string]json.RawMessage{}} }

// Parse decodes data, which must be exactly one JSON object. A repeated
// key keeps its first position and its last value, as JSON parsers do.
func Parse(data []byte) (*Object, error) {
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
	o := New()
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
		o.Set(key, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

// Get returns key's value as written.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Set replaces key's value, or appends key when new.
func (o *Object) Set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// SetFirst sets key, placing it first when new.
func (o *Object) SetFirst(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append([]string{key}, o.keys...)
	}
	o.vals[key] = v
}

// SetAfter sets key, placing it right after the key after when new (last
// when after is absent).
func (o *Object) SetAfter(key, after string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		for i, k := range o.keys {
			if k == after {
				o.keys = append(o.keys[:i+1], append([]string{key}, o.keys[i+1:]...)...)
				o.vals[key] = v
				return
			}
		}
	}
	o.Set(key, v)
}

// Child returns key's value as an object: a new empty one when key is
// absent or null, an error when it is something else.
func (o *Object) Child(key string) (*Object, error) {
	v, ok := o.Get(key)
	if !ok || isNull(v) {
		return New(), nil
	}
	c, err := Parse(v)
	if err != nil {
		return nil, fmt.Errorf("%q is not a JSON object", key)
	}
	return c, nil
}

// Array returns key's value as a list of raw elements: empty when key is
// absent or null, an error when it is not an array.
func (o *Object) Array(key string) ([]json.RawMessage, error) {
	v, ok := o.Get(key)
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
func (o *Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := Marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		if err := json.Compact(&buf, o.vals[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Marshal is json.Marshal without HTML escaping.
func Marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Pretty renders v as 2-space indented JSON without HTML escaping, with a
// trailing newline.
func Pretty(v any) ([]byte, error) {
	raw, err := Marshal(v)
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

// isNull reports whether v is JSON null.
func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }
