package main

import "testing"

func TestInputPackageDir(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"cli/test.yaml", "cli"},
		{"top.txt", "."},
		{"testdata/a.json", "."},
		{"parser/testdata/deep/case.txt", "parser"},
		{"_test/extra.txt", "."},
		{"extension/_test/table.txt", "extension"},
		{"lexers/.hidden/x.txt", "lexers"},
	} {
		if got := inputPackageDir(c.file); got != c.want {
			t.Errorf("inputPackageDir(%q) = %q, want %q", c.file, got, c.want)
		}
	}
}
