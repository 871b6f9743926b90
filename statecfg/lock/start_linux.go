package lock

import (
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
)

// Files of /proc that tell when a process started.
const (
	procStat = "/proc/stat"
	auxv     = "/proc/self/auxv"
	// startTimeField is the field of /proc/<pid>/stat holding the start
	// time in clock ticks after boot (22), counted from the state field
	// (3), the first after the command name.
	startTimeField = 22 - 3
	// atClockTick is the auxiliary vector's AT_CLKTCK, the clock ticks per
	// second of /proc's times; defaultClockTick when it cannot be read.
	atClockTick      = 17
	defaultClockTick = 100
	maxProcRead      = 64 << 10
)

// processStart tells when process pid started: boot time (btime of
// /proc/stat, whole seconds) plus its start in clock ticks after boot
// (/proc/<pid>/stat). false when /proc does not say.
func processStart(pid int) (time.Time, bool) {
	stat, err := fsread.File("/proc/"+strconv.Itoa(pid)+"/stat", maxProcRead)
	if err != nil {
		return time.Time{}, false
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields start after its last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return time.Time{}, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) <= startTimeField {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(fields[startTimeField], 10, 64)
	boot, ok := bootTime()
	if err != nil || !ok {
		return time.Time{}, false
	}
	hz := clockTicks()
	return boot.Add(time.Duration(ticks/hz)*time.Second + time.Duration(ticks%hz)*time.Second/time.Duration(hz)), true
}

// bootTime is btime of /proc/stat.
func bootTime() (time.Time, bool) {
	data, err := fsread.File(procStat, 1<<20)
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Unix(secs, 0), err == nil
		}
	}
	return time.Time{}, false
}

// clockTicks is the clock ticks per second of /proc's times: AT_CLKTCK of
// this process's auxiliary vector, else 100 (USER_HZ on every Linux
// architecture Go runs on).
func clockTicks() uint64 {
	data, err := os.ReadFile(auxv)
	if err != nil {
		return defaultClockTick
	}
	word := int(unsafe.Sizeof(uintptr(0)))
	read := func(b []byte) uint64 {
		if word == 4 {
			return uint64(binary.NativeEndian.Uint32(b))
		}
		return binary.NativeEndian.Uint64(b)
	}
	for i := 0; i+2*word <= len(data); i += 2 * word {
		if read(data[i:]) == atClockTick {
			if hz := read(data[i+word:]); hz > 0 {
				return hz
			}
		}
	}
	return defaultClockTick
}
