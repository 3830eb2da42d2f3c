package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
	// Trust is "ask" (run where the user or the client consents, else ask)
	// or "never" (run only on request). It can only lower trust: settings
	// may come from the workspace itself (see trust.go).
	Trust string
}

// DefaultSettings are used until the client says otherwise.
func DefaultSettings() Settings {
	return Settings{Formula: "ochiai", Top: 10, AutoRun: true, Timeout: 60 * time.Second, Angelic: true, Order: localize.ShippedModel().Default,
		Budget: localize.DefaultBudget, MaxAnalyzed: localize.DefaultMaxAnalyzed, Memory: localize.DefaultMemory, Trust: trustAsk}
}

// localizeOptions are the localization service's options under s: the
// same defaults as faultline rank's, so the editor and the terminal share
// cached analyses and show one order.
// Under blockrank the service ranks by the default formula: the server
// orders the lines itself (buildSnapshot), and a matrix loaded from runs
// made before has no edge profiles. Under sattar the service computes the
// unsat cores the order needs.
func (s Settings) localizeOptions() localize.Options {
	f := s.technique().Formula // nil for blockrank and sattar
	return localize.Options{Formula: f, SatTar: s.technique().SatTar(), Angelic: s.Angelic, Budget: s.Budget, MaxAnalyzed: s.MaxAnalyzed, Memory: s.Memory,
		TestMemory: s.TestMemory}
}

// order is the order the lines are shown in: the setting's, except that
// the shipped default gives way where faultline rank's default does
// (localize.DefaultOrder), so that editor and terminal agree.
func (s Settings) order() string {
	if s.Order != localize.ShippedModel().Default {
		return s.Order
	}
	o := s.localizeOptions()
	if s.technique().BlockRank() {
		o.BlockRank = &localize.BlockRankOptions{}
	}
	return localize.DefaultOrder(o)
}

// localizes reports whether the settings ask the localization service for
// anything beyond the formula: analyses, or SAT-TAR's cores.
func (s Settings) localizes() bool { return s.Angelic || s.technique().SatTar() }

// settingsSection is the configuration section the server reads.
const settingsSection = "faultline"

// apply overlays the JSON object raw onto s. It accepts the settings object
// itself or one wrapped as {"faultline": {...}}. Invalid fields are reported
// together and leave their previous values in place, so one typo does not
// reset the rest.
func (s Settings) apply(raw []byte) (Settings, error) {
	// Neovim encodes an empty settings table as [].
	if trimmed := strings.TrimSpace(string(raw)); trimmed == "" || trimmed == "null" || trimmed == "[]" {
		return s, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return s, fmt.Errorf("settings must be a JSON object: %w", err)
	}
	if inner, ok := fields[settingsSection]; ok {
		return s.apply(inner)
	}
	var errs []error
	field := func(name string, target any) bool {
		v, ok := fields[name]
		if !ok || string(v) == "null" {
			return false
		}
		if err := json.Unmarshal(v, target); err != nil {
			errs = append(errs, fmt.Errorf("setting %q: %w", name, err))
			return false
		}
		return true
	}
	var formula string
	if field("formula", &formula) {
		if _, err := localize.ParseTechnique(formula); err != nil {
			errs = append(errs, fmt.Errorf("setting \"formula\": %w", err))
		} else {
			s.Formula = formula
		}
	}
	var top int
	if field("top", &top) {
		if top < 1 {
			errs = append(errs, fmt.Errorf("setting \"top\": %d is not a positive count", top))
		} else {
			s.Top = top
		}
	}
	var threshold float64
	if field("threshold", &threshold) {
		if math.IsNaN(threshold) || math.IsInf(threshold, 0) {
			errs = append(errs, fmt.Errorf("setting \"threshold\": %v is not a finite number", threshold))
		} else {
			s.Threshold = threshold
		}
	}
	field("autoRun", &s.AutoRun)
	var order string
	if field("order", &order) {
		if err := localize.CheckOrder(order); err != nil || order == "" {
			errs = append(errs, fmt.Errorf("setting \"order\": %q is not one of %s", order, strings.Join(localize.Orders, ", ")))
		} else {
			s.Order = order
		}
	}
	field("angelic", &s.Angelic)
	// duration sets *target from a setting that must be a positive
	// duration such as "30s".
	duration := func(name string, target *time.Duration) {
		var text string
		if !field(name, &text) {
			return
		}
		d, err := time.ParseDuration(text)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("setting %q: %w", name, err))
		case d <= 0:
			errs = append(errs, fmt.Errorf("setting %q: %s is not positive", name, d))
		default:
			*target = d
		}
	}
	duration("timeout", &s.Timeout)
	duration("budget", &s.Budget)
	var maxAnalyzed int
	if field("maxAnalyzed", &maxAnalyzed) {
		if maxAnalyzed < 1 {
			errs = append(errs, fmt.Errorf("setting \"maxAnalyzed\": %d is not a positive count", maxAnalyzed))
		} else {
			s.MaxAnalyzed = maxAnalyzed
		}
	}
	// megabytes sets *target, in bytes, from a setting in MB of at least
	// least.
	megabytes := func(name string, target *int64, least int64) {
		var mb int64
		if !field(name, &mb) {
			return
		}
		if mb < least {
			errs = append(errs, fmt.Errorf("setting %q: %d MB is less than %d", name, mb, least))
			return
		}
		*target = mb << 20
	}
	megabytes("memory", &s.Memory, 1)
	megabytes("testMemory", &s.TestMemory, 0)
	var parallel int
	if field("parallel", &parallel) {
		if parallel < 0 {
			errs = append(errs, fmt.Errorf("setting \"parallel\": %d is negative", parallel))
		} else {
			s.Parallel = parallel
		}
	}
	var trustSetting string
	if field("trust", &trustSetting) {
		switch trustSetting {
		case trustAsk, trustNever:
			s.Trust = trustSetting
		case trustAlways:
			errs = append(errs, fmt.Errorf("setting \"trust\": %q: %w", trustSetting, errTrustFromSettings))
		default:
			errs = append(errs, fmt.Errorf("setting \"trust\": %q is neither %q nor %q", trustSetting, trustAsk, trustNever))
		}
	}
	return s, errors.Join(errs...)
}
