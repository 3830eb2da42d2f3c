package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// Settings are the user's choices, read from initializationOptions,
// workspace/configuration (section "faultline") and
// workspace/didChangeConfiguration.
type Settings struct {
	Formula   string        // spectrum formula, a name localize.ParseTechnique accepts
	Top       int           // how many suspicious lines to show
	Threshold float64       // minimum score to show a line; 0 shows the top N
	AutoRun   bool          // collect on start and on save
	Timeout   time.Duration // per leaf test
	Parallel  int           // test processes at once; 0 lets the engine decide
	Angelic   bool          // analyse failing tests: angelic values, and fixes first under the combined order
	// Order is how the lines are ordered, as faultline rank's -order:
	// "combined" (lines hosting verified angelic fixes first, then the
	// formula), "formula" or "learned" (the shipped model over every
	// technique's evidence).
	Order string
	// TestMemory bounds the resident memory of each test process tree, in
	// bytes, in collection and analysis alike, as faultline rank's
	// -test-memory does; 0 is the engine's default.
	TestMemory int64
	// Budget, MaxAnalyzed and Memory bound the angelic analysis as
	// faultline rank's -budget, -max-analyzed and -memory do.
	Budget      time.Duration
	MaxAnalyzed int
	Memory      int64 // bytes
	// Mutants, when positive, runs at most this many mutants of the lines
	// the failing tests run, with the angelic analysis, as faultline rank's
	// -mutants does: the verified operator fixes and the mutants' evidence.
	Mutants int
	// Trust is TrustAsk or TrustNever. It can only lower trust: settings
	// may come from the workspace itself (ErrTrustFromSettings).
	Trust string
}

// Values of the "trust" setting.
const (
	TrustAsk   = "ask"   // run where the user, the trust list or the client consents, else ask
	TrustNever = "never" // run only what the user asks for explicitly, and ask nothing
	// TrustAlways is the value settings used to grant trust with. It is
	// refused (ErrTrustFromSettings): a repository can supply settings.
	TrustAlways = "always"
)

// ErrTrustFromSettings is the error of a "trust" setting that would grant
// trust.
var ErrTrustFromSettings = errors.New("trust is not taken from settings, which a repository's own files can supply: " +
	"trust a module with `faultline trust DIR` or by answering the server's question")

// Default returns the settings used until the client says otherwise.
func Default() Settings {
	return Settings{Formula: localize.DefaultFormula().Name(), Top: 10, AutoRun: true, Timeout: 60 * time.Second, Angelic: true, Order: localize.ShippedModel().Default,
		Budget: localize.DefaultBudget, MaxAnalyzed: localize.DefaultMaxAnalyzed, Memory: localize.DefaultMemory, Mutants: localize.DefaultMutants, Trust: TrustAsk}
}

// LocalizeOptions are the localization service's options under s: the
// same defaults as faultline rank's, so the editor and the terminal share
// cached analyses and show one order.
// Under blockrank the service ranks by the default formula: the server
// orders the lines itself, and a matrix loaded from runs made before has
// no edge profiles. Under sattar the service computes the unsat cores the
// order needs.
func (s Settings) LocalizeOptions() localize.Options {
	f := s.Technique().Formula // nil for blockrank and sattar
	return localize.Options{Formula: f, SatTar: s.Technique().SatTar(), Angelic: s.Angelic, Budget: s.Budget, MaxAnalyzed: s.MaxAnalyzed, Memory: s.Memory,
		TestMemory: s.TestMemory, Mutants: s.Mutants}
}

// ShownOrder is the order the lines are shown in: the setting's, except
// that the shipped default gives way where faultline rank's default does
// (localize.DefaultOrder), so that editor and terminal agree.
func (s Settings) ShownOrder() string {
	if s.Order != localize.ShippedModel().Default {
		return s.Order
	}
	o := s.LocalizeOptions()
	if s.Technique().BlockRank() {
		o.BlockRank = &localize.BlockRankOptions{}
	}
	return localize.DefaultOrder(o)
}

// Localizes reports whether the settings ask the localization service for
// anything beyond the formula: the analyses (angelic fixes and mutants) or
// SAT-TAR's cores.
func (s Settings) Localizes() bool { return s.Angelic || s.Technique().SatTar() }

// Technique is the ranking technique the formula setting names, checked
// when the setting was taken (the default formula should it not parse).
func (s Settings) Technique() localize.Technique {
	t, err := localize.ParseTechnique(s.Formula)
	if err != nil {
		return localize.Techniques()[0]
	}
	return t
}

// Section is the configuration section the settings live in.
const Section = "faultline"

// Apply overlays the JSON object raw onto s, setting by setting in the
// registry's order. It accepts the settings object itself or one wrapped as
// {"faultline": {...}}. Invalid fields are reported together and leave
// their previous values in place, so one typo does not reset the rest;
// unknown fields are ignored, as clients send other tools' settings too.
func (s Settings) Apply(raw []byte) (Settings, error) {
	// Neovim encodes an empty settings table as [].
	if trimmed := strings.TrimSpace(string(raw)); trimmed == "" || trimmed == "null" || trimmed == "[]" {
		return s, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return s, fmt.Errorf("settings must be a JSON object: %w", err)
	}
	if inner, ok := fields[Section]; ok {
		return s.Apply(inner)
	}
	var errs []error
	for _, setting := range All() {
		v, ok := fields[setting.Name]
		if !ok || string(v) == "null" {
			continue
		}
		if err := setting.set(&s, v); err != nil {
			errs = append(errs, fmt.Errorf("setting %q: %w", setting.Name, err))
		}
	}
	return s, errors.Join(errs...)
}
