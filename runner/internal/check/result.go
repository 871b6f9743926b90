package check

import (
	"bytes"
	"io"
	"os"
	"strings"
)

// resultMarker starts the line a check log ends with: `Result: <status> - <message>`.
// The TypeScript tool writes the same line, so its logs read the same way.
const resultMarker = "\nResult: "

// resultTail is how much of a log's end LastResult reads: whatever a check
// printed, finding its result costs at most this much memory.
const resultTail = 64 << 10

// LastResult returns the status of the last `Result: <status> - ` line near
// the end of the check log at path, before any fix instructions ("" when
// there is none or it cannot be read). It reads at most the last 64 KiB.
func LastResult(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > resultTail {
		if _, err := f.Seek(-resultTail, io.SeekEnd); err != nil {
			return ""
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, resultTail))
	if err != nil {
		return ""
	}
	// Fix instructions follow the result line; their text is not ours.
	if j := bytes.LastIndex(data, []byte("\n"+FixInstructionsHeader+"\n")); j >= 0 {
		data = data[:j]
	}
	i := bytes.LastIndex(data, []byte(resultMarker))
	if i < 0 {
		return ""
	}
	status, _, _ := strings.Cut(string(data[i+len(resultMarker):]), " ")
	return strings.TrimSpace(status)
}
