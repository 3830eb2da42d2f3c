package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/faultline-go/faultline/internal/snapshot"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// diagState is a view's diagnostics bookkeeping.
type diagState struct {
	cancel    context.CancelFunc // of the pass in progress
	published map[uri.URI]string // what each file shows now, by digest
}

// diagnose recomputes and publishes a view's diagnostics in the background,
// cancelling the pass in progress, whose results would be stale. It
// returns a channel closed when the pass is over, published or cancelled.
func (s *Server) diagnose(v *view) <-chan struct{} {
	ctx, cancel := context.WithCancel(v.ctx)
	done := make(chan struct{})
	v.mu.Lock()
	if v.diag.cancel != nil {
		v.diag.cancel()
	}
	v.diag.cancel = cancel
	snap := v.snap
	explained := slices.Collect(maps.Values(v.explained))
	v.mu.Unlock()
	if snap == nil {
		cancel()
		close(done)
		return done
	}
	s.spawn("publishing diagnostics", func() {
		defer close(done)
		defer cancel()
		start := time.Now()
		out := s.computeDiagnostics(ctx, snap)
		if out != nil {
			s.explanationDiagnostics(snap.Root, explained, out)
		}
		if s.publish(ctx, v, out) && s.trace.on() {
			v.mu.Lock()
			arrived := v.arrived
			v.arrived = time.Time{}
			v.mu.Unlock()
			detail := fmt.Sprintf("%d files, %s order", len(out), snap.Ranking.Order)
			if !arrived.IsZero() {
				detail += fmt.Sprintf(", %v after the results arrived", time.Since(arrived).Round(time.Millisecond))
			}
			s.trace.phase(snap.Root, "publish", time.Since(start), detail)
		}
	})
	return done
}

// diagnoseFile republishes the views showing diagnostics for path, after its
// buffer changed.
func (s *Server) diagnoseFile(path string) {
	if v := s.viewOf(path); v != nil {
		s.diagnose(v)
	}
}

// computeDiagnostics maps the snapshot's suspicious lines onto the files as
// they are now, and warns on fuzz targets whose failures share no line. A
// line whose text was edited since collection is withdrawn.
func (s *Server) computeDiagnostics(ctx context.Context, snap *snapshot.Snapshot) map[uri.URI]fileDiagnostics {
	enc := s.encoding()
	out := make(map[uri.URI]fileDiagnostics)
	for _, i := range snap.Flagged {
		if ctx.Err() != nil {
			return nil
		}
		l := snap.Ranking.Lines[i]
		f, ft, ok := s.textOf(snap, l.File)
		if !ok {
			continue
		}
		cur, ok := ft.Current(l.Line)
		if !ok {
			continue
		}
		fd := out[f.uri]
		fd.version = f.version
		fd.diags = append(fd.diags, s.diagnostic(snap, i, ft, cur, enc))
		out[f.uri] = fd
	}
	if snap.BuildErrors == "" {
		s.severalFaults(ctx, snap, out)
	}
	return out
}

type fileDiagnostics struct {
	version int32
	diags   []protocol.Diagnostic
}

// publish sends the diagnostics that changed and clears files that no
// longer have any. Passes are serialized, and a cancelled pass publishes
// nothing more; publish says whether the pass went through.
func (s *Server) publish(ctx context.Context, v *view, next map[uri.URI]fileDiagnostics) bool {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	v.mu.Lock()
	if v.diag.published == nil {
		v.diag.published = make(map[uri.URI]string)
	}
	prev := v.diag.published
	v.mu.Unlock()

	sent := make(map[uri.URI]string, len(next))
	uris := make([]uri.URI, 0, len(next))
	for u := range next {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	for _, u := range uris {
		fd := next[u]
		digest := diagnosticsDigest(fd.diags)
		sent[u] = digest
		if prev[u] == digest {
			continue
		}
		params := &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: fd.diags}
		if fd.version != 0 {
			params.Version = protocol.NewOptional(fd.version)
		}
		s.client.notify(protocol.MethodTextDocumentPublishDiagnostics, params)
	}
	for u := range prev {
		if _, ok := sent[u]; !ok {
			s.client.notify(protocol.MethodTextDocumentPublishDiagnostics,
				&protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
		}
	}
	v.mu.Lock()
	v.diag.published = sent
	v.mu.Unlock()
	return true
}

// clearDiagnostics withdraws everything a view shows, when it goes away.
func (s *Server) clearDiagnostics(v *view) {
	v.mu.Lock()
	if v.diag.cancel != nil {
		v.diag.cancel()
	}
	v.mu.Unlock()
	s.publish(context.Background(), v, nil)
}

func diagnosticsDigest(d []protocol.Diagnostic) string {
	b, err := protocol.Marshal(d)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
