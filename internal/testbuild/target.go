package testbuild

// Target is one leaf test of a module: the identity under which the
// techniques analyse, cache and report a test.
type Target struct {
	Package string // import path
	Test    string // full leaf name, e.g. TestX/case_3
}
