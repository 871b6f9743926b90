package check

import (
	"bytes"
	"io"
	"os"
	"strings"
)

// headerEnd ends the header openLog writes: the working directory line and
// a blank line; the command's output follows.
const headerEnd = "\nWorking directory: "

// OutputTail returns the last maxLines lines of what the command of the
// check log at path printed (stdout and stderr as they came), without the
// log's own header, result line and fix instructions; cut reports that
// earlier output was left out. end, when positive, is where the command's
// output ends in the log (gate.Result.OutputEnd): what follows (the run
// of the check on the base branch) is not its output. It reads at most the
// last 64 KiB of the output, so any output size costs the same. A log that
// cannot be read has no output.
func OutputTail(path string, end int64, maxLines int) (lines []string, cut bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	size := end
	if st, err := f.Stat(); err != nil {
		return nil, false
	} else if size <= 0 || size > st.Size() {
		size, end = st.Size(), 0
	}
	from, partial := int64(0), false
	if size > resultTail {
		from, partial = size-resultTail, true
	}
	data, err := io.ReadAll(io.NewSectionReader(f, from, size-from))
	if err != nil {
		return nil, false
	}
	if end <= 0 {
		if j := bytes.LastIndex(data, []byte("\n"+FixInstructionsHeader+"\n")); j >= 0 {
			data = data[:j]
		}
		if i := bytes.LastIndex(data, []byte(resultMarker)); i >= 0 {
			data = data[:i]
		}
	}
	if !partial {
		if i := bytes.Index(data, []byte(headerEnd)); i >= 0 {
			rest := data[i+len(headerEnd):]
			if k := bytes.Index(rest, []byte("\n\n")); k >= 0 {
				data = rest[k+2:]
			} else {
				data = nil
			}
		}
	}
	text := strings.TrimRight(string(data), "\n")
	if strings.TrimSpace(text) == "" {
		return nil, partial
	}
	all := strings.Split(text, "\n")
	if partial {
		all = all[1:] // the first line read may be the end of a longer one
		cut = true
	}
	if len(all) > maxLines {
		all, cut = all[len(all)-maxLines:], true
	}
	for i, l := range all {
		all[i] = strings.TrimRight(l, "\r")
	}
	return all, cut
}
