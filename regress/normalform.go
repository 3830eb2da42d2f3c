package regress

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"reflect"
	"strings"
)

// normalForm writes a declaration as a string that two versions share
// exactly when they differ only in what cannot change behaviour.
func normalForm(n ast.Node) string {
	r := &resolver{names: map[*ast.Ident]string{}}
	if fd, ok := n.(*ast.FuncDecl); ok {
		r.funcDecl(fd)
	}
	var b strings.Builder
	(&normalizer{names: r.names, b: &b}).node(reflect.ValueOf(n))
	return b.String()
}

// normalizer writes the normal form of a syntax tree.
type normalizer struct {
	names map[*ast.Ident]string // locals, by the order they are declared in
	b     *strings.Builder
}

var (
	posType     = reflect.TypeFor[token.Pos]()
	commentType = reflect.TypeFor[*ast.CommentGroup]()
	//lint:ignore SA1019 the parser still fills the deprecated Obj and Scope fields; the walk skips them
	objectType = reflect.TypeFor[*ast.Object]()
	//lint:ignore SA1019 as above
	scopeType = reflect.TypeFor[*ast.Scope]()
)

func (z *normalizer) node(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			z.b.WriteString("nil ")
			return
		}
		if v.Kind() == reflect.Pointer {
			switch n := v.Interface().(type) {
			case *ast.ParenExpr:
				z.node(reflect.ValueOf(n.X))
				return
			case *ast.Ident:
				if name, ok := z.names[n]; ok {
					z.b.WriteString(name + " ")
				} else {
					z.b.WriteString("id:" + n.Name + " ")
				}
				return
			case ast.Expr:
				if k, val, ok := foldLiteral(n); ok {
					fmt.Fprintf(z.b, "const:%s:%s ", k, val.ExactString())
					return
				}
			}
		}
		z.node(v.Elem())
	case reflect.Struct:
		z.b.WriteString(v.Type().Name() + "{")
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			switch v.Type().Field(i).Type {
			case posType, commentType, objectType, scopeType:
				continue
			}
			z.node(v.Field(i))
		}
		z.b.WriteString("} ")
	case reflect.Slice:
		z.b.WriteString("[")
		for i := range v.Len() {
			z.node(v.Index(i))
		}
		z.b.WriteString("] ")
	default:
		fmt.Fprintf(z.b, "%v ", v.Interface())
	}
}

// constKind is the kind an untyped constant defaults to, in the order in
// which a mixed expression takes the later one.
type constKind int

const (
	kindInt constKind = iota
	kindRune
	kindFloat
	kindComplex
	kindString
)

func (k constKind) String() string {
	return [...]string{"int", "rune", "float", "complex", "string"}[k]
}

// foldLiteral evaluates a constant expression made of literals alone, as
// the compiler would, to its default kind and exact value.
func foldLiteral(e ast.Expr) (constKind, constant.Value, bool) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return foldLiteral(e.X)
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		if v.Kind() == constant.Unknown {
			return 0, nil, false
		}
		k := map[token.Token]constKind{token.INT: kindInt, token.CHAR: kindRune, token.FLOAT: kindFloat, token.IMAG: kindComplex, token.STRING: kindString}[e.Kind]
		return k, v, true
	case *ast.UnaryExpr:
		k, x, ok := foldLiteral(e.X)
		if !ok || k == kindString || e.Op != token.ADD && e.Op != token.SUB && e.Op != token.XOR {
			return 0, nil, false
		}
		if e.Op == token.XOR && k != kindInt && k != kindRune {
			return 0, nil, false
		}
		return k, constant.UnaryOp(e.Op, x, 0), true
	case *ast.BinaryExpr:
		kx, x, ok := foldLiteral(e.X)
		if !ok {
			return 0, nil, false
		}
		ky, y, ok := foldLiteral(e.Y)
		if !ok {
			return 0, nil, false
		}
		if e.Op == token.SHL || e.Op == token.SHR {
			s, exact := constant.Uint64Val(constant.ToInt(y))
			if kx > kindRune || ky > kindRune || !exact || s > 1<<10 {
				return 0, nil, false
			}
			return kx, constant.Shift(x, e.Op, uint(s)), true
		}
		if (kx == kindString) != (ky == kindString) {
			return 0, nil, false
		}
		k := max(kx, ky)
		op := e.Op
		switch op {
		case token.ADD:
		case token.SUB, token.MUL:
			if k == kindString {
				return 0, nil, false
			}
		case token.QUO, token.REM:
			if k == kindString || constant.Sign(y) == 0 || op == token.REM && k > kindRune {
				return 0, nil, false
			}
			if op == token.QUO && k <= kindRune {
				op = token.QUO_ASSIGN // integer division
			}
		case token.AND, token.OR, token.XOR, token.AND_NOT:
			if k > kindRune {
				return 0, nil, false
			}
		default:
			return 0, nil, false // comparisons and logic: untyped bool, left as written
		}
		return k, constant.BinaryOp(x, op, y), true
	}
	return 0, nil, false
}
