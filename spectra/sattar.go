package spectra

import "strings"

// SatTarName is the name SAT-TAR's order goes by where a formula's name is
// expected (faultline rank -formula, the server's setting). It is not a
// formula of the four counts: its bonus comes from unsat cores of the
// failing tests' checks (package specs computes it).
const SatTarName = "sattar"

// IsSatTar reports whether a formula name asks for SAT-TAR's order,
// ignoring case, dashes, underscores and spaces as rank.Lookup does.
func IsSatTar(name string) bool {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(name)) == SatTarName
}

// SatTarLine explains one line's score in SAT-TAR's order (Gopinath,
// Nokhbeh Zaeem and Khurshid, ASE 2012): Tarantula plus a bonus of 1 for
// a suspect, a line in the unsat core of a failing test's violated checks,
// with Tarantula's confidence breaking ties.
type SatTarLine struct {
	Tarantula  float64 `json:"tarantula"`
	Confidence float64 `json:"confidence"`
	Bonus      float64 `json:"bonus"`
	// Cores lists the failing tests whose unsat core holds the line.
	Cores []string `json:"cores,omitempty"`
	// Cleared says why the rating refinement took the line's bonus away.
	Cleared string `json:"cleared,omitempty"`
}
