package mutation

import (
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Site is one single-token mutation: the token Old at byte Offset of File
// becomes New.
type Site struct {
	File     string `json:"file"` // slash-separated, relative to the module root
	Offset   int    `json:"offset"`
	Line     int    `json:"line"`
	StmtLine int    `json:"stmtLine"` // first line of the enclosing statement
	Old      string `json:"old"`
	New      string `json:"new"`
}

// ID names the mutation uniquely and stably.
func (s Site) ID() string {
	return fmt.Sprintf("%s:%d@%d %s→%s", s.File, s.Line, s.Offset, s.Old, s.New)
}

// swaps are the operator mutations: each token becomes its usual confusion.
var swaps = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.ADD: token.SUB, token.SUB: token.ADD,
	token.MUL: token.QUO, token.QUO: token.MUL,
	token.LAND: token.LOR, token.LOR: token.LAND,
	token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
	token.INC: token.DEC, token.DEC: token.INC,
}

// FileSites lists every mutation site in the function bodies of one Go
// source file: operator swaps and off-by-one integer constants. rel is the
// file's module-relative path recorded in each site. Generated files have
// no sites.
func FileSites(rel string, src []byte) ([]Site, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", rel, err)
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	var sites []Site
	add := func(pos token.Pos, stmt ast.Stmt, old, repl string) {
		p := fset.Position(pos)
		stmtLine := p.Line
		if stmt != nil {
			stmtLine = fset.Position(stmt.Pos()).Line
		}
		sites = append(sites, Site{File: rel, Offset: p.Offset, Line: p.Line, StmtLine: stmtLine, Old: old, New: repl})
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		var stack []ast.Node
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stmt := enclosingStmt(stack, n)
			switch n := n.(type) {
			case *ast.GenDecl:
				return false // local const, var and type declarations: no executable site
			case *ast.ArrayType:
				return false // array lengths must stay constant expressions
			case *ast.BinaryExpr:
				if repl, ok := swaps[n.Op]; ok && !isStringOperand(n.X) && !isStringOperand(n.Y) {
					add(n.OpPos, stmt, n.Op.String(), repl.String())
				}
			case *ast.AssignStmt:
				if repl, ok := swaps[n.Tok]; ok {
					add(n.TokPos, stmt, n.Tok.String(), repl.String())
				}
			case *ast.IncDecStmt:
				add(n.TokPos, stmt, n.Tok.String(), swaps[n.Tok].String())
			case *ast.BasicLit:
				if n.Kind == token.INT {
					if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
						add(n.ValuePos, stmt, n.Value, strconv.FormatInt(v+1, 10))
						if v > 0 {
							add(n.ValuePos, stmt, n.Value, strconv.FormatInt(v-1, 10))
						}
					}
				}
			}
			stack = append(stack, n)
			return true
		})
	}
	return sites, nil
}

// enclosingStmt is the innermost statement around n, n itself if it is one;
// blocks do not count, so a condition belongs to its if, for or switch.
func enclosingStmt(stack []ast.Node, n ast.Node) ast.Stmt {
	if s, ok := n.(ast.Stmt); ok && !isBlock(n) {
		return s
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if s, ok := stack[i].(ast.Stmt); ok && !isBlock(stack[i]) {
			return s
		}
	}
	return nil
}

func isBlock(n ast.Node) bool {
	_, ok := n.(*ast.BlockStmt)
	return ok
}

// isStringOperand recognises operands that are string literals, where + is
// concatenation and a swap could never compile.
func isStringOperand(e ast.Expr) bool {
	lit, ok := ast.Unparen(e).(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

// Apply returns src with the site's token replaced, checking that the
// source still holds the expected token there.
func (s Site) Apply(src []byte) ([]byte, error) {
	end := s.Offset + len(s.Old)
	if s.Offset < 0 || end > len(src) || !bytes.Equal(src[s.Offset:end], []byte(s.Old)) {
		return nil, fmt.Errorf("mutation %s: source does not hold %q at offset %d", s.ID(), s.Old, s.Offset)
	}
	out := make([]byte, 0, len(src)-len(s.Old)+len(s.New))
	out = append(out, src[:s.Offset]...)
	out = append(out, s.New...)
	return append(out, src[end:]...), nil
}

// ModuleSites collects the mutation sites of the given module-relative files
// under root.
func ModuleSites(root string, files []string) ([]Site, error) {
	var all []Site
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("read mutation candidate: %w", err)
		}
		sites, err := FileSites(rel, src)
		if err != nil {
			return nil, err
		}
		all = append(all, sites...)
	}
	return all, nil
}

// Shuffle orders sites pseudo-randomly but reproducibly: the order depends
// only on the seed, the module path and the sites themselves.
func Shuffle(sites []Site, seed uint64, module string) []Site {
	out := slices.Clone(sites)
	slices.SortFunc(out, func(a, b Site) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Offset, b.Offset), strings.Compare(a.New, b.New))
	})
	r := rand.New(rand.NewPCG(seed, hashString(module)))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func hashString(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// HeldOut reports whether a kept mutant belongs to the held-out set rather
// than the tuning set: a reproducible draw from the seed and the mutant's
// identity with probability fraction.
func HeldOut(seed uint64, module string, s Site, fraction float64) bool {
	if fraction <= 0 {
		return false
	}
	h := hashString(strconv.FormatUint(seed, 10), "held-out", module, s.ID())
	return float64(h>>11)/float64(1<<53) < fraction
}
