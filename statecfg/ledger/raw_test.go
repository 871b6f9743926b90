package ledger

import (
	"bytes"
	"os"
	"testing"

	"pgregory.net/rapid"
)

// A raw record gives back exactly the bytes stored for its key, whatever
// they hold (line breaks, NULs, invalid UTF-8, nothing); a record damaged
// anywhere (a byte changed, cut short, grown) is a miss with a reason or,
// where the damage leaves it valid (a digit of its time), the same bytes;
// a raw record is a miss for Get and a JSON one for GetRaw.
func TestRawRecords(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		l := Open(dir, "raw", 0)
		key := rapid.String().Draw(t, "key")
		val := rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "value")
		if err := l.PutRaw(key, val); err != nil {
			t.Fatal(err)
		}
		got, _, ok, why := l.GetRaw(key)
		if !ok || why != nil || !bytes.Equal(got, val) {
			t.Fatalf("GetRaw: %q %v %v, want %q", got, ok, why, val)
		}
		var v value
		if _, ok, why := l.Get(key, &v); ok || why == nil {
			t.Fatalf("Get of a raw record: ok=%v why=%v", ok, why)
		}
		p := l.path(key)
		good, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		bad := bytes.Clone(good)
		switch rapid.IntRange(0, 2).Draw(t, "damage") {
		case 0:
			bad[rapid.IntRange(0, len(bad)-1).Draw(t, "at")] ^= byte(rapid.IntRange(1, 255).Draw(t, "bits"))
		case 1:
			bad = bad[:rapid.IntRange(0, len(bad)-1).Draw(t, "cut")]
		case 2:
			bad = append(bad, rapid.SliceOfN(rapid.Byte(), 1, 3).Draw(t, "more")...)
		}
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, ok, why = l.GetRaw(key)
		if ok && !bytes.Equal(got, val) {
			t.Fatalf("damaged record %q gave %q, stored %q", bad, got, val)
		}
		if !ok && why == nil {
			t.Fatalf("damaged record %q: a miss with no reason", bad)
		}
		if err := l.Put(key, value{"pass", 1}); err != nil {
			t.Fatal(err)
		}
		if _, _, ok, why := l.GetRaw(key); ok || why == nil {
			t.Fatalf("GetRaw of a JSON record: ok=%v why=%v", ok, why)
		}
	})
}
