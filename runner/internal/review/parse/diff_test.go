package parse

import (
	"reflect"
	"slices"
	"testing"
)

func TestParseDiff(t *testing.T) {
	tests := []struct {
		name  string
		diff  string
		added map[string][]int
	}{
		{
			name: "context and removals",
			diff: `diff --git a/src/a.go b/src/a.go
index 1111111..2222222 100644
--- a/src/a.go
+++ b/src/a.go
@@ -1,5 +1,6 @@
 package a
-func Old() {}
+func New() {}
+func Newer() {}
 
 var x = 1
 var y = 2
`,
			added: map[string][]int{"src/a.go": {2, 3}},
		},
		{
			name: "two hunks",
			diff: `diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,2 @@
-one
+ONE
 two
@@ -10,3 +10,4 @@ func f() {
 ten
 eleven
+eleven and a half
 twelve
`,
			added: map[string][]int{"a.txt": {1, 12}},
		},
		{
			name: "new file",
			diff: `diff --git a/new.go b/new.go
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/new.go
@@ -0,0 +1,3 @@
+package x
+
+var v = 1
`,
			added: map[string][]int{"new.go": {1, 2, 3}},
		},
		{
			name: "deleted file is out of scope",
			diff: `diff --git a/gone.go b/gone.go
deleted file mode 100644
index e69de29..0000000
--- a/gone.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package x
-var v = 1
`,
			added: map[string][]int{},
		},
		{
			name: "rename with edits",
			diff: `diff --git a/old name.go b/new name.go
similarity index 90%
rename from old name.go
rename to new name.go
index 1111111..2222222 100644
--- a/old name.go	
+++ b/new name.go	
@@ -1,2 +1,2 @@
 package x
-var a = 1
+var a = 2
`,
			added: map[string][]int{"new name.go": {2}},
		},
		{
			name: "pure rename has the file but no added lines",
			diff: `diff --git a/x.go b/y.go
similarity index 100%
rename from x.go
rename to y.go
`,
			added: map[string][]int{"y.go": nil},
		},
		{
			name: "no newline at end of file",
			diff: `diff --git a/n.txt b/n.txt
--- a/n.txt
+++ b/n.txt
@@ -1,2 +1,2 @@
 first
-second
\ No newline at end of file
+second!
\ No newline at end of file
`,
			added: map[string][]int{"n.txt": {2}},
		},
		{
			name: "added lines that look like headers",
			diff: `diff --git a/m.md b/m.md
--- a/m.md
+++ b/m.md
@@ -1 +1,3 @@
 title
+++ b/fake
+--- a/fake
`,
			added: map[string][]int{"m.md": {2, 3}},
		},
		{
			name: "quoted path",
			diff: `diff --git "a/sp\303\251cial.txt" "b/sp\303\251cial.txt"
new file mode 100644
--- /dev/null
+++ "b/sp\303\251cial.txt"
@@ -0,0 +1 @@
+hi
`,
			added: map[string][]int{"spécial.txt": {1}},
		},
		{
			name: "binary file and .git paths",
			diff: `diff --git a/img.png b/img.png
new file mode 100644
index 0000000..1111111
Binary files /dev/null and b/img.png differ
diff --git a/.git/config b/.git/config
--- a/.git/config
+++ b/.git/config
@@ -1 +1 @@
-a
+b
`,
			added: map[string][]int{"img.png": nil},
		},
		{
			name:  "hunk without counts",
			diff:  "diff --git a/o b/o\n--- a/o\n+++ b/o\n@@ -3 +3 @@\n-x\n+y\n",
			added: map[string][]int{"o": {3}},
		},
		{name: "empty", diff: "", added: map[string][]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseDiff(tt.diff)
			got := map[string][]int{}
			for _, f := range s.Files() {
				var lines []int
				for l := range s.added[f] {
					lines = append(lines, l)
				}
				slices.Sort(lines)
				got[f] = lines
			}
			if !reflect.DeepEqual(got, tt.added) {
				t.Errorf("added = %v, want %v", got, tt.added)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	s := ParseDiff(`diff --git a/svc/api/main.go b/svc/api/main.go
--- a/svc/api/main.go
+++ b/svc/api/main.go
@@ -1 +1,2 @@
 package main
+func main() {}
diff --git a/lib/util.go b/lib/util.go
--- a/lib/util.go
+++ b/lib/util.go
@@ -1 +1 @@
-x
+y
diff --git a/other/util.go b/other/util.go
--- a/other/util.go
+++ b/other/util.go
@@ -1 +1 @@
-x
+y
`)
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"svc/api/main.go", "svc/api/main.go", true},
		{"./svc/api/main.go", "svc/api/main.go", true},
		{"b/svc/api/main.go", "svc/api/main.go", true},
		{"/repo/svc/api/main.go", "svc/api/main.go", true},
		{"api/main.go", "svc/api/main.go", true},
		{"main.go", "svc/api/main.go", true},
		{"util.go", "", false}, // ambiguous
		{"pi/main.go", "", false},
		{"nope.go", "", false},
		{"", "", false},
	}
	paths := NewPaths("/repo", s.Files())
	for _, tt := range tests {
		got := paths.Canonical(tt.in)
		if ok := s.Has(got); ok != tt.ok || ok && got != tt.want {
			t.Errorf("Canonical(%q) = %q (in the diff: %v); want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if !s.Added("svc/api/main.go", 2) || s.Added("svc/api/main.go", 1) {
		t.Error("Added: wrong lines for svc/api/main.go")
	}
}

// A change made only of deletions touches the lines around the place the
// deleted lines were: a violation located there is in scope; the added
// lines stay only the "+" lines.
func TestTouchedByDeletions(t *testing.T) {
	d := ParseDiff(`diff --git a/auth.go b/auth.go
--- a/auth.go
+++ b/auth.go
@@ -3,5 +3,3 @@ func Handle() {
 	start()
-	if !allowed() {
-		return
 	serve()
 }
`)
	for line, want := range map[int]bool{2: false, 3: true, 4: true, 5: false} {
		if got := d.Touched("auth.go", line); got != want {
			t.Errorf("Touched(auth.go, %d) = %v, want %v", line, got, want)
		}
		if d.Added("auth.go", line) {
			t.Errorf("Added(auth.go, %d): a deletion adds no line", line)
		}
	}
}
