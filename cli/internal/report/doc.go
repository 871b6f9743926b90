// Package report turns the result of a run (`run`, `check`, `review`) into
// machine-readable reports: the JSON document of --format json (its schema
// is docs/report.schema.json), JUnit XML for test reporters (--junit) and
// SARIF 2.1.0 for code scanning (--sarif).
//
// Every report describes every outcome the command reaches, gates run or
// not, and each report file is written atomically.
package report
