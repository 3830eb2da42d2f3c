package localize

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/testbuild"
	"github.com/faultline-go/faultline/specs"
	"github.com/faultline-go/faultline/spectra"
)

// SatTar is what SAT-TAR's order was made of: the unsat cores of the
// selected failing tests.
type SatTar struct {
	Cores []analysis.CoreResult `json:"cores"`
	Notes []string              `json:"notes,omitempty"`
}

// coreFormat changes when the cached cores' form or meaning does.
const coreFormat = "faultline-sattar-core-1"

// RankSatTar orders m's lines by SAT-TAR with the cores st holds (none
// when st is nil: Tarantula's order), for a matrix focused on some tests.
func RankSatTar(m *spectra.Matrix, st *SatTar) (*Ranking, error) {
	var cores []analysis.CoreResult
	if st != nil {
		cores = st.Cores
	}
	return rankByCores(m, cores)
}

// rankByCores orders m's lines by SAT-TAR with the cores' bonus.
func rankByCores(m *spectra.Matrix, cores []analysis.CoreResult) (*Ranking, error) {
	r, err := specs.Rank(m, cores)
	if err != nil {
		return nil, err
	}
	return satTarRanking(r), nil
}

// rankSatTar orders m's lines by SAT-TAR: the cores of the failing tests
// Select picks (from the cache, or computed in a worker) give the bonus.
func (s *Service) rankSatTar(ctx context.Context, m *spectra.Matrix, opts Options) (*Ranking, *SatTar, error) {
	st := &SatTar{Cores: []analysis.CoreResult{}}
	targets, failing := Select(m, opts.MaxAnalyzed)
	if len(targets) < failing {
		st.Notes = append(st.Notes, fmt.Sprintf("cores of the first %d of %d failing tests", len(targets), failing))
	}
	if len(targets) > 0 {
		if err := analysis.Available(); err != nil {
			st.Notes = append(st.Notes, fmt.Sprintf("no cores, so no suspects: %v", err))
		} else if err := s.cores(ctx, targets, opts, st); err != nil {
			if ctx.Err() != nil {
				return nil, nil, err
			}
			st.Notes = append(st.Notes, fmt.Sprintf("cores: %v", err))
		}
	}
	for _, c := range st.Cores {
		if c.Note != "" {
			st.Notes = append(st.Notes, fmt.Sprintf("%s: %s", c.Test, c.Note))
		}
	}
	r, err := rankByCores(m, st.Cores)
	return r, st, err
}

// cores fills st with the targets' cores, computing the ones the cache
// lacks in a worker.
func (s *Service) cores(ctx context.Context, targets []testbuild.Target, opts Options, st *SatTar) error {
	mod := s.ws.Module()
	listing, keys, err := mod.ListKeys(ctx)
	if err != nil {
		return err
	}
	keyOf := map[testbuild.Target]string{}
	var missing []testbuild.Target
	for _, t := range targets {
		pkg := listing.Package(t.Package)
		if pkg == nil {
			continue
		}
		keyOf[t] = testbuild.Bytes([]byte(coreFormat + "\x00" + s.cache.Key(keys, pkg, t.Test, opts.analysisOptions())))
		var c analysis.CoreResult
		if s.coreCache.get(keyOf[t], &c) {
			st.Cores = append(st.Cores, c)
		} else {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return s.eachTarget(ctx, workRequest{Root: s.ws.Root(), CacheRoot: mod.CacheRoot(), Targets: missing, Cores: true,
		Options: opts.analysisOptions(), Memory: opts.Memory, TestMemory: s.testMemory(opts.TestMemory), Env: mod.Env(),
		Deadline: time.Now().Add(time.Duration(len(missing))*opts.Budget + workerSlack)},
		func(reply workReply) (testbuild.Target, bool) {
			c := reply.Core
			if c == nil {
				return testbuild.Target{}, false
			}
			st.Cores = append(st.Cores, *c)
			t := testbuild.Target{Package: c.Package, Test: c.Test}
			// A note that the analysis failed may not hold next time.
			if key, ok := keyOf[t]; ok && ctx.Err() == nil && !strings.HasPrefix(c.Note, "not analysed") {
				if data, err := jsonMarshal(c); err == nil {
					s.coreCache.put(key, data)
				}
			}
			return t, true
		},
		func(t testbuild.Target, why error) {
			st.Cores = append(st.Cores, analysis.CoreResult{Package: t.Package, Test: t.Test, Note: lostNote(why)})
		})
}
