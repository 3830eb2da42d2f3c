package settings

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/localize"
)

// Type is the JSON type a setting's value has as the client sends it.
type Type string

// The types of the settings' values.
const (
	String    Type = "string"
	Boolean   Type = "boolean"
	Integer   Type = "integer"
	Number    Type = "number"
	Duration  Type = "duration"  // a string Go's time.ParseDuration reads, such as "30s"
	Megabytes Type = "megabytes" // an integer count of MB
)

// A Setting is one of the server's settings: its name as the client sends
// it, its type, its allowed values, its documentation and how it sets the
// model.
type Setting struct {
	Name string
	Type Type
	// Values are the values the setting takes, when they form a list;
	// Others names what else it takes besides them ("" when nothing).
	Values []string
	Others string
	Doc    string // one paragraph, Markdown
	Model  string // the Settings field it sets, and how
	// value is the setting's value in s as the client writes it.
	value func(s Settings) any
	// set overlays the client's JSON value onto s, or says why it cannot.
	set func(s *Settings, raw json.RawMessage) error
}

// Default is the setting's default as the client writes it: a string,
// a bool, an int or a float64.
func (st Setting) Default() any { return st.value(Default()) }

// FormulaNames are the named values of the "formula" setting: every
// registered formula, then BlockRank and SAT-TAR.
func FormulaNames() []string {
	var names []string
	for _, t := range localize.Techniques() {
		names = append(names, t.Name)
	}
	return names
}

// checkFormula reports a name the "formula" setting does not take.
func checkFormula(name string) error {
	_, err := localize.ParseTechnique(name)
	return err
}

// OrderNames are the values of the "order" setting.
func OrderNames() []string { return localize.Orders }

// All returns the registry: every setting, in the order Apply takes them
// and the documentation lists them.
func All() []Setting {
	return []Setting{
		stringSetting("formula", FormulaNames(), "`dstarN` (D* with exponent N; `dstar` is `dstar2`) and `opt-NAME` (the single-fault-optimal variant of a formula bounded in [0,1])",
			func(s *Settings) *string { return &s.Formula },
			func(v string) error { return checkFormula(v) },
			"`Settings.Formula`, as given",
			"The spectrum formula that scores the lines, as `faultline rank -formula`. Names are matched ignoring case, dashes, underscores and spaces. "+
				"`blockrank` orders the lines by BlockRank over edge profiles, which runs then collect; "+
				"`sattar` orders them by SAT-TAR: Tarantula plus a bonus for the lines in the unsat cores of the failing tests' violated checks, "+
				"Tarantula's order until the cores come in (they need Z3, as the angelic analysis does). A change re-ranks what the server holds without running the tests again; "+
				"a change to `sattar` computes the cores, and, with `autoRun` on, a change to `blockrank` runs the tests to collect edge profiles."),
		countSetting("top", 1, func(s *Settings) *int { return &s.Top }, "`Settings.Top`",
			"How many suspicious lines are flagged with diagnostics and inlay hints: the first lines of the order that a failing test executes and that score above 0."),
		{Name: "threshold", Type: Number, Model: "`Settings.Threshold`",
			Doc:   "The least score a flagged line may have: lines scoring below it are not flagged. 0 sets no bound, and the first `top` lines are flagged.",
			value: func(s Settings) any { return s.Threshold },
			set: func(s *Settings, raw json.RawMessage) error {
				var v float64
				if err := json.Unmarshal(raw, &v); err != nil {
					return err
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%v is not a finite number", v)
				}
				s.Threshold = v
				return nil
			}},
		boolSetting("autoRun", func(s *Settings) *bool { return &s.AutoRun }, "`Settings.AutoRun`",
			"Collect the spectra when a module is opened and rerun the affected tests on every save (once the module's tests may run: see `trust`). "+
				"Turning it on runs the tests at once."),
		stringSetting("order", OrderNames(), "",
			func(s *Settings) *string { return &s.Order }, nil,
			"`Settings.Order`; the order shown gives way as `rank`'s default does (`Settings.ShownOrder`)",
			"How the lines are ordered, as `faultline rank -order`: `formula` (the formula alone; the angelic analysis still shows its values), "+
				"`combined` (lines hosting verified angelic fixes for more failing tests first, then the formula) or `learned` "+
				"(the model shipped in faultline reorders the formula's first twenty lines by a weighted sum of every technique's evidence). "+
				"Left at the default, the order gives way as `faultline rank`'s default does: to `combined` under another formula than ochiai, "+
				"and to `formula` without the angelic analysis (`angelic` off, or no Z3). "+
				"A change reorders what is shown without running the tests or the analysis again."),
		boolSetting("angelic", func(s *Settings) *bool { return &s.Angelic }, "`Settings.Angelic`",
			"Analyse the failing tests for angelic values (the values that would make them pass, verified by running the test with them), "+
				"as `faultline rank` does: inlay hints after the expressions they replace, the \"Preview angelic fix\" and \"Verify angelic fix\" code actions, "+
				"and the fixes' evidence in the `combined` and `learned` orders. The analysis runs in a separate process, bounded by `budget`, `maxAnalyzed` and `memory`, and needs Z3's runtime library ([cli.md](cli.md#z3)); "+
				"without it the server logs so once and shows the formula's ranking."),
		durationSetting("timeout", func(s *Settings) *time.Duration { return &s.Timeout }, "`Settings.Timeout`",
			"How long a leaf test may run before it is killed, as `faultline rank -timeout`."),
		durationSetting("budget", func(s *Settings) *time.Duration { return &s.Budget }, "`Settings.Budget`",
			"The angelic analysis's time per failing test, as `faultline rank -budget`."),
		countSetting("maxAnalyzed", 1, func(s *Settings) *int { return &s.MaxAnalyzed }, "`Settings.MaxAnalyzed`",
			"How many failing tests the angelic analysis looks at, the first in package and name order, as `faultline rank -max-analyzed`; results are cached per test."),
		megabytesSetting("memory", 1, func(s *Settings) *int64 { return &s.Memory }, "`Settings.Memory`, in bytes",
			"The memory in MB one analysis may hold before it is stopped, as `faultline rank -memory`; the solver's search stops at half of it."),
		countSetting("mutants", 0, func(s *Settings) *int { return &s.Mutants }, "`Settings.Mutants`",
			"How many mutants of the lines the failing tests run may be tried, the most suspicious lines first, with the angelic analysis (`angelic`), as `faultline rank -mutants`; 200 by default, 0 tries none. "+
				"A mutant (an operator swapped, a boundary moved, a condition negated, a constant moved by one, a boolean flipped, a statement removed) that makes every failing test "+
				"that runs its line pass and keeps every passing one passing is a verified operator fix: the hover names it and the \"Apply verified operator fix\" "+
				"code action previews it. The mutants run before the angelic analysis, within the first half of its time window (`budget`), and again each time the code they run changes (an analysis that ran every mutant is cached)."),
		megabytesSetting("testMemory", 0, func(s *Settings) *int64 { return &s.TestMemory }, "`Settings.TestMemory`, in bytes",
			"The memory in MB the processes of one test may hold before the test is stopped with the verdict `memory`, in collection and analysis alike, "+
				"as `faultline rank -test-memory`; 0 is the smaller of 4096 and half the machine's memory. Enforced on Linux."),
		countSetting("parallel", 0, func(s *Settings) *int { return &s.Parallel }, "`Settings.Parallel`",
			"How many test processes run at once, as `faultline rank -parallel`; 0 is one per CPU."),
		stringSetting("trust", []string{TrustAsk, TrustNever}, "",
			func(s *Settings) *string { return &s.Trust }, checkTrust,
			"`Settings.Trust`",
			"Whether the server may build and run a module's tests (which runs the module's code) by itself. "+
				"`ask`: once the user agrees (by answering the server's question, with `faultline trust`, or through the editor's own workspace trust). "+
				"`never`: only when asked to run, even in a trusted module. "+
				"No setting grants trust, since editors read settings from files a repository can carry: "+
				"`always` is refused, and the user is warned once."),
	}
}

// checkTrust reports a "trust" value other than TrustAsk and TrustNever;
// TrustAlways's error wraps ErrTrustFromSettings.
func checkTrust(v string) error {
	switch v {
	case TrustAsk, TrustNever:
		return nil
	case TrustAlways:
		return fmt.Errorf("%q: %w", v, ErrTrustFromSettings)
	default:
		return fmt.Errorf("%q is neither %q nor %q", v, TrustAsk, TrustNever)
	}
}

// stringSetting is a string setting that check, when not nil, accepts. A
// setting with values and no others takes only those values.
func stringSetting(name string, values []string, others string, field func(*Settings) *string, check func(string) error, model, doc string) Setting {
	return Setting{Name: name, Type: String, Values: values, Others: others, Model: model, Doc: doc,
		value: func(s Settings) any { return *field(&s) },
		set: func(s *Settings, raw json.RawMessage) error {
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			if check != nil {
				if err := check(v); err != nil {
					return err
				}
			}
			if others == "" && !slices.Contains(values, v) {
				return fmt.Errorf("%q is not one of %s", v, strings.Join(values, ", "))
			}
			*field(s) = v
			return nil
		}}
}

func boolSetting(name string, field func(*Settings) *bool, model, doc string) Setting {
	return Setting{Name: name, Type: Boolean, Model: model, Doc: doc,
		value: func(s Settings) any { return *field(&s) },
		set:   func(s *Settings, raw json.RawMessage) error { return json.Unmarshal(raw, field(s)) }}
}

// countSetting is an integer setting of at least least, 0 or 1.
func countSetting(name string, least int, field func(*Settings) *int, model, doc string) Setting {
	return Setting{Name: name, Type: Integer, Model: model, Doc: doc,
		value: func(s Settings) any { return *field(&s) },
		set: func(s *Settings, raw json.RawMessage) error {
			var v int
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			switch {
			case v < least && least > 0:
				return fmt.Errorf("%d is not a positive count", v)
			case v < least:
				return fmt.Errorf("%d is negative", v)
			}
			*field(s) = v
			return nil
		}}
}

// durationSetting is a positive duration written as Go writes one, "30s".
func durationSetting(name string, field func(*Settings) *time.Duration, model, doc string) Setting {
	return Setting{Name: name, Type: Duration, Model: model, Doc: doc,
		value: func(s Settings) any { return durationText(*field(&s)) },
		set: func(s *Settings, raw json.RawMessage) error {
			var text string
			if err := json.Unmarshal(raw, &text); err != nil {
				return err
			}
			d, err := time.ParseDuration(text)
			switch {
			case err != nil:
				return err
			case d <= 0:
				return fmt.Errorf("%s is not positive", d)
			}
			*field(s) = d
			return nil
		}}
}

// durationText writes d as users do: "60s" rather than "1m0s" for whole
// seconds.
func durationText(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// megabytesSetting is a size in MB of at least least, kept in bytes.
func megabytesSetting(name string, least int64, field func(*Settings) *int64, model, doc string) Setting {
	return Setting{Name: name, Type: Megabytes, Model: model, Doc: doc,
		value: func(s Settings) any { return *field(&s) >> 20 },
		set: func(s *Settings, raw json.RawMessage) error {
			var mb int64
			if err := json.Unmarshal(raw, &mb); err != nil {
				return err
			}
			if mb < least {
				return fmt.Errorf("%d MB is less than %d", mb, least)
			}
			*field(s) = mb << 20
			return nil
		}}
}

// Defaults are the settings' defaults as the client writes them, by name.
func Defaults() map[string]any {
	out := map[string]any{}
	for _, st := range All() {
		out[st.Name] = st.Default()
	}
	return out
}
