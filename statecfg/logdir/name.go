package logdir

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Kind tells which of the log directory's numbered files a Name is.
type Kind int

// The numbered files: the gauntlet's four formats, and any other file named
// <stem>.<run>.log or .json.
const (
	// KindOther is a numbered file in none of the formats below (written by
	// hand or by another tool). It counts for run numbering only.
	KindOther Kind = iota
	// KindConsole is a run's console log: console.<run>.log.
	KindConsole
	// KindJobLog is a check job's log: <job>.<run>.log.
	KindJobLog
	// KindSlotLog is a review slot's log: <job>_<adapter>@<slot>.<run>.log.
	KindSlotLog
	// KindSlotJSON is a review slot's violations, the file the agent edits:
	// <job>_<adapter>@<slot>.<run>.json.
	KindSlotJSON
)

// File extensions of the numbered files.
const (
	extLog  = ".log"
	extJSON = ".json"
)

// consoleStem starts every console log name.
const consoleStem = "console"

// Name is the one format of every numbered file in the log directory. Job
// ids (`<kind>:<entry point>:<gate>`) appear in it encoded by JobStem, which
// is injective (two jobs never share a file) and gives the names the
// TypeScript tool wrote for simple ids.
type Name struct {
	Kind Kind
	// Job is the job id (KindJobLog, KindSlotLog, KindSlotJSON).
	Job string
	// Adapter and Slot name a review slot (KindSlotLog, KindSlotJSON):
	// adapter@slot, slot counting from 1.
	Adapter string
	Slot    int
	// Run is the run number N of the .N.log or .N.json suffix.
	Run int
	// other is the file name of a KindOther name.
	other string
}

// ConsoleName is run's console log: console.<run>.log.
func ConsoleName(run int) Name { return Name{Kind: KindConsole, Run: run} }

// JobLogName is the log of check job in run.
func JobLogName(job string, run int) Name { return Name{Kind: KindJobLog, Job: job, Run: run} }

// SlotLogName is the log of review job's slot on adapter in run.
func SlotLogName(job, adapter string, slot, run int) Name {
	return Name{Kind: KindSlotLog, Job: job, Adapter: adapter, Slot: slot, Run: run}
}

// SlotJSONName is the violations file of review job's slot on adapter in run.
func SlotJSONName(job, adapter string, slot, run int) Name {
	return Name{Kind: KindSlotJSON, Job: job, Adapter: adapter, Slot: slot, Run: run}
}

// String is the file name.
func (n Name) String() string {
	suffix := "." + strconv.Itoa(n.Run) + extLog
	switch n.Kind {
	case KindConsole:
		return consoleStem + suffix
	case KindJobLog:
		return JobStem(n.Job) + suffix
	case KindSlotLog, KindSlotJSON:
		ext := extLog
		if n.Kind == KindSlotJSON {
			ext = extJSON
		}
		return JobStem(n.Job) + "_" + n.Adapter + "@" + strconv.Itoa(n.Slot) + "." + strconv.Itoa(n.Run) + ext
	}
	return n.other
}

// Path is the file's path in dir.
func (n Name) Path(dir string) string { return filepath.Join(dir, n.String()) }

// IsGate reports whether the file was written by a gate (a check log or a
// review slot's log or JSON): the files a verification run verifies.
func (n Name) IsGate() bool {
	return n.Kind == KindJobLog || n.Kind == KindSlotLog || n.Kind == KindSlotJSON
}

// ParseName reads a file name of the log directory's root. It is false for
// anything but <stem>.<run>.log and <stem>.<run>.json (and for hidden
// files); a numbered name in none of the gauntlet's formats is KindOther.
// The gauntlet's formats are read exactly as String writes them, so
// ParseName(n.String()) is n.
func ParseName(file string) (Name, bool) {
	if strings.HasPrefix(file, ".") {
		return Name{}, false
	}
	rest, ext := file, ""
	switch {
	case strings.HasSuffix(file, extLog):
		rest, ext = strings.TrimSuffix(file, extLog), extLog
	case strings.HasSuffix(file, extJSON):
		rest, ext = strings.TrimSuffix(file, extJSON), extJSON
	default:
		return Name{}, false
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot <= 0 {
		return Name{}, false
	}
	stem, digits := rest[:dot], rest[dot+1:]
	run, ok := number(digits)
	if !ok {
		return Name{}, false
	}
	other := Name{Kind: KindOther, Run: run, other: file}
	if strconv.Itoa(run) != digits {
		return other, true // leading zeros: not written by the gauntlet
	}
	if stem == consoleStem {
		if ext != extLog {
			return other, true
		}
		return ConsoleName(run), true
	}
	if at := strings.LastIndexByte(stem, '@'); at >= 0 {
		return parseSlot(stem[:at], stem[at+1:], ext, run, other), true
	}
	job, ok := ParseJobStem(stem)
	if !ok || ext != extLog {
		return other, true
	}
	return JobLogName(job, run), true
}

// parseSlot reads the <job>_<adapter> and <slot> parts of a slot file name.
func parseSlot(jobAdapter, slotDigits, ext string, run int, other Name) Name {
	slot, ok := number(slotDigits)
	if !ok || slot < 1 || strconv.Itoa(slot) != slotDigits {
		return other
	}
	us := strings.LastIndexByte(jobAdapter, '_')
	if us < 0 {
		return other
	}
	adapter := jobAdapter[us+1:]
	job, ok := ParseJobStem(jobAdapter[:us])
	if !ok || !ValidAdapterName(adapter) {
		return other
	}
	if ext == extJSON {
		return SlotJSONName(job, adapter, slot, run)
	}
	return SlotLogName(job, adapter, slot, run)
}

// number reads a run or slot number: ASCII digits only.
func number(s string) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// ValidAdapterName is the one rule for the adapter part of a slot file name:
// letters, digits and '-' (every review CLI name is one).
func ValidAdapterName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// JobStem encodes a job id `<kind>:<entry point>:<gate>` for file names:
// the two ':' separators (the first and the last ':') become '_', a '/' of
// the entry point becomes '_', letters, digits, '.' and '-' stay, and every
// other byte (a literal '_' or ':', a space, '%', non-ASCII) becomes %XX
// (upper-case hex). Simple ids keep the name the TypeScript tool gave them
// (check:src:lint → check_src_lint, check:packages/api:lint →
// check_packages_api_lint); check:pkg_a:lint is check_pkg%5Fa_lint, so it
// no longer shares a file with check:pkg/a:lint. The encoding is injective:
// ParseJobStem reverses it. An id without two ':' has every ':' escaped; a
// leading '.' is escaped too (no hidden files).
func JobStem(job string) string {
	var stem string
	first, last := strings.IndexByte(job, ':'), strings.LastIndexByte(job, ':')
	if first < 0 || first == last {
		stem = escape(job, false)
	} else {
		stem = escape(job[:first], false) + "_" + escape(job[first+1:last], true) + "_" + escape(job[last+1:], false)
	}
	if strings.HasPrefix(stem, ".") {
		stem = "%2E" + stem[1:]
	}
	return stem
}

// ParseJobStem is the job id a JobStem encodes; false for a stem JobStem
// never writes.
func ParseJobStem(stem string) (string, bool) {
	first, last := strings.IndexByte(stem, '_'), strings.LastIndexByte(stem, '_')
	if first < 0 || first == last {
		return "", false
	}
	kind, ok1 := unescape(stem[:first])
	entry, ok2 := unescape(strings.ReplaceAll(stem[first+1:last], "_", "/"))
	gate, ok3 := unescape(stem[last+1:])
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	job := kind + ":" + entry + ":" + gate
	if JobStem(job) != stem {
		return "", false // not in the canonical form (lower-case hex, needless escapes)
	}
	return job, true
}

// escape keeps letters, digits, '.' and '-', turns '/' into '_' when slash
// is set, and writes every other byte as %XX.
func escape(s string, slash bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isAlnum(c) || c == '.' || c == '-':
			b.WriteByte(c)
		case slash && c == '/':
			b.WriteByte('_')
		default:
			const hex = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		}
	}
	return b.String()
}

// unescape decodes %XX sequences; false on a malformed one.
func unescape(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Scan lists the numbered files at the root of dir (see ParseName),
// directories and other files left out; a missing dir has none.
func Scan(dir string) ([]Name, error) {
	files, err := readRoot(dir)
	if err != nil {
		return nil, err
	}
	var names []Name
	for _, f := range files {
		if n, ok := ParseName(f); ok {
			names = append(names, n)
		}
	}
	return names, nil
}
