package server

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"

	"github.com/faultline-go/faultline/internal/settings"
	"github.com/faultline-go/faultline/internal/snapshot"
)

// Settings are the user's choices; internal/settings owns the model and
// this file the protocol that carries them.
type Settings = settings.Settings

// didChangeConfiguration takes settings pushed by the client, or pulls them
// when the client only signals a change (settings null), as VS Code does.
func didChangeConfiguration(ctx context.Context, s *Server, p *protocol.DidChangeConfigurationParams) error {
	if len(p.Settings) == 0 || string(p.Settings) == "null" {
		s.spawn("reading the settings", func() { s.pullSettings(s.ctx) })
		return nil
	}
	s.reportSettings("workspace/didChangeConfiguration", s.setSettings(p.Settings))
	return nil
}

// pullSettings asks the client for the "faultline" section, when it
// supports workspace/configuration. It must not run on the read loop.
func (s *Server) pullSettings(ctx context.Context) {
	s.mu.Lock()
	supported := s.caps.configuration
	s.mu.Unlock()
	if !supported {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	section := settings.Section
	var result []protocol.LSPAny
	err := s.client.call(ctx, protocol.MethodWorkspaceConfiguration,
		&protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}}, &result)
	if err != nil {
		s.client.logf(protocol.MessageTypeWarning, "reading settings: %v", err)
		return
	}
	if len(result) == 0 {
		return
	}
	s.reportSettings("workspace/configuration", s.setSettings(result[0]))
}

// setSettings applies new settings and brings every view in line with them:
// a new formula, order or cut-off re-ranks what the view holds (results and
// analyses are kept: nothing is run again), turning automatic runs on runs
// now.
func (s *Server) setSettings(raw []byte) error {
	s.mu.Lock()
	old := s.settings
	next, err := old.Apply(raw)
	s.settings = next
	s.mu.Unlock()
	if next != old {
		for _, v := range s.allViews() {
			if next.Formula != old.Formula || next.Top != old.Top || next.Threshold != old.Threshold || next.Angelic != old.Angelic || next.Order != old.Order {
				v.rebuild()
			}
			// SAT-TAR needs cores, and analyses that were off are wanted.
			if next.Localizes() && (!old.Localizes() || next.Technique().SatTar() != old.Technique().SatTar()) {
				v.localize()
			}
			// BlockRank needs edge profiles, which a run collects.
			if next.AutoRun && (!old.AutoRun || next.Technique().BlockRank() && !old.Technique().BlockRank()) {
				v.runNow()
			}
		}
	}
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	return nil
}

// choicesOf are what a snapshot reads of the settings.
func choicesOf(s Settings) snapshot.Choices {
	return snapshot.Choices{Formula: s.Formula, Top: s.Top, Threshold: s.Threshold, Angelic: s.Angelic, Order: s.Order, ShownOrder: s.ShownOrder(), Localize: s.LocalizeOptions()}
}
