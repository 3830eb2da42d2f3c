package cmd

import (
	"fmt"
	"io"

	"github.com/faultline-go/faultline/internal/localize"
)

// lineOrder is how faultline rank orders lines beneath the angelic
// findings: by a formula of the four counts, by BlockRank, which needs
// the edge profiles collected too, or by SAT-TAR, which needs the unsat
// cores of the failing tests' checks.
type lineOrder struct {
	technique localize.Technique
	mode      localize.BlockRankMode // BlockRank's
}

// lookupOrder returns the order a -formula name asks for; mode is
// BlockRank's -blockrank-mode.
func lookupOrder(name, mode string) (lineOrder, error) {
	t, err := localize.ParseTechnique(name)
	if err != nil {
		return lineOrder{}, err
	}
	o := lineOrder{technique: t}
	if t.BlockRank() {
		if o.mode, err = localize.ParseBlockRankMode(mode); err != nil {
			return lineOrder{}, err
		}
	}
	return o, nil
}

// writeBlockRankText says how a BlockRank ranking was solved, naming the
// functions whose loops did not settle.
func writeBlockRankText(w io.Writer, r *localize.Ranking) {
	br := r.BlockRank
	if br == nil {
		return
	}
	fmt.Fprintf(w, "\nBlockRank (%s): %d blocks of %d functions", br.Mode, br.Blocks, br.Functions)
	if len(br.Unsettled) == 0 {
		fmt.Fprintln(w, ", every loop settled.")
		return
	}
	fmt.Fprintf(w, "; in %d functions a loop did not settle:\n", len(br.Unsettled))
	for i, u := range br.Unsettled {
		if i == 5 {
			fmt.Fprintf(w, "  ... and %d more (rank -json lists them all)\n", len(br.Unsettled)-5)
			break
		}
		fmt.Fprintf(w, "  %s %s: %s\n", u.File, u.Function, u.Resolution)
	}
}
