// Package reporttest validates reports as their consumers read them: the
// JSON document against docs/report.schema.json, JUnit XML against the
// element and attribute rules of the de-facto JUnit schema (Jenkins'
// junit-10.xsd and Maven Surefire's report schema), SARIF with go-sarif's
// own parser and the official SARIF 2.1.0 JSON schema. Tests and the
// testscript commands use it; the program does not.
package reporttest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/owenrumney/go-sarif/v2/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema is the official SARIF 2.1.0 JSON schema, OASIS Standard
// errata 01 (its id: https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
// as go-sarif v3.3.1 embeds it, unchanged.
//
//go:embed sarif-schema-2.1.0.json
var sarifSchema []byte

// ReportSchemaFile is the JSON report's schema, relative to the
// repository root.
const ReportSchemaFile = "docs/report.schema.json"

// ReportSchemaPath finds ReportSchemaFile in the current directory or
// above it (the repository of the test).
func ReportSchemaPath() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, filepath.FromSlash(ReportSchemaFile))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%s not found above the working directory", ReportSchemaFile)
		}
		dir = parent
	}
}

// compile compiles the schema in data, known by url.
func compile(url string, data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse schema %s: %w", url, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

var (
	reportSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
		p, err := ReportSchemaPath()
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		return compile("file://"+filepath.ToSlash(p), data)
	})
	sarifSchemaCompiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
		return compile("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json", sarifSchema)
	})
)

// validate checks that data is one JSON document valid against s.
func validate(s *jsonschema.Schema, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return errors.New("more than one JSON document")
	}
	return s.Validate(v)
}

// ValidateJSON checks that data is one JSON report valid against
// docs/report.schema.json.
func ValidateJSON(data []byte) error {
	s, err := reportSchema()
	if err != nil {
		return err
	}
	return validate(s, data)
}

// ValidateSARIF checks that data parses with go-sarif into a SARIF 2.1.0
// log of one run and is valid against the official SARIF 2.1.0 schema.
func ValidateSARIF(data []byte) error {
	rep, err := sarif.FromBytes(data)
	if err != nil {
		return fmt.Errorf("go-sarif: %w", err)
	}
	if rep.Version != string(sarif.Version210) || len(rep.Runs) != 1 {
		return fmt.Errorf("version %q with %d runs, want 2.1.0 with one run", rep.Version, len(rep.Runs))
	}
	s, err := sarifSchemaCompiled()
	if err != nil {
		return err
	}
	if err := validate(s, data); err != nil {
		return fmt.Errorf("SARIF 2.1.0 schema: %w", err)
	}
	return nil
}

// SARIFResults parses data with go-sarif and returns its results.
func SARIFResults(data []byte) ([]*sarif.Result, *sarif.Run, error) {
	rep, err := sarif.FromBytes(data)
	if err != nil {
		return nil, nil, err
	}
	if len(rep.Runs) == 0 {
		return nil, nil, errors.New("no run")
	}
	return rep.Runs[0].Results, rep.Runs[0], nil
}
