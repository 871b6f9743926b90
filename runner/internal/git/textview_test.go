package git

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAsText(t *testing.T) {
	for _, tt := range []struct {
		name    string
		content string
		want    string
		enc     encoding
		ok      bool
	}{
		{"empty", "", "", encUTF8, true},
		{"plain", "a\nb\n", "a\nb\n", encUTF8, true},
		{"a NUL kept in its line", "x = 1 // \x00\n", "x = 1 // \\x00\n", encUTF8, true},
		{"controls escaped, tab and CRLF kept", "a\tb\x01\r\n\x7f", "a\tb\\x01\r\n\\x7f", encUTF8, true},
		{"UTF-8 with BOM", "\xef\xbb\xbfhi\x00", "hi\\x00", encUTF8BOM, true},
		{"UTF-16LE with BOM", "\xff\xfeh\x00\xe9\x00\n\x00", "hé\n", encUTF16LEBO, true},
		{"UTF-16BE with BOM", "\xfe\xff\x00h\x00i", "hi", encUTF16BEBO, true},
		{"UTF-16LE", "h\x00i\x00\n\x00", "hi\n", encUTF16LE, true},
		{"UTF-16BE", "\x00h\x00i\x00\n", "hi\n", encUTF16BE, true},
		{"UTF-16 with a surrogate pair", "\xff\xfe\x3d\xd8\x00\xdea\x00", "😀a", encUTF16LEBO, true},
		{"UTF-16 with an unpaired surrogate", "\xff\xfe\x3d\xd8a\x00", "", encUTF16LEBO, false},
		{"odd UTF-16 with BOM", "\xff\xfeh\x00i", "", encUTF16LEBO, false},
		{"PNG", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "", "", false},
		{"zeros", "\x00\x00\x00\x00\xff", "", "", false},
		{"invalid UTF-8 with a NUL", "caf\xe9\x00", "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, enc, ok := asText([]byte(tt.content))
			if ok != tt.ok || (ok && (got != tt.want || enc != tt.enc)) {
				t.Errorf("asText(%q) = %q, %q, %v; want %q, %q, %v", tt.content, got, enc, ok, tt.want, tt.enc, tt.ok)
			}
		})
	}
}

// Whatever the bytes, text asText returns is valid UTF-8 with no hidden
// control character, and text with none is returned as it is.
func FuzzAsText(f *testing.F) {
	for _, s := range []string{"", "a\n", "\x00", "\xff\xfeh\x00", "\xfe\xff\x00h", "h\x00i\x00", "\x89PNG\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		text, _, ok := asText(b)
		if !ok {
			return
		}
		if !utf8.ValidString(text) || strings.IndexFunc(text, isHiddenControl) >= 0 {
			t.Fatalf("asText(%q) = %q", b, text)
		}
		if utf8.Valid(b) && strings.IndexFunc(string(b), isHiddenControl) < 0 && !strings.HasPrefix(string(b), "\xef\xbb\xbf") {
			if _, isUTF16 := looksUTF16(b); !isUTF16 && text != string(b) {
				t.Fatalf("text %q changed to %q", b, text)
			}
		}
	})
}
