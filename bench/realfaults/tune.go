package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"

	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// Tuning: variants of the learned order compared on the tuning half alone,
// by an inner two-fold split of its projects (each fault ranked by models
// learned from the other inner fold), so that the held-out half is scored
// once, at the end (-final), by the variant chosen here.

// variant is one learned order to compare: its model's window, a guard
// that keeps the formula's order unless the model's evidence outweighs
// it, and how the lines below the window are ordered.
type variant struct {
	// Head is "trained" (learned from the fold) or "shipped" (the model
	// in the binary).
	Head   string
	Window int
	// Guard is added to the weight of the formula's score
	// (spectrum.ochiai): a line passes one the formula ranks above it
	// only when its other evidence outweighs Guard times the formula's
	// difference.
	Guard float64
	// Tail orders the lines below the window: "ochiai" (the formula),
	// "tarantula", "blend" (Ochiai's and Tarantula's rank shares summed)
	// or "spread" (a model learned from pairs spread over the whole
	// ranking, -spread 300).
	Tail string
	// Fn, when set, reorders the learned order function by function
	// (localize.FunctionFirst): "best", "own" or "mix", how functions
	// are ranked; Keep lines at the top keep their places.
	Fn   string
	Keep int
	// Decl, when not negative, places the package-level declarations the
	// ranked lines read after their first reader, not above position
	// Decl (localize.WithDeclarations); -1: not at all.
	Decl int
	// DeclMax leaves out declarations longer than this many lines (0:
	// none left out).
	DeclMax int
	// DeclFail places only declarations read by lines a failing test runs.
	DeclFail bool
	// DeclReader places only declarations read by the lines within the
	// first DeclReader positions (0: every line's).
	DeclReader int
	// Margin counts the head's scores in steps of Margin, the formula
	// ordering each step (localize.Model.Margin); 0: none.
	Margin float64
	// Drop zeroes the head's weights of the columns with this prefix.
	Drop string
	// Top and Bonus add Bonus to the head's score of the lines Ochiai
	// ranks within its first Top positions (localize.Model.FormulaTop).
	Top   int
	Bonus float64
	// FnList, when set, orders the function list (not the lines) by a
	// function model learned from the fold over these aggregates of the
	// shipped order's lines, "+"-separated (localize.FunctionFeatures:
	// max, sum, top, best).
	FnList string
	// UnexecOn places the code lines no test runs within UnexecDist (0:
	// 1) code lines of a line a failing test runs, in its function, after that
	// line but not above position Unexec (localize.WithUnexecuted).
	// UnexecReach, when positive, places only those near lines within
	// the first UnexecReach positions.
	UnexecOn                        bool
	Unexec, UnexecDist, UnexecReach int
	// Norm makes a trained head normalize (localize.Model.Normalize):
	// it learns from and weighs each column but Ochiai's score divided by
	// the column's largest value in the fault's ranking.
	Norm bool
	// Neg, when positive, pairs a trained head's faulty lines with that
	// many of the fault's top non-faulty lines rather than
	// trainNegatives.
	Neg int
	// Below, when positive, weighs a trained head's pairs whose
	// non-faulty line Ochiai ranks below the faulty one Below times as
	// much as the others: a head that passes such a line ranks the fault
	// worse than Ochiai alone would.
	Below float64
	// Without trains the head without the columns with these prefixes
	// ("|" between them; "" for none): what they add, by leaving them
	// out.
	Without string
	// Learn trains only the weights of the columns with these prefixes
	// ("|" between them), starting from the shipped head's and keeping
	// its other weights.
	Learn string
	// Listwise trains the head by the softmax loss (trainOptions.Listwise).
	Listwise bool
	// Prior pulls a trained head toward the shipped head's weights
	// (trainOptions.Prior); 0: toward zero.
	Prior float64
	// Add adds fixed weights to the head's, as COLUMN:W ("|" between
	// them): a rule tried by hand rather than learned.
	Add string
	// Lift brings the lines with a positive value in one of these
	// columns ("|" between them) into the window (localize.Model.Lift).
	Lift string
}

// headOptions are the training options of the variant's trained head.
func (v variant) headOptions() trainOptions {
	o := trainOptions{Negatives: trainNegatives, Normalize: v.Norm, Below: v.Below, Without: v.Without, Learn: v.Learn, Listwise: v.Listwise, Prior: v.Prior}
	if v.Neg > 0 {
		o.Negatives = v.Neg
	}
	return o
}

func (v variant) String() string {
	var parts []string
	for _, k := range variantKeys {
		if val, ok := k.show(v); ok {
			parts = append(parts, k.name+"="+val)
		}
	}
	return strings.Join(parts, ",")
}

// variantKey is one key of a variant's String form: how it sets the
// variant from its value, and its value in the form, if it shows there.
type variantKey struct {
	name string
	set  func(v *variant, val string) error
	show func(v variant) (string, bool)
}

// always, when, whenInt and whenFloat are the ways keys show; ftoa writes
// a float as parseFloat reads it back.
func always(val string) (string, bool)        { return val, true }
func when(on bool, val string) (string, bool) { return val, on }
func whenInt(n int) (string, bool)            { return strconv.Itoa(n), n > 0 }
func whenFloat(x float64) (string, bool)      { return ftoa(x), x > 0 }
func ftoa(x float64) string                   { return strconv.FormatFloat(x, 'g', -1, 64) }

// variantKeys are the keys parseVariant reads, in the order String writes
// them and errors name them.
var variantKeys = []variantKey{
	{"head", func(v *variant, val string) error { v.Head = val; return nil }, func(v variant) (string, bool) { return always(v.Head) }},
	{"window", func(v *variant, val string) error { return parseInto(&v.Window, val, strconv.Atoi) }, func(v variant) (string, bool) { return always(strconv.Itoa(v.Window)) }},
	{"guard", func(v *variant, val string) error { return parseInto(&v.Guard, val, parseFloat) }, func(v variant) (string, bool) { return always(ftoa(v.Guard)) }},
	{"tail", func(v *variant, val string) error { v.Tail = val; return nil }, func(v variant) (string, bool) { return always(v.Tail) }},
	{"fn", func(v *variant, val string) error { v.Fn = val; return nil }, func(v variant) (string, bool) { return when(v.Fn != "", v.Fn) }},
	{"keep", func(v *variant, val string) error { return parseInto(&v.Keep, val, strconv.Atoi) }, func(v variant) (string, bool) { return when(v.Fn != "", strconv.Itoa(v.Keep)) }},
	{"decl", func(v *variant, val string) error { return parseInto(&v.Decl, val, strconv.Atoi) }, func(v variant) (string, bool) { return when(v.Decl >= 0, strconv.Itoa(v.Decl)) }},
	{"declmax", func(v *variant, val string) error { return parseInto(&v.DeclMax, val, strconv.Atoi) }, func(v variant) (string, bool) { return whenInt(v.DeclMax) }},
	{"declfail", func(v *variant, val string) error { return parseInto(&v.DeclFail, val, strconv.ParseBool) }, func(v variant) (string, bool) { return when(v.DeclFail, "1") }},
	{"declreader", func(v *variant, val string) error { return parseInto(&v.DeclReader, val, strconv.Atoi) }, func(v variant) (string, bool) { return whenInt(v.DeclReader) }},
	{"margin", func(v *variant, val string) error { return parseInto(&v.Margin, val, parseFloat) }, func(v variant) (string, bool) { return whenFloat(v.Margin) }},
	{"top", func(v *variant, val string) error { return parseInto(&v.Top, val, strconv.Atoi) }, func(v variant) (string, bool) { return whenInt(v.Top) }},
	{"bonus", func(v *variant, val string) error { return parseInto(&v.Bonus, val, parseFloat) }, func(v variant) (string, bool) { return when(v.Top > 0, ftoa(v.Bonus)) }},
	{"drop", func(v *variant, val string) error { v.Drop = val; return nil }, func(v variant) (string, bool) { return when(v.Drop != "", v.Drop) }},
	{"lift", func(v *variant, val string) error { v.Lift = val; return nil }, func(v variant) (string, bool) { return when(v.Lift != "", v.Lift) }},
	{"fnlist", func(v *variant, val string) error {
		v.FnList = val
		_, _, err := localize.FunctionFeatures(nil, nil, strings.Split(val, "+"))
		return err
	}, func(v variant) (string, bool) { return when(v.FnList != "", v.FnList) }},
	{"unexec", func(v *variant, val string) error { v.UnexecOn = true; return parseInto(&v.Unexec, val, strconv.Atoi) }, func(v variant) (string, bool) {
		return when(v.UnexecOn, strconv.Itoa(v.Unexec))
	}},
	{"unexecdist", func(v *variant, val string) error { return parseInto(&v.UnexecDist, val, strconv.Atoi) }, func(v variant) (string, bool) {
		return when(v.UnexecOn && v.UnexecDist > 0, strconv.Itoa(v.UnexecDist))
	}},
	{"unexecreach", func(v *variant, val string) error { return parseInto(&v.UnexecReach, val, strconv.Atoi) }, func(v variant) (string, bool) {
		return when(v.UnexecOn && v.UnexecReach > 0, strconv.Itoa(v.UnexecReach))
	}},
	{"norm", func(v *variant, val string) error { return parseInto(&v.Norm, val, strconv.ParseBool) }, func(v variant) (string, bool) { return when(v.Norm, "1") }},
	{"neg", func(v *variant, val string) error { return parseInto(&v.Neg, val, strconv.Atoi) }, func(v variant) (string, bool) { return whenInt(v.Neg) }},
	{"below", func(v *variant, val string) error { return parseInto(&v.Below, val, parseFloat) }, func(v variant) (string, bool) { return whenFloat(v.Below) }},
	{"without", func(v *variant, val string) error { v.Without = val; return nil }, func(v variant) (string, bool) { return when(v.Without != "", v.Without) }},
	{"loss", func(v *variant, val string) error {
		if val != "pairs" && val != "list" {
			return fmt.Errorf("loss %q: pairs or list", val)
		}
		v.Listwise = val == "list"
		return nil
	}, func(v variant) (string, bool) { return when(v.Listwise, "list") }},
	{"prior", func(v *variant, val string) error { return parseInto(&v.Prior, val, parseFloat) }, func(v variant) (string, bool) { return whenFloat(v.Prior) }},
	{"learn", func(v *variant, val string) error { v.Learn = val; return nil }, func(v variant) (string, bool) { return when(v.Learn != "", v.Learn) }},
	{"add", func(v *variant, val string) error {
		_, err := addedWeights(val)
		v.Add = val
		return err
	}, func(v variant) (string, bool) { return when(v.Add != "", v.Add) }},
}

// addedWeights reads a variant's add= value.
func addedWeights(val string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, cw := range strings.Split(val, "|") {
		col, w, ok := strings.Cut(cw, ":")
		x, err := parseFloat(w)
		if !ok || err != nil {
			return nil, fmt.Errorf("add %q: want COLUMN:WEIGHT", cw)
		}
		out[col] += x
	}
	return out, nil
}

// parseInto sets *dst to val parsed by parse.
func parseInto[T any](dst *T, val string, parse func(string) (T, error)) error {
	x, err := parse(val)
	*dst = x
	return err
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// parseVariant reads a variant from its String form.
func parseVariant(s string) (variant, error) {
	v := variant{Head: "trained", Window: learnedWindow, Tail: "ochiai", Decl: -1}
	for _, kv := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return v, fmt.Errorf("variant %q: %q is not key=value", s, kv)
		}
		i := slices.IndexFunc(variantKeys, func(vk variantKey) bool { return vk.name == k })
		if i < 0 {
			names := make([]string, len(variantKeys))
			for j, vk := range variantKeys {
				names[j] = vk.name
			}
			return v, fmt.Errorf("variant %q: unknown key %q (%s)", s, k, strings.Join(names, ", "))
		}
		err := variantKeys[i].set(&v, val)
		if err != nil {
			return v, fmt.Errorf("variant %q: %w", s, err)
		}
	}
	if v.Head != "trained" && v.Head != "shipped" {
		return v, fmt.Errorf("variant %q: head %q is neither trained nor shipped", s, v.Head)
	}
	if _, ok := tailWeights[v.Tail]; !ok && v.Tail != "spread" {
		return v, fmt.Errorf("variant %q: unknown tail %q", s, v.Tail)
	}
	switch v.Fn {
	case "", localize.FunctionsByBestLine, localize.FunctionsByOwnSpectrum, localize.FunctionsMixed, localize.FunctionsLearned:
	default:
		return v, fmt.Errorf("variant %q: unknown fn %q (best, own, mix, learned)", s, v.Fn)
	}
	if v.Keep < 0 || v.Keep > 0 && v.Fn == "" {
		return v, fmt.Errorf("variant %q: keep %d wants fn and is not negative", s, v.Keep)
	}
	if v.FnList != "" && v.Head != "shipped" {
		// The function model learns from the shipped order's lines.
		return v, fmt.Errorf("variant %q: fnlist wants head=shipped", s)
	}
	if (v.Norm || v.Neg != 0 || v.Below != 0 || v.Without != "" || v.Learn != "" || v.Listwise || v.Prior != 0) && v.Head != "trained" {
		return v, fmt.Errorf("variant %q: norm, neg, below, without, learn, loss and prior want head=trained", s)
	}
	if v.Learn != "" && v.Norm {
		return v, fmt.Errorf("variant %q: learn keeps the shipped head's weights, which are not normalized", s)
	}
	if v.Neg < 0 || v.Below < 0 {
		return v, fmt.Errorf("variant %q: neg and below may not be negative", s)
	}
	if v.Window < 1 {
		return v, fmt.Errorf("variant %q: window %d: a tail needs a window of at least 1", s, v.Window)
	}
	return v, nil
}

// tailWeights are the fixed tails' weights over the evidence columns.
var tailWeights = map[string]map[string]float64{
	"ochiai":    nil,
	"tarantula": {"spectrum.tarantula": 1},
	"blend":     {"spectrum.ochiai.rank": 1, "spectrum.tarantula.rank": 1},
}

// trainedModels are the models a variant may draw on, learned from one
// set of faults: the heads, by their training options (the top 300
// non-faulty lines paired, unless a variant says otherwise), the spread
// tail's, the function-level one (functionCases) and the function list's,
// by aggregates.
type trainedModels struct {
	heads             map[trainOptions]*localize.Model
	spread, functions *localize.Model
	fnList            map[string]*localize.Model
}

func learnModels(cases []*scoredCase, keep func(*scoredCase) bool, vs []variant) (trainedModels, error) {
	t := trainedModels{heads: map[trainOptions]*localize.Model{}, fnList: map[string]*localize.Model{}}
	for _, v := range vs {
		if v.FnList != "" && t.fnList[v.FnList] == nil {
			m, err := trainFunctionList(cases, keep, strings.Split(v.FnList, "+"))
			if err != nil {
				return t, err
			}
			t.fnList[v.FnList] = m
		}
		// Training is the slow part: only the models some variant uses.
		if o := v.headOptions(); v.Head == "trained" && t.heads[o] == nil {
			name := "pairwise-tuning-halves"
			if o.Normalize {
				name += "-normalized"
			}
			if o.Learn != "" {
				prefixes := strings.Split(o.Learn, "|")
				for i, p := range prefixes {
					prefixes[i] = strings.TrimSuffix(p, ".")
				}
				name = localize.ShippedModel().Name + "+" + strings.Join(prefixes, "+")
			}
			t.heads[o] = trainModel(cases, keep, name, o)
		}
		if v.Tail == "spread" && t.spread == nil {
			t.spread = trainModel(cases, keep, "pairwise-tuning-halves-spread", trainOptions{Negatives: trainNegatives, Spread: 300})
		}
		if v.Fn == localize.FunctionsLearned && t.functions == nil {
			fcs, err := functionCases(cases, keep, []string{localize.AggregateMax}, reportLines)
			if err != nil {
				return t, err
			}
			t.functions = trainModel(fcs, func(*scoredCase) bool { return true }, "pairwise-functions", trainOptions{Negatives: trainNegatives})
		}
	}
	return t, nil
}

// trainFunctionList learns a function model from the cases keep selects:
// their functions' features under the aggregates, over the lines in the
// shipped order (whose function list it reorders), paired as train pairs
// lines.
func trainFunctionList(cases []*scoredCase, keep func(*scoredCase) bool, aggregates []string) (*localize.Model, error) {
	shipped := localize.ShippedModel()
	fcs, err := functionCases(cases, keep, aggregates, func(c *scoredCase) ([]localize.RankedLine, error) {
		r, err := learnedRanking(c, shipped)
		if err != nil {
			return nil, err
		}
		return r.Lines, nil
	})
	if err != nil {
		return nil, err
	}
	return trainModel(fcs, func(*scoredCase) bool { return true }, "pairwise-function-list", trainOptions{Negatives: trainNegatives}), nil
}

// model builds the variant's model from the learned ones.
func (v variant) model(t trainedModels) *localize.Model {
	head := t.heads[v.headOptions()]
	if v.Head == "shipped" {
		head = localize.ShippedModel()
	}
	m := &localize.Model{Name: head.Name, Default: localize.OrderLearned, Window: v.Window, Weights: maps.Clone(head.Weights), Normalize: head.Normalize}
	m.Weights["spectrum.ochiai"] += v.Guard
	if v.Add != "" {
		add, _ := addedWeights(v.Add) // parseVariant checked it
		for col, w := range add {
			m.Weights[col] += w
		}
	}
	for col := range m.Weights {
		if v.Drop != "" && strings.HasPrefix(col, v.Drop) {
			delete(m.Weights, col)
		}
	}
	if v.Tail == "spread" {
		m.Tail = maps.Clone(t.spread.Weights)
	} else {
		m.Tail = maps.Clone(tailWeights[v.Tail])
	}
	if v.Fn != "" {
		m.Functions = &localize.FunctionFirstOptions{By: v.Fn, Keep: v.Keep}
		if v.Fn == localize.FunctionsLearned {
			m.Functions.Weights = maps.Clone(t.functions.Weights)
		}
	}
	if v.Decl >= 0 {
		m.Declarations = &localize.DeclarationOptions{After: v.Decl, MaxLines: v.DeclMax, FailingReaders: v.DeclFail, Readers: v.DeclReader}
	}
	if v.FnList != "" {
		m.FunctionModel = &localize.FunctionModel{Aggregates: strings.Split(v.FnList, "+"), Weights: maps.Clone(t.fnList[v.FnList].Weights)}
	}
	if v.UnexecOn {
		m.Unexecuted = &localize.UnexecutedOptions{After: v.Unexec, Distance: max(1, v.UnexecDist), Reach: v.UnexecReach}
	}
	m.Margin = v.Margin
	if v.Lift != "" {
		m.Lift = strings.Split(v.Lift, "|")
	}
	if v.Top > 0 {
		m.FormulaTop = &localize.FormulaTop{Top: v.Top, Bonus: v.Bonus}
	}
	return m
}

// innerFold splits the tuning half's projects (modules) in two by a
// SHA-256 of their names. Not FNV-1a, as heldOutProject: the low bit of
// its hash is the parity of the name's odd bytes whatever salt comes
// first (it multiplies by an odd prime), so it would put the whole half
// in one fold.
func innerFold(group string) int {
	return int(sha256.Sum256([]byte(group))[0] % 2)
}

func runTune(args []string) error {
	fs, benchPath, work := rankingsFlagSet("tune", "eval's directory whose tuning half is tuned on (rankings under work/eval)")
	seeded := fs.String("seeded", "", "directory of bench/effectiveness -rankings output (seeded faults)")
	final := fs.String("final", "", "score the -variants on the held-out halves of this eval directory (and of -seeded), learned from the whole tuning half of -work: once, at the end")
	variants := fs.String("variants", "", "semicolon-separated variants (head=trained|shipped,window=N,guard=G,tail=ochiai|tarantula|blend|spread[,fn=best|own|mix|learned,keep=N][,decl=N,declmax=N,declfail=1,declreader=N][,margin=M][,top=K,bonus=B][,drop=PREFIX][,fnlist=max+sum+top+best][,unexec=N,unexecdist=D,unexecreach=R][,norm=1][,neg=N][,below=B][,without=PREFIX][,loss=pairs|list][,prior=P][,learn=PREFIX][,add=COLUMN:W|...]); empty: a grid")
	modelPath := fs.String("model", "", "with -final and one variant, write its model here")
	fnModelPath := fs.String("function-model", "", "with -final and one fnlist= variant among -variants, set the function model of the model file here to the one learned from the whole tuning half")
	seededSrc := fs.String("seeded-src", "", "comma-separated roots of the seeded faults' modules, for their functions (function-level figures and fn= variants)")
	cross := fs.String("cross", "", "without -final: comma-separated column prefixes whose columns get a product with spectrum.ochiai as one more column, for trained heads to learn (interaction terms)")
	out := fs.String("out", "-", "markdown report (- for standard output)")
	positions := fs.String("positions", "", "also write each real fault's position under each order here, tab-separated (fault, order, position; 0 when no faulty line is ranked), for comparing two evals fault by fault")
	diagnose := fs.Int("diagnose", 0, "without -final: instead of the tables, list the N faults contributing most to the first variant's EXAM on the tuning half and those it ranks worse than Ochiai, with why")
	if err := fs.Parse(args); err != nil {
		return err
	}
	vs, err := tuneVariants(*variants)
	if err != nil {
		return err
	}
	all, _, err := loadCases(*benchPath, *work, *seeded, *seededSrc)
	if err != nil {
		return err
	}
	if *cross != "" {
		if *final != "" {
			return fmt.Errorf("-cross is for the tuning half's inner folds, not -final")
		}
		withProducts(all, strings.Split(*cross, ","))
	}
	w, closeOut, err := createOut(*out)
	if err != nil {
		return err
	}
	defer closeOut()
	tuning := func(c *scoredCase) bool { return !c.HeldOut }
	if *final == "" {
		// Inner folds: each fault ranked by models learned from the other.
		var byFold [2]trainedModels
		for f := range byFold {
			if byFold[f], err = learnModels(all, func(c *scoredCase) bool { return tuning(c) && innerFold(c.Group) != f }, vs); err != nil {
				return err
			}
		}
		modelOf := func(v variant) func(*scoredCase) *localize.Model {
			ms := [2]*localize.Model{v.model(byFold[0]), v.model(byFold[1])}
			return func(c *scoredCase) *localize.Model { return ms[innerFold(c.Group)] }
		}
		cases := filterCases(all, tuning)
		if *diagnose > 0 {
			return writeDiagnosis(w, cases, vs[0], modelOf(vs[0]), *diagnose)
		}
		return writeVariants(w, "Tuning half, inner folds", cases, vs, modelOf, *positions)
	}
	models, err := learnModels(all, tuning, vs)
	if err != nil {
		return err
	}
	b, err := realfault.LoadBenchmark(*benchPath)
	if err != nil {
		return err
	}
	real, err := loadRealCases(b, *final)
	if err != nil {
		return err
	}
	isHeldOut := func(c *scoredCase) bool { return c.HeldOut }
	held := append(filterCases(real, isHeldOut), filterCases(all, func(c *scoredCase) bool { return c.Seeded && c.HeldOut })...)
	modelOf := func(v variant) func(*scoredCase) *localize.Model {
		m := v.model(models)
		return func(*scoredCase) *localize.Model { return m }
	}
	if err := writeVariants(w, "Held-out half (learned from the whole tuning half)", held, vs, modelOf, *positions); err != nil {
		return err
	}
	if *fnModelPath != "" {
		withList := slices.IndexFunc(vs, func(v variant) bool { return v.FnList != "" })
		if withList < 0 || slices.IndexFunc(vs[withList+1:], func(v variant) bool { return v.FnList != "" }) >= 0 {
			return fmt.Errorf("-function-model wants one fnlist= variant among -variants")
		}
		if err := writeFunctionModel(*fnModelPath, vs[withList].model(models).FunctionModel); err != nil {
			return err
		}
	}
	if *modelPath != "" {
		if len(vs) != 1 {
			return fmt.Errorf("-model wants one variant, not %d", len(vs))
		}
		m := vs[0].model(models)
		m.Evaluation = "learned from the tuning halves (" + vs[0].String() + "); see bench/README.md for its held-out figures"
		data, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*modelPath, append(data, '\n'), 0o644)
	}
	return nil
}

func filterCases(cs []*scoredCase, keep func(*scoredCase) bool) []*scoredCase {
	var out []*scoredCase
	for _, c := range cs {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// tuneVariants parses -variants, or gives the grid.
func tuneVariants(spec string) ([]variant, error) {
	var vs []variant
	if spec == "" {
		for _, head := range []string{"shipped", "trained"} {
			for _, window := range []int{10, 20} {
				for _, guard := range []float64{0, 1000} {
					for _, tail := range []string{"ochiai", "tarantula", "spread"} {
						vs = append(vs, variant{Head: head, Window: window, Guard: guard, Tail: tail, Decl: -1})
					}
				}
			}
		}
		return vs, nil
	}
	for _, s := range strings.Split(spec, ";") {
		v, err := parseVariant(s)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// writeVariants scores Ochiai, Tarantula and each variant on the cases
// and writes a table for real and for seeded faults.
func writeVariants(w io.Writer, title string, cases []*scoredCase, vs []variant, modelOf func(variant) func(*scoredCase) *localize.Model, positions string) error {
	base := orders(nil)
	ords := []order{base[0], base[3]} // Ochiai, Tarantula
	if hasMutation(cases) {
		for _, o := range base {
			if slices.ContainsFunc(mutationFormulas, func(mf mutationFormula) bool { return mf.name == o.name }) {
				ords = append(ords, o)
			}
		}
	}
	singles := len(ords)
	for _, v := range vs {
		mOf := modelOf(v)
		ords = append(ords, learnedOrder(v.String(), mOf))
	}
	res, err := evaluate(cases, ords)
	if err != nil {
		return err
	}
	if positions != "" {
		if err := writePositions(positions, cases, ords, res); err != nil {
			return err
		}
	}
	for _, kind := range []struct {
		name string
		keep func(*scoredCase) bool
	}{{"real", func(c *scoredCase) bool { return !c.Seeded }}, {"seeded", func(c *scoredCase) bool { return c.Seeded }}} {
		n := countCases(cases, func(c *scoredCase) bool { _, ok := res[c]; return ok && kind.keep(c) })
		fmt.Fprintf(w, "\n## %s: %s faults (%d)\n\n", title, kind.name, n)
		if n == 0 {
			continue
		}
		fmt.Fprintf(w, "| order | Top-1 | Top-5 | EXAM | EXAM over executed lines | worse than Ochiai | of which beyond Ochiai's tie | better than Ochiai | function Top-1 | function Top-5 | projects equal: Top-1 / Top-5 / EXAM |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for k, o := range ords {
			s := summarize(res, cases, k, kind.keep)
			fn1, fn5 := s.fnCells()
			worse, better := worseThan(res, cases, k, 0, kind.keep), worseThan(res, cases, 0, k, kind.keep)
			beyond := worseThanWorst(res, cases, k, 0, kind.keep)
			t1, t5, exam := perGroup(res, cases, k, kind.keep)
			fmt.Fprintf(w, "| %s | %d (%.0f %%) | %d (%.0f %%) | %.4f | %.4f | %d (%.0f %%) | %d (%.0f %%) | %d (%.0f %%) | %s | %s | %.0f %% / %.0f %% / %.4f |\n", o.name,
				s.Top[0], s.pct(0), s.Top[2], s.pct(2), s.EXAM(), s.EXAMExecuted(), worse, 100*float64(worse)/float64(s.Faults),
				beyond, 100*float64(beyond)/float64(s.Faults), better, 100*float64(better)/float64(s.Faults), fn1, fn5, t1, t5, exam)
		}
	}
	writeVariantProjects(w, cases, ords, res)
	writeIntervals(w, cases, ords, res)
	if len(vs) > 1 {
		writePaired(w, ords, singles, cases, res)
	}
	return nil
}

// writePositions writes each real fault's position under each order to
// path: fault, order and position, tab-separated.
func writePositions(path string, cases []*scoredCase, ords []order, res map[*scoredCase][]outcome) error {
	var b strings.Builder
	for _, c := range cases {
		outs, ok := res[c]
		if !ok || c.Seeded {
			continue
		}
		for k, o := range ords {
			fmt.Fprintf(&b, "%s\t%s\t%g\n", c.ID, o.name, outs[k].pos)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing the positions: %w", err)
	}
	return nil
}

// writePaired compares each variant with the first, ords[first] (after
// the single techniques), fault by fault, on the real faults: how many
// each puts first (in the top five) that the other does not, and the two-sided exact sign test's p-value on those
// discordant faults (McNemar's), which says whether a difference in Top-1
// or Top-5 stands out from the split's noise.
func writePaired(w io.Writer, ords []order, first int, cases []*scoredCase, res map[*scoredCase][]outcome) {
	fmt.Fprintf(w, "\n### Real faults, each variant against %s, fault by fault\n\n", ords[first].name)
	fmt.Fprintf(w, "| variant | first here only / there only (p) | top five here only / there only (p) |\n|---|---|---|\n")
	for k := first + 1; k < len(ords); k++ {
		fmt.Fprintf(w, "| %s |", ords[k].name)
		for _, n := range []float64{1, 5} {
			won, lost := 0, 0
			for _, c := range cases {
				os, ok := res[c]
				if !ok || c.Seeded {
					continue
				}
				in := func(o outcome) bool { return o.pos > 0 && o.pos <= n }
				switch a, b := in(os[k]), in(os[first]); {
				case a && !b:
					won++
				case b && !a:
					lost++
				}
			}
			fmt.Fprintf(w, " %d / %d (%.2f) |", won, lost, signTest(won, lost))
		}
		fmt.Fprintln(w)
	}
}

// bootstrapRounds is how many resamples writeIntervals draws.
const bootstrapRounds = 2000

// writeIntervals gives each order's Top-1 and Top-5 on the real faults
// with a 90 % interval from a bootstrap over projects (whole projects
// drawn with replacement, as the halves are split by project, with a
// fixed seed so that the same rankings give the same table): how far
// another sample of projects could move the figure.
func writeIntervals(w io.Writer, cases []*scoredCase, ords []order, res map[*scoredCase][]outcome) {
	byGroup := map[string][]*scoredCase{}
	for _, c := range cases {
		if _, ok := res[c]; ok && !c.Seeded {
			byGroup[c.Group] = append(byGroup[c.Group], c)
		}
	}
	groups := slices.Sorted(maps.Keys(byGroup))
	if len(groups) < 2 {
		return
	}
	fmt.Fprintf(w, "\n### Real faults, 90 %% intervals (%d resamples of the %d projects)\n\n| order | Top-1 | Top-5 |\n|---|---|---|\n", bootstrapRounds, len(groups))
	for k, o := range ords {
		var top1, top5 []float64
		rng := rand.New(rand.NewPCG(1, 2))
		for range bootstrapRounds {
			n, t1, t5 := 0, 0, 0
			for range groups {
				for _, c := range byGroup[groups[rng.IntN(len(groups))]] {
					n++
					if p := res[c][k].pos; p > 0 && p <= 1 {
						t1++
					}
					if p := res[c][k].pos; p > 0 && p <= 5 {
						t5++
					}
				}
			}
			top1 = append(top1, 100*float64(t1)/float64(max(n, 1)))
			top5 = append(top5, 100*float64(t5)/float64(max(n, 1)))
		}
		slices.Sort(top1)
		slices.Sort(top5)
		lo, hi := bootstrapRounds/20, bootstrapRounds-bootstrapRounds/20-1
		fmt.Fprintf(w, "| %s | %.0f–%.0f %% | %.0f–%.0f %% |\n", o.name, top1[lo], top1[hi], top5[lo], top5[hi])
	}
}

// signTest is the two-sided exact binomial p-value of a split of a+b
// discordant pairs into a and b under even odds.
func signTest(a, b int) float64 {
	n, k := a+b, min(a, b)
	if n == 0 {
		return 1
	}
	p, term := 0.0, math.Pow(0.5, float64(n)) // C(n,0)/2^n
	for i := 0; i <= k; i++ {
		p += term
		term = term * float64(n-i) / float64(i+1)
	}
	return min(1, 2*p)
}

// writeVariantProjects gives each project's real faults under every
// order: Top-1 / Top-5 / EXAM, then function Top-1 / Top-5.
func writeVariantProjects(w io.Writer, cases []*scoredCase, ords []order, res map[*scoredCase][]outcome) {
	groups := map[string]bool{}
	for _, c := range cases {
		if _, ok := res[c]; ok && !c.Seeded {
			groups[c.Group] = true
		}
	}
	fmt.Fprintf(w, "\n### Real faults by project (Top-1 / Top-5 / EXAM; function Top-1 / Top-5)\n\n| project | faults |")
	for _, o := range ords {
		fmt.Fprintf(w, " %s |", o.name)
	}
	fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat("---|", len(ords)))
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		keep := func(c *scoredCase) bool { return !c.Seeded && c.Group == g }
		fmt.Fprintf(w, "| %s | %d |", g, summarize(res, cases, 0, keep).Faults)
		for k := range ords {
			s := summarize(res, cases, k, keep)
			fmt.Fprintf(w, " %d / %d / %.4f; %d / %d |", s.Top[0], s.Top[2], s.EXAM(), s.FnTop[0], s.FnTop[1])
		}
		fmt.Fprintln(w)
	}
}

// writeFunctionModel sets the function model of the model file at path,
// leaving the rest of it as it was.
func writeFunctionModel(path string, fm *localize.FunctionModel) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-function-model: %w", err)
	}
	var m localize.Model
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("-function-model: %s: %w", path, err)
	}
	m.FunctionModel = fm
	if data, err = json.MarshalIndent(&m, "", "  "); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// crossSuffix names a product column: the column times Ochiai's score.
const crossSuffix = "*spectrum.ochiai"

// withProducts adds to every line's evidence, for each column with one of
// the prefixes, its product with the line's Ochiai score: a linear model
// over them weighs the column by how suspicious the line is already.
func withProducts(cases []*scoredCase, prefixes []string) {
	for _, c := range cases {
		if c.Report == nil {
			continue
		}
		for i := range c.Report.Lines {
			ev := c.Report.Lines[i].Evidence
			ochiai := ev["spectrum.ochiai"]
			for col, v := range ev {
				if col == "spectrum.ochiai" || strings.HasSuffix(col, crossSuffix) || ochiai*v == 0 {
					continue
				}
				for _, p := range prefixes {
					if strings.HasPrefix(col, p) {
						ev[col+crossSuffix] = v * ochiai
						break
					}
				}
			}
		}
	}
}
