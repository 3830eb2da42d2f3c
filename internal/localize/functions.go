package localize

import (
	"github.com/faultline-go/faultline/internal/export"
	"github.com/faultline-go/faultline/internal/parsed"
)

// Function is a function of the module's source as the function ranking
// counts them: a declared function or method ("F", "T.M", type parameters
// and the receiver's pointer dropped). The lines of a function literal
// belong to the declared function around it, because a fault in a closure
// is a fault of the function that holds it; the lines outside any declared
// function (a package-level variable's function literal, or a file that
// cannot be parsed) make one Function of their file, with no Name and
// Line 0.
type Function struct {
	File string `json:"file"`           // relative to the module root, slash-separated
	Name string `json:"name,omitempty"` // "" for the lines outside any declared function
	Line int    `json:"line"`           // the first line of its declaration
}

// Label names the function for a reader: its name, or for the lines outside
// any declared function "package-level declarations in <file>", which is
// what they are (a variable's value, a table, a function literal assigned
// to a package-level variable), so that the entry does not pass for a
// function and each file's entry is told apart from the others'.
func (f Function) Label() string {
	if f.Name == "" {
		return "package-level declarations in " + f.File
	}
	return f.Name
}

// FunctionOf names the function holding a line of a file, File relative to
// the module root as in RankedLine.File.
type FunctionOf func(file string, line int) Function

// SourceFunctions reads the module's source files under root as they are
// asked for and finds the declared function holding each line.
func SourceFunctions(root string) FunctionOf {
	return FunctionsIn(export.NewSources(root))
}

// ModuleSourceIn reads the module's source under root through files, the
// parsed files shared by every reader of it, as the orders ask.
func ModuleSourceIn(root string, files *parsed.Cache) ModuleSource {
	return ModuleSource{Functions: FunctionsIn(export.NewSourcesIn(root, files)), Reads: DeclarationReadsIn(root, files), Spans: FunctionSpansIn(root, files)}
}

// SourceFiles are the parsed source files the localization read; for one
// made without a service, a new cache that the caller keeps.
func (l *Localization) SourceFiles() *parsed.Cache {
	if l.Files == nil {
		return parsed.New(0)
	}
	return l.Files
}

// Sources reads the localization's module source through its parsed
// files.
func (l *Localization) Sources() *export.Sources {
	return export.NewSourcesIn(l.Matrix.Root, l.SourceFiles())
}

// FunctionsIn finds the declared function holding each line in src, for a
// caller that reads the sources already.
func FunctionsIn(src *export.Sources) FunctionOf {
	return func(file string, line int) Function {
		name, start := src.File(file).Decl(line)
		return Function{File: file, Name: name, Line: start}
	}
}

// RankedFunction is one function's place in a function ranking.
type RankedFunction struct {
	Function
	Rank int    `json:"rank"` // 1-based, ties broken by the order of the best lines
	Tie  [2]int `json:"tie"`  // first and last rank of the functions tied with it
	// BestLine and BestRank are the function's best-ranked line and that
	// line's rank, which place the function.
	BestLine int `json:"bestLine"`
	BestRank int `json:"bestRank"`
	Lines    int `json:"lines"` // its lines in the ranking
	// Spectrum is the function's own spectrum and its place under the
	// formula of it (Localization.Functions sets it; nil when unknown).
	Spectrum *FunctionSpectrum `json:"spectrum,omitempty"`
}

// RankFunctions ranks the functions holding lines, a ranking's lines in
// rank order, by their best line: a function is as suspicious as its most
// suspicious line (the maximum, the usual aggregation of line scores to
// functions). Functions whose best lines tie under the order tie too.
// Every line counts, not only a shown top, so that a function's place does
// not depend on how many lines are shown.
func RankFunctions(lines []RankedLine, of FunctionOf) []RankedFunction {
	var out []RankedFunction
	var bestTie [][2]int // the line tie group of each function's best line
	index := map[Function]int{}
	for _, l := range lines {
		fn := of(l.File, l.Line)
		if i, ok := index[fn]; ok {
			out[i].Lines++
			continue
		}
		index[fn] = len(out)
		out = append(out, RankedFunction{Function: fn, BestLine: l.Line, BestRank: l.Rank, Lines: 1})
		bestTie = append(bestTie, l.Tie)
	}
	// Functions come in the order of their best lines, so a tie group is a
	// run of functions whose best lines share one line tie group.
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && bestTie[j] == bestTie[i] {
			j++
		}
		for k := i; k < j; k++ {
			out[k].Rank, out[k].Tie = k+1, [2]int{i + 1, j}
		}
		i = j
	}
	return out
}
