package logdir

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fname"
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

// Bounds of the parts of a file name that follow a job's stem, and of the
// temporary name an atomic write gives it first (see atomicfile): the
// stems are kept short enough for the longest of them (maxStem).
const (
	// maxAdapterBytes bounds an adapter's name (the longest known one,
	// github-copilot, has 14 bytes).
	maxAdapterBytes = 32
	// maxSlotDigits and maxRunDigits bound the slot and run numbers.
	maxSlotDigits = 4
	maxRunDigits  = 10
	// longestSuffix is "_<adapter>@<slot>.<run>.json" at its longest.
	longestSuffix = 1 + maxAdapterBytes + 1 + maxSlotDigits + 1 + maxRunDigits + len(extJSON)
	// tempAffixes are the "." and ".<random>.tmp" of a temporary file.
	tempAffixes = 1 + 1 + 10 + len(".tmp")
	// maxStem is the length of a shortened stem; every other stem is
	// shorter.
	maxStem = fname.MaxBytes - tempAffixes - longestSuffix
)

// Name is the one format of every numbered file in the log directory. The
// job's part of a gate file's name is its stem, which JobNames gives a job
// id and reads back; ParseName and String go from file names to Names and
// back without knowing the jobs.
type Name struct {
	Kind Kind
	// Stem is the job's part of the name (KindJobLog, KindSlotLog,
	// KindSlotJSON), as JobNames writes it.
	Stem string
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

// String is the file name.
func (n Name) String() string {
	suffix := "." + strconv.Itoa(n.Run) + extLog
	switch n.Kind {
	case KindConsole:
		return consoleStem + suffix
	case KindJobLog:
		return n.Stem + suffix
	case KindSlotLog, KindSlotJSON:
		ext := extLog
		if n.Kind == KindSlotJSON {
			ext = extJSON
		}
		return n.Stem + "_" + n.Adapter + "@" + strconv.Itoa(n.Slot) + "." + strconv.Itoa(n.Run) + ext
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
	if !validStem(stem) || ext != extLog {
		return other, true
	}
	return Name{Kind: KindJobLog, Stem: stem, Run: run}, true
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
	stem, adapter := jobAdapter[:us], jobAdapter[us+1:]
	if !validStem(stem) || !ValidAdapterName(adapter) {
		return other
	}
	kind := KindSlotLog
	if ext == extJSON {
		kind = KindSlotJSON
	}
	return Name{Kind: kind, Stem: stem, Adapter: adapter, Slot: slot, Run: run}
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

// JobNames gives the jobs of a project their stems, the job's part of its
// log file names, and reads them back. A job's stem is the name the
// TypeScript tool wrote, its id with every byte but letters, digits, '.',
// '_' and '-' written as '_' (check:src:type_check → check_src_type_check,
// review:.:code-quality → review_._code-quality), unless another job of
// the set has that same name: those jobs, and only those, are named by the
// escaped form instead, in which the two ':' separators and the '/' of the
// entry point are '_', letters, digits, '.' and '-' stay, and every other
// byte is %XX (check:pkg/a:lint → check_pkg_a_lint, check:pkg_a:lint →
// check_pkg%5Fa_lint). No two jobs of the set share a stem: an escaped
// stem without '%' is the job's TypeScript name, which another job of the
// set shares, so it is never the stem of a job named the TypeScript way;
// and the escaped form is injective. A stem too long for a file name with
// the longest run number and adapter suffix is shortened, the hash of its
// job's id making it unique (see fit); such a job's files that the
// TypeScript tool wrote under its whole name still read back to it.
//
// Every place that writes a gate's files or matches files to jobs goes
// through one JobNames built from every job the configuration can give
// (see runner), so that a job's files are found under one stem whatever
// subset of the jobs a run executes. The zero value and nil hold no job.
type JobNames struct {
	stems map[string]string // job id → stem
	jobs  map[string]string // stem → job id
}

// NewJobNames names the jobs ids (duplicates are harmless).
func NewJobNames(ids ...string) *JobNames {
	byTS := make(map[string][]string, len(ids))
	for _, id := range ids {
		ts := tsStem(id)
		if !slices.Contains(byTS[ts], id) {
			byTS[ts] = append(byTS[ts], id)
		}
	}
	n := &JobNames{stems: make(map[string]string, len(ids)), jobs: make(map[string]string, len(ids))}
	long := map[string]string{} // the TypeScript name of a job whose stem is shortened → job
	for ts, same := range byTS {
		for _, id := range same {
			stem := ts
			if len(same) > 1 {
				stem = escapedStem(id)
			} else if len(ts) >= maxStem {
				long[ts] = id
			}
			stem = fit(stem, id)
			n.stems[id], n.jobs[stem] = stem, id
		}
	}
	// The TypeScript tool named a job by its whole name: its files read
	// back to the job still.
	for ts, id := range long {
		if _, taken := n.jobs[ts]; !taken {
			n.jobs[ts] = id
		}
	}
	return n
}

// fit is stem, or, when stem is too long for a file name with the
// longest suffix (maxStem bytes or more), shortened with the hash of job
// (see fname.Fit).
func fit(stem, job string) string { return fname.Fit(stem, job, maxStem) }

// Stem is job's stem. A job the set does not hold gets its TypeScript name
// unless a job of the set has that name, then its escaped form; either
// shortened as fit says.
func (n *JobNames) Stem(job string) string {
	if n != nil {
		if s, ok := n.stems[job]; ok {
			return s
		}
		if _, taken := n.jobs[tsStem(job)]; taken {
			return fit(escapedStem(job), job)
		}
	}
	return fit(tsStem(job), job)
}

// Job is the job whose stem is stem: a job of the set (by its stem, or by
// the whole TypeScript name of a job whose stem is shortened), or, for an
// escaped stem (one with a '%') that is not shortened, the job it encodes.
// False for any other stem: the TypeScript name of a job the
// configuration no longer has, which cannot be read back.
func (n *JobNames) Job(stem string) (string, bool) {
	if n != nil {
		if id, ok := n.jobs[stem]; ok {
			return id, true
		}
	}
	if strings.Contains(stem, "%") && len(stem) < maxStem {
		return parseEscapedStem(stem)
	}
	return "", false
}

// JobOf is the job of a gate file name (see Job); false for other names.
func (n *JobNames) JobOf(name Name) (string, bool) {
	if !name.IsGate() {
		return "", false
	}
	return n.Job(name.Stem)
}

// JobLog is the log of check job in run.
func (n *JobNames) JobLog(job string, run int) Name {
	return Name{Kind: KindJobLog, Stem: n.Stem(job), Run: run}
}

// SlotLog is the log of review job's slot on adapter in run.
func (n *JobNames) SlotLog(job, adapter string, slot, run int) Name {
	return Name{Kind: KindSlotLog, Stem: n.Stem(job), Adapter: adapter, Slot: slot, Run: run}
}

// SlotJSON is the violations file of review job's slot on adapter in run.
func (n *JobNames) SlotJSON(job, adapter string, slot, run int) Name {
	return Name{Kind: KindSlotJSON, Stem: n.Stem(job), Adapter: adapter, Slot: slot, Run: run}
}

// tsStem is the TypeScript tool's name of a job: every character outside
// [A-Za-z0-9._-] replaced by '_'. That tool counted UTF-16 code units, so
// a character beyond the Basic Multilingual Plane becomes "__"; a byte
// that is not UTF-8 becomes one '_'.
func tsStem(job string) string {
	var b strings.Builder
	b.Grow(len(job))
	for _, r := range job {
		switch {
		case r < utf8.RuneSelf && (isAlnum(byte(r)) || r == '.' || r == '_' || r == '-'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// validStem reports whether stem can be a job's stem: a check or review
// job's name in either form, file-name safe.
func validStem(stem string) bool {
	// <kind>_<entry point>_<gate>: two separators at least.
	if !slices.ContainsFunc(OwnJobKinds, func(k string) bool { return strings.HasPrefix(stem, k+"_") }) || strings.Count(stem, "_") < 2 {
		return false
	}
	for i := 0; i < len(stem); i++ {
		if c := stem[i]; !isAlnum(c) && !strings.ContainsRune("._%-", rune(c)) {
			return false
		}
	}
	return true
}

// escapedStem encodes a job id `<kind>:<entry point>:<gate>` injectively:
// the two ':' separators (the first and the last ':') become '_', a '/'
// of the entry point becomes '_', letters, digits, '.' and '-' stay, and
// every other byte (a literal '_' or ':', a space, '%', non-ASCII) becomes
// %XX (upper-case hex). An id without two ':' has every ':' escaped; a
// leading '.' is escaped too (no hidden files). parseEscapedStem reverses
// it.
func escapedStem(job string) string {
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

// parseEscapedStem is the job id an escapedStem encodes; false for a stem
// escapedStem never writes.
func parseEscapedStem(stem string) (string, bool) {
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
	if escapedStem(job) != stem {
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
	files, err := readRoot(dir, false)
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
