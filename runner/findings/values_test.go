package findings

import (
	"fmt"
	"testing"
	"time"
)

// TestNormalizerValues: normalising erases only what differs between two
// runs of the same code (durations however a runner prints them, the
// clock, temporary directories, addresses and hash codes, process,
// thread and ephemeral port numbers) and keeps every value that says
// what failed (UUIDs, digests, dates, well-known ports). Each line is a
// pair of runs: noise pairs must read the same, content pairs must not.
func TestNormalizerValues(t *testing.T) {
	n := NewNormalizer("/home/me/proj")
	now := time.Now().UTC()
	clock := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }
	for _, tc := range []struct {
		a, b  string
		noise bool
	}{
		// run-to-run noise
		{"Finished in 0.084 seconds (files took 0.18 seconds to load)", "Finished in 0.075 seconds (files took 0.2 seconds to load)", true},
		{"  Failed Ns.T.Adds [15 ms]", "  Failed Ns.T.Adds [9 ms]", true},
		{"Time: 00:00.011, Memory: 4.00 MB", "Time: 00:00.020, Memory: 6.00 MB", true},
		{"FAILED in 54 ms", "FAILED in 61 ms", true},
		{"took 0.74 s", "took 1.5 s", true},
		{"FAILED test_x.py::test_a - /tmp/pytest-of-root/pytest-84/test_a0/out.txt missing", "FAILED test_x.py::test_a - /tmp/pytest-of-root/pytest-85/test_a0/out.txt missing", true},
		{"expected:<Foo@a1b2c16> but was:<Bar@3f2a1b9c>", "expected:<Foo@1b2c3d4e> but was:<Bar@c0ffee1>", true},
		{`Exception in thread "pool-1-thread-51" java.lang.IllegalStateException`, `Exception in thread "pool-1-thread-7" java.lang.IllegalStateException`, true},
		{clock(0) + " ERROR lookup failed", clock(-3*time.Minute) + " ERROR lookup failed", true},
		{fmt.Sprintf("stale at %d", now.UnixMilli()), fmt.Sprintf("stale at %d", now.Add(time.Second).UnixMilli()), true},
		{"listen on port 45678: refused", "listen on port 39012: refused", true},
		{"dial 127.0.0.1:45678: refused", "dial 127.0.0.1:39012: refused", true},
		{"worker pid 15399 crashed", "worker pid 15400 crashed", true},
		{"panic: nil map at 0xc000012345", "panic: nil map at 0xc0000a9f80", true},
		{"<Node object at 0x7f3a2b1c9d50>", "<Node object at 0x7f8e11c04e20>", true},
		// what failed
		{"test_flags: assert 0x11 == 0x10", "test_flags: assert 0x7f == 0x10", false},
		{"test_mask: got 0xff00ff00, want 0xffff0000", "test_mask: got 0x00ff00ff, want 0xffff0000", false},
		{"test_user_lookup: wrong user returned 1b4e28ba-2fa1-11d2-883f-0016d3cca427", "test_user_lookup: wrong user returned 9c5b94b1-35ad-49bb-b118-8e8fc24abf80", false},
		{"test_digest: digest mismatch, got 3f786850e387550fdab836ed7e6dc881de23001b", "test_digest: digest mismatch, got 89e6c98d92887913cadf06b2adb97f26cde4849b", false},
		{"test_due_date: got 2026-01-02T00:00:00Z, want 2026-01-01T00:00:00Z", "test_due_date: got 2031-07-19T13:45:00Z, want 2026-01-01T00:00:00Z", false},
		{"test_default_port: listens on port 8081, want 8080", "test_default_port: listens on port 22, want 8080", false},
		{"not ok 1 - roundtrip 1b4e28ba-2fa1-11d2-883f-0016d3cca427", "not ok 1 - roundtrip 9c5b94b1-35ad-49bb-b118-8e8fc24abf80", false},
		{"test_user_lookup: wrong user returned alice", "test_user_lookup: wrong user returned mallory", false},
		{"took 3 widgets", "took 4 widgets", false},
	} {
		ga, gb := n.Line(tc.a), n.Line(tc.b)
		if (ga == gb) != tc.noise {
			t.Errorf("noise=%v:\n %q -> %q\n %q -> %q", tc.noise, tc.a, ga, tc.b, gb)
		}
	}
}
