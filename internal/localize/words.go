package localize

import (
	"strings"
)

// EvidenceTerm is how one evidence column is told to a user: a short name
// for a table cell and a sentence for the legend under the table.
type EvidenceTerm struct {
	Short   string
	Meaning string
}

// evidenceTerms are the plain words of the evidence columns the sources
// give (see evidenceSources); the per-formula rank columns and the
// statement kinds are made by EvidenceWords.
var evidenceTerms = map[string]EvidenceTerm{
	"spectrum.ochiai":                    {"Ochiai score", "how strongly running the line goes with failing, by the Ochiai formula"},
	"spectrum.tarantula":                 {"Tarantula score", "how strongly running the line goes with failing, by the Tarantula formula"},
	"spectrum.failShare":                 {"run by failing tests", "the share of the failing tests that run the line"},
	"spectrum.passShare":                 {"run by passing tests", "the share of the passing tests that run the line (counts against it)"},
	"spectrum.onlyFailing":               {"run by failing tests only", "no passing test runs the line"},
	"blockrank.rank":                     {"high under BlockRank", "the line ranks high under BlockRank, which weighs the paths the tests take"},
	"angelic.fix":                        {"verified fix", "changing a value on the line makes a failing test pass, checked by running it"},
	"angelic.solver":                     {"fix found by the solver", "a verified fix on the line was found by solving the failing run's constraints"},
	"angelic.switch":                     {"fix by flipping a condition", "a verified fix on the line flips one of its conditions"},
	"angelic.replace":                    {"fix by replacing a value", "a verified fix on the line replaces one of its values by one a passing test produces"},
	"angelic.multi":                      {"part of a multi-line fix", "the line is one of several whose changed values together make a failing test pass"},
	"angelic.unverified":                 {"unverified fix", "a fix on the line was found but did not make the test pass when run"},
	"angelic.extreme":                    {"fix by an extreme value", "only a value at the far end of its type's range makes the test pass"},
	"angelic.fixAll":                     {"fixes every failing test", "a verified fix on the line makes every analysed failing test pass"},
	"angelic.exclusive":                  {"one of few fixable lines", "few lines host a verified fix, and this is one of them"},
	"angelic.mcs":                        {"fix needs few lines", "a verified fix on the line needs no other line changed, or only a few"},
	"slice.member":                       {"in the failing check's slice", "what a failing test checks depends on the line, through data or control, in the failing run"},
	"slice.distance":                     {"near the failing check", "few dependences lead from a failing test's check to the line"},
	"mutation.metallaxis":                {"Metallaxis-FL score", "how strongly the line's mutants change the failing tests' outcomes rather than the passing ones' (Metallaxis-FL)"},
	"mutation.muse":                      {"MUSE score", "how often the line's mutants make failing tests pass rather than passing tests fail (MUSE)"},
	"mutation.mutants":                   {"mutants run", "how many mutants of the line ran against the tests that cover it"},
	"mutation.fix":                       {"verified operator fix", "a mutant of the line (an operator changed, a boolean flipped, a statement removed) makes the failing tests pass and keeps the passing ones passing"},
	"mutation.metallaxis.reciprocalRank": {"first under Metallaxis-FL", "the line is among the first when the lines are ordered by their Metallaxis-FL scores"},
	"mutation.muse.reciprocalRank":       {"first under MUSE", "the line is among the first when the lines are ordered by their MUSE scores"},
	"sattar.suspect":                     {"in unsat cores", "the line is in the unsat cores of the failing tests' checks (SAT-TAR)"},
	"sattar.core":                        {"in a small unsat core", "the line is in a small unsat core of a failing check (SAT-TAR)"},
	"static.depth":                       {"nesting depth", "how deeply the line is nested in its function"},
	"static.stack":                       {"on the panic stack", "the line is on a failing test's panic stack, the more the nearer the panic"},
	"static.stackFunc":                   {"function on the panic stack", "the line's function is on a failing test's panic stack"},
	"identity.direct":                    {"called by the failing test", "a failing test's body calls the line's function directly"},
	"identity.callDistance":              {"near the failing test", "few calls lead from a failing test to the line's function"},
	"identity.funcName":                  {"named like the failing test", "the failing test's name holds the words of the line's function"},
	"identity.typeName":                  {"type named like the failing test", "the failing test's name holds the words of the line's method's type"},
	"identity.fileName":                  {"file named like the failing test", "the failing test's name holds the words of the line's file"},
	"identity.pkgName":                   {"package named like the failing test", "the failing test's name holds the words of the line's package"},
	EvidenceDeclarationRead:              {"read by a ranked line", "the line is a package-level variable or constant that a ranked line reads; no test runs its value, so no spectrum holds it, and it follows the first line that reads it"},
	EvidenceUnexecutedNextTo:             {"next to a line a failing test runs", "no test runs the line (a function's header, a closing brace, a branch no test takes), so no spectrum holds it; it lies next to a line a failing test runs, where an omitted statement or a wrong signature would be, and follows that line"},
}

// statementKinds name the statement kinds of the static evidence.
var statementKinds = map[string]string{
	"if": "an if statement", "loop": "a loop", "switch": "a switch", "case": "a case clause",
	"return": "a return statement", "assign": "an assignment", "call": "a call", "decl": "a declaration",
	"branch": "a break, continue or goto", "defer": "a defer statement",
}

// StatementWords names a statement kind of the static evidence: "an if
// statement", "a loop".
func StatementWords(kind string) string {
	if what, ok := statementKinds[kind]; ok {
		return what
	}
	return "a " + kind + " statement"
}

// EvidenceWords returns the plain words of an evidence column (a
// Reason's Evidence); a column it does not know is named as it is.
func EvidenceWords(column string) EvidenceTerm {
	if t, ok := evidenceTerms[column]; ok {
		return t
	}
	if formula, ok := strings.CutPrefix(column, "spectrum."); ok {
		if name, ok := strings.CutSuffix(formula, ".rank"); ok {
			return EvidenceTerm{"high under " + name, "the line ranks high under the " + name + " formula"}
		}
	}
	if kind, ok := strings.CutPrefix(column, "static.kind."); ok {
		what := StatementWords(kind)
		return EvidenceTerm{"is " + what, "the line is " + what + "; the model learned how often such lines are faulty"}
	}
	return EvidenceTerm{column, column}
}
