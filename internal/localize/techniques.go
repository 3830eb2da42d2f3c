package localize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/specs"
	"github.com/faultline-go/faultline/spectra"
	"github.com/faultline-go/faultline/spectra/blockrank"
	"github.com/faultline-go/faultline/spectra/rank"
)

// Technique is what scores the lines before any order: a formula of the
// spectra's four counts, BlockRank over the edge profiles, or SAT-TAR over
// the unsat cores of the failing tests' checks. faultline rank's -formula,
// faultline report's and the server's formula setting all name one.
type Technique struct {
	Name  string // canonical name, as -formula takes it
	Title string // how a sentence names it: "SAT-TAR" for sattar
	Doc   string // what it ranks by, for help texts
	// Formula is the formula of the four counts; nil for BlockRank and
	// SAT-TAR.
	Formula rank.Formula
	kind    techniqueKind
}

// techniqueKind tells the techniques that are not formulas apart.
type techniqueKind int

const (
	formulaKind techniqueKind = iota
	blockRankKind
	satTarKind
)

// BlockRank reports whether t is BlockRank, which needs the spectra
// collected with edge profiles.
func (t Technique) BlockRank() bool { return t.kind == blockRankKind }

// SatTar reports whether t is SAT-TAR, which needs the unsat cores the
// service computes in workers.
func (t Technique) SatTar() bool { return t.kind == satTarKind }

// Names of the techniques that are not formulas of the four counts.
const (
	BlockRankName = spectra.BlockRankName
	SatTarName    = specs.SatTarName
)

// The techniques that are not formulas of the four counts.
var (
	blockRankTechnique = Technique{Name: BlockRankName, Title: "BlockRank", Doc: "from edge profiles", kind: blockRankKind}
	satTarTechnique    = Technique{Name: SatTarName, Title: "SAT-TAR", Doc: "Tarantula with a bonus for the unsat cores of the failing checks; needs Z3", kind: satTarKind}
)

// Techniques lists the named techniques: the registered formulas, default
// (ochiai) first, then BlockRank and SAT-TAR. ParseTechnique also takes
// dstarN and opt-NAME formulas.
func Techniques() []Technique {
	var ts []Technique
	for _, name := range rank.Names() {
		f, err := rank.Lookup(name)
		if err != nil {
			continue // cannot happen: a registered name looks up (TestTechniques)
		}
		ts = append(ts, formulaTechnique(f))
	}
	return append(ts, blockRankTechnique, satTarTechnique)
}

// FormulaHelp describes the names of the formulas of the four counts
// ParseTechnique takes, for the help of a flag.
func FormulaHelp() string {
	return strings.Join(rank.Names(), ", ") + ", dstarN, opt-NAME"
}

// TechniqueHelp describes every name ParseTechnique takes, for the help of
// a flag.
func TechniqueHelp() string {
	return FormulaHelp() + ", " + blockRankTechnique.Name + " (" + blockRankTechnique.Doc + "), or " + satTarTechnique.Name + " (" + satTarTechnique.Doc + ")"
}

// ParseTechnique returns the technique a name asks for, ignoring case,
// dashes, underscores and spaces: a formula as rank.Lookup takes it
// (dstarN, opt-NAME and aliases too), "blockrank" or "sattar".
func ParseTechnique(name string) (Technique, error) {
	key := strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(name))
	for _, t := range []Technique{blockRankTechnique, satTarTechnique} {
		if key == t.Name {
			return t, nil
		}
	}
	f, err := rank.Lookup(name)
	if err != nil {
		return Technique{}, err
	}
	return formulaTechnique(f), nil
}

// formulaTechnique is the technique of a formula of the four counts.
func formulaTechnique(f rank.Formula) Technique {
	return Technique{Name: f.Name(), Title: f.Name(), Doc: "formula of the four counts", Formula: f}
}

// BlockRankMode is how BlockRank solves its equations.
type BlockRankMode = blockrank.Mode

// ParseBlockRankMode parses a BlockRank mode: "full" (one system) or
// "calibrated" (the paper's worked example).
func ParseBlockRankMode(s string) (BlockRankMode, error) { return blockrank.ParseMode(s) }

// BlockRankOptions are BlockRank's options.
type BlockRankOptions = blockrank.Options

// Use sets o to rank by t, BlockRank solving its equations in mode.
func (o *Options) Use(t Technique, mode BlockRankMode) {
	o.Formula, o.BlockRank, o.SatTar = t.Formula, nil, t.SatTar()
	if t.BlockRank() {
		o.BlockRank = &blockrank.Options{Mode: mode}
	}
}

// Order is a way to order a ranking's lines, as faultline rank's -order
// and the server's order setting name it.
type Order struct {
	Name string
	Doc  string
}

// Names of the orders.
const (
	OrderFormula  = "formula"
	OrderCombined = "combined"
	// OrderLearned ranks by a model learned from every technique's
	// evidence (each line's Evidence and Because say what it weighed).
	OrderLearned = "learned"
)

// AllOrders lists the orders Options.Order takes.
func AllOrders() []Order {
	return []Order{
		{OrderFormula, "by the technique's score alone"},
		{OrderCombined, "verified angelic fixes first, then the technique's score"},
		{OrderLearned, "by the shipped model over every technique's evidence"},
	}
}

// Orders lists the names of AllOrders.
var Orders = orderNames()

func orderNames() []string {
	var names []string
	for _, o := range AllOrders() {
		names = append(names, o.Name)
	}
	return names
}

// ParseOrder returns the order of a name.
func ParseOrder(name string) (Order, error) {
	i := slices.IndexFunc(AllOrders(), func(o Order) bool { return o.Name == name })
	if i < 0 {
		return Order{}, fmt.Errorf("unknown order %q; valid: %s", name, strings.Join(orderNames(), ", "))
	}
	return AllOrders()[i], nil
}

// CheckOrder reports an order name that is neither "" (the default) nor
// one of Orders.
func CheckOrder(order string) error {
	if order == "" {
		return nil
	}
	_, err := ParseOrder(order)
	return err
}
