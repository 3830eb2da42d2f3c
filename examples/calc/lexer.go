// Package calc evaluates arithmetic expressions such as "2*(x+1.5e-3)" with
// variables and a few functions, for spreadsheet-style formulas.
package calc

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Kind classifies a token.
type Kind int

// Token kinds.
const (
	EOF Kind = iota
	Number
	Ident
	Operator
	LParen
	RParen
	Comma
)

// Token is one lexeme of an expression with its byte offset.
type Token struct {
	Kind Kind
	Text string
	Pos  int
}

// Tokenize splits src into tokens, skipping white space. The result ends
// with an EOF token.
func Tokenize(src string) ([]Token, error) {
	var toks []Token
	i := 0
	for i < len(src) {
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
			continue
		case isDigit(src[i]) || src[i] == '.':
			end := scanNumber(src, i)
			toks = append(toks, Token{Number, src[i:end], i})
			i = end
			continue
		case r == '_' || unicode.IsLetter(r):
			end := i + size
			for end < len(src) {
				r, size := utf8.DecodeRuneInString(src[end:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				end += size
			}
			toks = append(toks, Token{Ident, src[i:end], i})
			i = end
			continue
		}
		kind, ok := punctuation[src[i]]
		if !ok {
			return nil, fmt.Errorf("calc: unexpected %q at offset %d", r, i)
		}
		toks = append(toks, Token{kind, src[i : i+1], i})
		i++
	}
	return append(toks, Token{EOF, "", len(src)}), nil
}

var punctuation = map[byte]Kind{
	'+': Operator, '-': Operator, '*': Operator, '/': Operator, '^': Operator,
	'(': LParen, ')': RParen, ',': Comma,
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber returns the end of the number literal starting at i: digits,
// an optional fraction and an optional exponent such as e-3.
func scanNumber(src string, i int) int {
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '.' {
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			i = j
			for i < len(src) && isDigit(src[i]) {
				i++
			}
		}
	}
	return i
}
