package calc

import (
	"fmt"
	"math"
	"strconv"
)

// Env binds variable names to values.
type Env map[string]float64

// functions maps a name to its arity (0: one or more) and implementation.
var functions = map[string]struct {
	arity int
	fn    func(args []float64) float64
}{
	"sqrt": {1, func(a []float64) float64 { return math.Sqrt(a[0]) }},
	"abs":  {1, func(a []float64) float64 { return math.Abs(a[0]) }},
	"max": {0, func(a []float64) float64 {
		m := a[0]
		for _, v := range a[1:] {
			m = math.Max(m, v)
		}
		return m
	}},
}

// binding powers of the infix operators; ^ is right-associative.
var precedence = map[string]int{"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}

// Eval parses and evaluates src with the variables in env.
func Eval(src string, env Env) (float64, error) {
	toks, err := Tokenize(src)
	if err != nil {
		return 0, err
	}
	p := &parser{toks: toks, env: env}
	v, err := p.expr(0)
	if err != nil {
		return 0, err
	}
	if t := p.peek(); t.Kind != EOF {
		return 0, fmt.Errorf("calc: unexpected %q at offset %d", t.Text, t.Pos)
	}
	return v, nil
}

// parser is a precedence-climbing evaluator over a token slice.
type parser struct {
	toks []Token
	pos  int
	env  Env
}

func (p *parser) peek() Token { return p.toks[p.pos] }

func (p *parser) next() Token {
	t := p.toks[p.pos]
	if t.Kind != EOF {
		p.pos++
	}
	return t
}

func (p *parser) expr(minPrec int) (float64, error) {
	left, err := p.unary()
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		prec, ok := precedence[op.Text]
		if op.Kind != Operator || !ok || prec <= minPrec {
			return left, nil
		}
		p.next()
		nextMin := prec // left-associative: an equal operator ends the right operand
		if op.Text == "^" {
			nextMin = prec + 1
		}
		right, err := p.expr(nextMin)
		if err != nil {
			return 0, err
		}
		if left, err = apply(op, left, right); err != nil {
			return 0, err
		}
	}
}

func apply(op Token, l, r float64) (float64, error) {
	switch op.Text {
	case "+":
		return l + r, nil
	case "-":
		return l - r, nil
	case "*":
		return l * r, nil
	case "/":
		if r == 0 {
			return 0, fmt.Errorf("calc: division by zero at offset %d", op.Pos)
		}
		return l / r, nil
	default:
		return math.Pow(l, r), nil
	}
}

func (p *parser) unary() (float64, error) {
	if t := p.peek(); t.Kind == Operator && (t.Text == "-" || t.Text == "+") {
		p.next()
		v, err := p.expr(precedence["*"])
		if t.Text == "-" {
			v = -v
		}
		return v, err
	}
	return p.primary()
}

func (p *parser) primary() (float64, error) {
	t := p.next()
	switch t.Kind {
	case Number:
		v, err := strconv.ParseFloat(t.Text, 64)
		if err != nil {
			return 0, fmt.Errorf("calc: bad number %q at offset %d", t.Text, t.Pos)
		}
		return v, nil
	case LParen:
		v, err := p.expr(0)
		if err != nil {
			return 0, err
		}
		if c := p.next(); c.Kind != RParen {
			return 0, fmt.Errorf("calc: missing ) at offset %d", c.Pos)
		}
		return v, nil
	case Ident:
		if p.peek().Kind == LParen {
			return p.call(t)
		}
		v, ok := p.env[t.Text]
		if !ok {
			return 0, fmt.Errorf("calc: undefined variable %q at offset %d", t.Text, t.Pos)
		}
		return v, nil
	}
	return 0, fmt.Errorf("calc: unexpected %q at offset %d", t.Text, t.Pos)
}

func (p *parser) call(name Token) (float64, error) {
	fn, ok := functions[name.Text]
	if !ok {
		return 0, fmt.Errorf("calc: unknown function %q at offset %d", name.Text, name.Pos)
	}
	p.next() // (
	var args []float64
	for p.peek().Kind != RParen {
		v, err := p.expr(0)
		if err != nil {
			return 0, err
		}
		args = append(args, v)
		if p.peek().Kind != Comma {
			break
		}
		p.next()
	}
	if c := p.next(); c.Kind != RParen {
		return 0, fmt.Errorf("calc: missing ) after arguments of %s at offset %d", name.Text, c.Pos)
	}
	if len(args) == 0 || fn.arity > 0 && len(args) != fn.arity {
		return 0, fmt.Errorf("calc: %s takes %d argument(s), got %d, at offset %d", name.Text, max(fn.arity, 1), len(args), name.Pos)
	}
	return fn.fn(args), nil
}
