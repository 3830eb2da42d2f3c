package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/snapshot"
	"go.lsp.dev/protocol"
)

// Custom server-to-client notifications, see the protocol contract shared
// with the editor plug-ins.
const (
	methodStatus         = "faultline/status"
	methodRankingChanged = "faultline/rankingChanged"
)

type statusParams struct {
	State   string `json:"state"` // idle, building, running, error
	Root    string `json:"root"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Failing int    `json:"failing"`
	Message string `json:"message"`
}

func (s *Server) status(p statusParams) {
	if s.wants(methodStatus) {
		s.client.notify(methodStatus, &p)
	}
}

type rankingChangedParams struct {
	Root   string       `json:"root"`
	Failed int          `json:"failed"`
	Passed int          `json:"passed"`
	Top    *topLocation `json:"top"`
}

type topLocation struct {
	URI   string  `json:"uri"`
	Line  int     `json:"line"` // 1-based, as collected
	Score float64 `json:"score"`
}

// announce tells the editor a view has a new snapshot: its status (unless
// withStatus is false), the ranking summary, and a refresh of the pulled
// features.
func (s *Server) announce(v *view, snap *snapshot.Snapshot, withStatus bool) {
	if withStatus {
		s.announceStatus(v, snap)
	}
	changed := rankingChangedParams{Root: v.root, Failed: snap.Ranking.Failed, Passed: snap.Ranking.Passed}
	if len(snap.Flagged) > 0 {
		l := snap.Ranking.Lines[snap.Flagged[0]]
		changed.Top = &topLocation{URI: string(fileURI(snap, l.File)), Line: l.Line, Score: l.Score}
	}
	if v.rankingChanged(snap) && s.wants(methodRankingChanged) {
		s.client.notify(methodRankingChanged, &changed)
	}
	s.refreshPulled()
}

// announceStatus tells the client the state the snapshot shows the module
// in; results so far leave the run's own status standing.
func (s *Server) announceStatus(v *view, snap *snapshot.Snapshot) {
	st := statusParams{State: "idle", Root: v.root, Message: "no failing tests"}
	failing := 0
	for _, t := range snap.Matrix.Tests {
		if t.Verdict.Failing() {
			failing++
		}
	}
	st.Failing = failing
	switch {
	case len(snap.Matrix.Tests) == 0:
		st.Message = "no test results yet"
	case snap.BuildErrors != "":
		st.State, st.Message = "error", "tests do not build"
	case failing > 0:
		st.Message = summary(snap.Matrix)
	}
	s.status(st)
}

// refreshPulled asks the client to re-request inlay hints and code lenses,
// which it pulls. These are requests, so they are sent off the read loop.
func (s *Server) refreshPulled() {
	s.mu.Lock()
	hints, lenses := s.caps.inlayHintRefresh, s.caps.codeLensRefresh
	s.mu.Unlock()
	if !hints && !lenses {
		return
	}
	s.spawn("refreshing hints and lenses", func() {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		defer cancel()
		if hints {
			_ = s.client.call(ctx, protocol.MethodWorkspaceInlayHintRefresh, nil, nil)
		}
		if lenses {
			_ = s.client.call(ctx, protocol.MethodWorkspaceCodeLensRefresh, nil, nil)
		}
	})
}

// rankingChanged reports whether snap ranks differently from the snapshot
// last announced, and remembers it.
func (v *view) rankingChanged(snap *snapshot.Snapshot) bool {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %d %d %d|", snap.Ranking.Formula, snap.Ranking.Order, snap.Ranking.Failed, snap.Ranking.Passed, len(snap.Ranking.Lines))
	for _, l := range snap.Ranking.Lines {
		if l.EF > 0 {
			fmt.Fprintf(&b, "%s:%d:%g:%d:%d;", l.File, l.Line, l.Score, l.Rank, l.Fixes)
		}
	}
	digest := b.String()
	v.mu.Lock()
	defer v.mu.Unlock()
	if digest == v.lastRanking {
		return false
	}
	v.lastRanking = digest
	return true
}
