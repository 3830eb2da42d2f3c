//go:build cgo

package formula

import (
	"go/token"
	"testing"
)

// Every op-assignment maps to the operator it applies, and nothing else
// maps to an operator.
func TestOpOfAssign(t *testing.T) {
	assignments := 0
	for tok := token.ILLEGAL; tok <= token.TILDE; tok++ {
		got := opOfAssign(tok)
		s := tok.String()
		isOpAssign := len(s) >= 2 && s[len(s)-1] == '=' && tok != token.ASSIGN && tok != token.DEFINE &&
			tok != token.EQL && tok != token.NEQ && tok != token.LEQ && tok != token.GEQ
		switch {
		case isOpAssign:
			assignments++
			if got.String()+"=" != s {
				t.Errorf("opOfAssign(%s) = %s", s, got)
			}
		case got != token.ILLEGAL:
			t.Errorf("opOfAssign(%s) = %s, want ILLEGAL", s, got)
		}
	}
	if assignments != 11 {
		t.Errorf("%d op-assignments, want 11 (+= -= *= /= %%= &= |= ^= <<= >>= &^=)", assignments)
	}
}
