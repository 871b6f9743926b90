package reporttest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// junitElement is what the de-facto JUnit schema allows of one element:
// its attributes (required ones marked), its children in order, and
// whether it holds text.
type junitElement struct {
	attrs    map[string]attrRule
	children []string
	text     bool
}

// attrRule says whether an attribute is required and what it holds.
type attrRule struct {
	required bool
	kind     attrKind
}

type attrKind int

const (
	anyText attrKind = iota
	count            // a non-negative integer
	secs             // a non-negative decimal number of seconds
)

// junitSchema encodes the elements of Jenkins' junit-10.xsd that the
// gauntlet writes (Maven Surefire's schema allows the same, with testsuite
// as root).
var junitSchema = map[string]junitElement{
	"testsuites": {attrs: map[string]attrRule{"name": {}, "tests": {kind: count}, "failures": {kind: count},
		"errors": {kind: count}, "disabled": {kind: count}, "skipped": {kind: count}, "time": {kind: secs}},
		children: []string{"testsuite"}},
	"testsuite": {attrs: map[string]attrRule{"name": {required: true}, "tests": {required: true, kind: count},
		"failures": {kind: count}, "errors": {kind: count}, "skipped": {kind: count}, "disabled": {kind: count},
		"time": {kind: secs}, "timestamp": {}, "hostname": {}, "id": {}, "package": {}, "file": {}, "group": {}},
		children: []string{"properties", "testcase", "system-out", "system-err"}},
	"properties": {children: []string{"property"}},
	"property":   {attrs: map[string]attrRule{"name": {required: true}, "value": {required: true}}},
	"testcase": {attrs: map[string]attrRule{"name": {required: true}, "classname": {}, "time": {kind: secs},
		"file": {}, "line": {kind: count}, "assertions": {kind: count}, "status": {}, "group": {}},
		children: []string{"skipped", "error", "failure", "system-out", "system-err"}},
	"skipped":    {attrs: map[string]attrRule{"message": {}}, text: true},
	"error":      {attrs: map[string]attrRule{"message": {}, "type": {}}, text: true},
	"failure":    {attrs: map[string]attrRule{"message": {}, "type": {}}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

// Suite is a parsed JUnit test suite.
type Suite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Cases    []Case `xml:"testcase"`
}

// Case is a parsed JUnit test case.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	File      string   `xml:"file,attr"`
	Skipped   *Problem `xml:"skipped"`
	Error     *Problem `xml:"error"`
	Failure   *Problem `xml:"failure"`
	SystemOut string   `xml:"system-out"`
}

// Problem is a failure, an error or a skip.
type Problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Suites is a parsed JUnit file.
type Suites struct {
	Tests    int     `xml:"tests,attr"`
	Failures int     `xml:"failures,attr"`
	Errors   int     `xml:"errors,attr"`
	Skipped  int     `xml:"skipped,attr"`
	Suites   []Suite `xml:"testsuite"`
}

// ValidateJUnit checks that data is well-formed XML following junitSchema
// under a <testsuites> root, whose counts add up, and returns it parsed.
func ValidateJUnit(data []byte) (Suites, error) {
	if err := walkJUnit(data); err != nil {
		return Suites{}, err
	}
	var s Suites
	if err := xml.Unmarshal(data, &s); err != nil {
		return Suites{}, err
	}
	var tests, failures, errs, skipped int
	for _, suite := range s.Suites {
		var f, e, sk int
		for _, c := range suite.Cases {
			switch {
			case c.Failure != nil:
				f++
			case c.Error != nil:
				e++
			case c.Skipped != nil:
				sk++
			}
			if (c.Failure != nil && c.Error != nil) || (c.Skipped != nil && (c.Failure != nil || c.Error != nil)) {
				return s, fmt.Errorf("test case %q has more than one outcome", c.Name)
			}
		}
		if suite.Tests != len(suite.Cases) || suite.Failures != f || suite.Errors != e || suite.Skipped != sk {
			return s, fmt.Errorf("suite %q counts tests=%d failures=%d errors=%d skipped=%d; its cases: %d, %d, %d, %d",
				suite.Name, suite.Tests, suite.Failures, suite.Errors, suite.Skipped, len(suite.Cases), f, e, sk)
		}
		tests, failures, errs, skipped = tests+suite.Tests, failures+f, errs+e, skipped+sk
	}
	if s.Tests != tests || s.Failures != failures || s.Errors != errs || s.Skipped != skipped {
		return s, fmt.Errorf("testsuites counts differ from its suites'")
	}
	return s, nil
}

// walkJUnit checks every element, attribute and text of data against
// junitSchema.
func walkJUnit(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	type open struct {
		name string
		next int // index in the parent's children of the last child seen
	}
	var stack []open
	root := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			el, ok := junitSchema[name]
			if !ok {
				return fmt.Errorf("unknown element <%s>", name)
			}
			if len(stack) == 0 {
				if root || name != "testsuites" {
					return fmt.Errorf("root element <%s>, want one <testsuites>", name)
				}
				root = true
			} else {
				parent := &stack[len(stack)-1]
				i := slices.Index(junitSchema[parent.name].children, name)
				if i < 0 {
					return fmt.Errorf("<%s> inside <%s>", name, parent.name)
				}
				if i < parent.next {
					return fmt.Errorf("<%s> after a later element in <%s>", name, parent.name)
				}
				parent.next = i
			}
			if err := checkAttrs(name, el, t.Attr); err != nil {
				return err
			}
			stack = append(stack, open{name: name})
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && !junitSchema[stack[len(stack)-1].name].text && len(bytes.TrimSpace(t)) > 0 {
				return fmt.Errorf("text in <%s>", stack[len(stack)-1].name)
			}
		}
	}
	if !root {
		return errors.New("no <testsuites> element")
	}
	return nil
}

// checkAttrs checks the attributes of one element.
func checkAttrs(name string, el junitElement, attrs []xml.Attr) error {
	seen := map[string]bool{}
	for _, a := range attrs {
		rule, ok := el.attrs[a.Name.Local]
		if !ok || a.Name.Space != "" {
			return fmt.Errorf("<%s> has the unknown attribute %s", name, a.Name.Local)
		}
		seen[a.Name.Local] = true
		switch rule.kind {
		case count:
			if n, err := strconv.Atoi(a.Value); err != nil || n < 0 {
				return fmt.Errorf("<%s %s=%q>: not a count", name, a.Name.Local, a.Value)
			}
		case secs:
			if f, err := strconv.ParseFloat(a.Value, 64); err != nil || f < 0 {
				return fmt.Errorf("<%s %s=%q>: not a number of seconds", name, a.Name.Local, a.Value)
			}
		}
	}
	for attr, rule := range el.attrs {
		if rule.required && !seen[attr] {
			return fmt.Errorf("<%s> lacks its %s attribute", name, attr)
		}
	}
	return nil
}
