// Package sarif writes a localization as a SARIF 2.1.0 log, the format
// GitHub code scanning and other result viewers read: one result per
// ranked line, with its rank, score, tie range and spectrum counts in the
// result's properties, each verified angelic value as a fix, a fingerprint
// that follows the line's text rather than its number, and URIs relative
// to %SRCROOT%.
package sarif

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/faultline-go/faultline/analysis"
	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/export"
	"github.com/faultline-go/faultline/internal/localize"
)

// RuleID is the one rule every result reports.
const RuleID = "faultline/suspicious-line"

// SourceRoot is the base id every artifact URI is relative to.
const SourceRoot = "%SRCROOT%"

// FingerprintKey names faultline's partial fingerprint of a result.
const FingerprintKey = "faultlineLineHash/v1"

// Options shape the log.
type Options struct {
	// Top limits the results to the Top most suspicious lines; 0 keeps all.
	Top int
	// SourceRoot is the directory %SRCROOT% stands for, to which the URIs
	// are relative; empty means the repository root above the module (the
	// nearest directory holding .git), or the module root outside one.
	SourceRoot string
}

// Write writes the log of one localization. A ranking without failing
// tests gives a valid log without results.
func Write(w io.Writer, loc *localize.Localization, opts Options) error {
	report, results, err := build(loc, opts)
	if err != nil {
		return err
	}
	head, err := json.Marshal(report)
	if err != nil {
		return fmt.Errorf("encoding SARIF: %w", err)
	}
	head = prune(head)
	// The run's results, empty in the library's log, are spliced in.
	const empty = `"results":[]`
	at := bytes.Index(head, []byte(empty))
	if at < 0 {
		bug.Reportf("SARIF run without a results member: %.200s", head)
		return fmt.Errorf("encoding SARIF: the run has no results member")
	}
	at += len(empty) - 1
	var buf bytes.Buffer
	buf.Grow(len(head) + 700*len(results))
	buf.Write(head[:at])
	enc := json.NewEncoder(&buf)
	for i := range results {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(&results[i]); err != nil {
			return fmt.Errorf("encoding SARIF: %w", err)
		}
		buf.Truncate(buf.Len() - 1) // the encoder's newline
	}
	buf.Write(head[at:])
	data := buf.Bytes()
	if len(data) < 1<<20 { // indented for people while small
		var indented bytes.Buffer
		if err := json.Indent(&indented, data, "", "  "); err != nil {
			return fmt.Errorf("encoding SARIF: %w", err)
		}
		data = indented.Bytes()
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("writing SARIF: %w", err)
	}
	return nil
}

// unset are the members for which the library writes -1, SARIF's value
// for "not set", where the format asks to leave them out.
var unset = map[string]bool{"index": true, "byteOffset": true, "charOffset": true}

// prune drops from compact JSON what the library writes for absent values:
// the -1 of unset indices and offsets, and empty arrays (but "results",
// whose absence would mean that the tool did not say). It works on the
// bytes because a decoded tree of a large log costs seconds.
func prune(data []byte) []byte {
	out := make([]byte, 0, len(data))
	var stack []byte // '{' or '[' of the open containers
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			end := stringEnd(data, i)
			if len(stack) > 0 && stack[len(stack)-1] == '{' && (out[len(out)-1] == '{' || out[len(out)-1] == ',') {
				// A member's key: drop the member when its value is absent.
				key := string(data[i+1 : end-1])
				value := data[end+1:] // after the colon
				n := 0
				switch {
				case unset[key] && bytes.HasPrefix(value, []byte("-1")) && len(value) > 2 && (value[2] == ',' || value[2] == '}'):
					n = 2
				case key != "results" && bytes.HasPrefix(value, []byte("[]")):
					n = 2
				}
				if n > 0 {
					i = end + 1 + n
					if data[i] == ',' {
						i++ // the member's comma goes with it
					} else if out[len(out)-1] == ',' {
						out = out[:len(out)-1] // the last member: the comma before it goes
					}
					continue
				}
			}
			out = append(out, data[i:end]...)
			i = end
			continue
		case c == '{' || c == '[':
			stack = append(stack, c)
		case c == '}' || c == ']':
			stack = stack[:len(stack)-1]
		}
		out = append(out, c)
		i++
	}
	return out
}

// stringEnd returns the index after the JSON string that starts at i.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

// build returns the log of one localization without its results, and
// the results.
func build(loc *localize.Localization, opts Options) (*sarif.Report, []result, error) {
	root := opts.SourceRoot
	if root == "" {
		root = repositoryRoot(loc.Matrix.Root)
	}
	prefix, err := filepath.Rel(root, loc.Matrix.Root)
	if err != nil || strings.HasPrefix(prefix, "..") {
		return nil, nil, fmt.Errorf("the module %s is not below the source root %s", loc.Matrix.Root, root)
	}
	b := &builder{loc: loc, sources: loc.Sources(), prefix: filepath.ToSlash(prefix), fps: map[string][]string{}}

	run := sarif.NewRun()
	run.Tool = sarif.NewTool()
	run.Tool.Driver = driver()
	run.WithColumnKind("unicodeCodePoints")
	rootURI := (&url.URL{Scheme: "file", Path: filepath.ToSlash(root) + "/"}).String()
	run.WithOriginalUriBaseIds(map[string]sarif.ArtifactLocation{
		SourceRoot: *sarif.NewArtifactLocation().WithURI(rootURI).
			WithDescription(sarif.NewTextMessage("The directory the artifact URIs are relative to: the repository holding the module.")),
	})
	r := loc.Ranking
	props := sarif.NewPropertyBag().Add("formula", r.Formula).Add("order", r.Order).Add("failed", r.Failed).Add("passed", r.Passed)
	if a := loc.Angelic; a != nil {
		props.Add("angelicAnalyzed", a.Analyzed).Add("angelicFailing", a.Failing).Add("verifiedFixes", len(a.Fixes))
	}
	run.Properties = props
	inv := sarif.NewInvocation()
	inv.ExecutionSuccessful = ptr(true)
	if a := loc.Angelic; a != nil {
		for _, n := range a.Notes {
			note := sarif.NewNotification()
			note.Level = "note"
			note.Message = sarif.NewTextMessage(n)
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, note)
		}
	}
	run.AddInvocation(inv)

	var results []result
	if r.Failed > 0 {
		lines := r.Lines
		if opts.Top > 0 && len(lines) > opts.Top {
			lines = lines[:opts.Top]
		}
		results = make([]result, len(lines))
		for i, l := range lines {
			results[i] = b.result(l)
		}
	}
	report := sarif.NewReport()
	report.Schema = "https://json.schemastore.org/sarif-2.1.0.json"
	report.AddRun(run)
	return report, results, nil
}

func driver() *sarif.ToolComponent {
	d := sarif.NewToolComponent()
	d.Name = ptr("faultline")
	d.FullName = ptr("faultline fault localization for Go")
	// SARIF viewers compare versions that start with a number.
	v := strings.TrimPrefix(export.Version(), "v")
	if v == "devel" {
		v = "0.0.0-devel"
	}
	d.Version = &v
	d.Language = "en-US"
	rule := sarif.NewRule(RuleID)
	rule.Name = ptr("SuspiciousLine")
	rule.ShortDescription = text("A line the failing tests execute, ranked by how likely it causes them.")
	rule.FullDescription = text("faultline ran the module's tests with per-test coverage and ranked every executed line by a " +
		"spectrum formula (how many failing and passing tests execute it); lines hosting a verified angelic fix, a value " +
		"that made a failing test pass when forced, come first. A result is a place to look, not a proven defect.")
	rule.Help = &sarif.MultiformatMessageString{
		Text: ptr("Start with the lowest rank. Lines of one basic block always tie; the tie range says which ranks share a score. " +
			"A fix on a result is the angelic value that made the named failing test pass in a verified run: it shows what the " +
			"expression should have produced, not necessarily the right change. Reproduce with `faultline rank` in the module."),
	}
	cfg := sarif.NewReportingConfiguration()
	cfg.Level = "warning"
	rule.DefaultConfiguration = cfg
	rule.Properties = sarif.NewPropertyBag().AddTag("fault-localization").AddTag("testing")
	d.AddRule(rule)
	return d
}

type builder struct {
	loc     *localize.Localization
	sources *export.Sources
	prefix  string              // the module root relative to the source root, "." at it
	fps     map[string][]string // fingerprints by file and line
}

// uri is a module-relative file as a URI relative to the source root.
func (b *builder) uri(file string) string {
	p := file
	if b.prefix != "." && b.prefix != "" {
		p = b.prefix + "/" + file
	}
	return (&url.URL{Path: p}).EscapedPath()
}

func (b *builder) artifact(file string) artifactLocation {
	return artifactLocation{URI: b.uri(file), URIBaseID: SourceRoot}
}

func (b *builder) result(l localize.RankedLine) result {
	r := b.loc.Ranking
	src := b.sources.File(l.File)
	reg := region{StartLine: l.Line}
	if text := src.Line(l.Line); text != nil {
		reg.Snippet = &message{Text: string(text)}
	}
	res := result{
		RuleID: RuleID,
		Level:  "warning",
		Kind:   "fail",
		// SARIF's rank is a priority in [0, 100], higher first; tied lines share it.
		Rank:                float64(int(10000*float64(len(r.Lines)-l.Tie[0]+1)/float64(len(r.Lines)))) / 100,
		Message:             message{Text: b.message(l)},
		Locations:           []location{{PhysicalLocation: physicalLocation{ArtifactLocation: b.artifact(l.File), Region: reg}}},
		PartialFingerprints: partialFingerprints{LineHash: b.fingerprint(src, l.File, l.Line)},
		Properties: resultProps{
			Rank: l.Rank, Score: l.Score, Formula: r.Formula, Order: r.Order, Tie: l.Tie,
			EF: l.EF, EP: l.EP, NF: l.NF, NP: l.NP, VerifiedFixes: l.Fixes, Function: src.Func(l.Line),
		},
	}
	for _, f := range b.loc.FixesAt(l.File, l.Line) {
		res.Fixes = append(res.Fixes, b.fix(f))
	}
	for _, f := range b.loc.OperatorFixesAt(l.File, l.Line) {
		res.Fixes = append(res.Fixes, b.operatorFix(f))
	}
	return res
}

// operatorFixText is a verified operator fix as its edited line: "ops.go:5
// return a / b (* → /, verified by the mutant's runs)", or for a removed
// statement "ops.go:5 (the statement removed, ...)".
func operatorFixText(f localize.OperatorFix) string {
	if f.Removes() {
		return fmt.Sprintf("%s:%d  (the statement removed, verified by the mutant's test runs)", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d  %s  (%s, verified by the mutant's test runs)", f.File, f.Line, f.Edited, f.Change)
}

// operatorFix is a verified operator fix as a replacement of its line's
// text after the indentation; a removed statement deletes its whole line.
func (b *builder) operatorFix(f localize.OperatorFix) fix {
	src := b.sources.File(f.File)
	line := src.Line(f.Line)
	indent := len(line) - len(bytes.TrimLeft(line, " \t"))
	deleted := region{StartLine: f.Line, StartColumn: column(line, indent+1), EndLine: f.Line, EndColumn: column(line, len(line)+1)}
	if f.Removes() && f.Line < len(src.Lines) {
		deleted = region{StartLine: f.Line, StartColumn: 1, EndLine: f.Line + 1, EndColumn: 1}
	}
	return fix{
		Description: message{Text: operatorFixText(f) + "."},
		ArtifactChanges: []artifactChange{{
			ArtifactLocation: b.artifact(f.File),
			Replacements:     []replacement{{DeletedRegion: deleted, InsertedContent: message{Text: f.Edited}}},
		}},
		Properties: fixProps{Operator: f.Operator, Change: f.Change},
	}
}

func (b *builder) message(l localize.RankedLine) string {
	r := b.loc.Ranking
	by := r.Formula
	if r.Order == localize.OrderCombined {
		by += " and verified angelic fixes"
	}
	var m strings.Builder
	fmt.Fprintf(&m, "Suspicious line, rank %d of %d by %s (score %.4f", l.Rank, len(r.Lines), by, l.Score)
	if l.Tie[0] != l.Tie[1] {
		fmt.Fprintf(&m, ", tied at ranks %d-%d", l.Tie[0], l.Tie[1])
	}
	fmt.Fprintf(&m, "): executed by %d of %d failing and %d of %d passing tests.", l.EF, l.EF+l.NF, l.EP, l.EP+l.NP)
	for _, f := range b.loc.FixesAt(l.File, l.Line) {
		fmt.Fprintf(&m, " Fix: %s.", b.fixText(f))
	}
	for _, f := range b.loc.OperatorFixesAt(l.File, l.Line) {
		fmt.Fprintf(&m, " Operator fix: %s.", operatorFixText(f))
	}
	return m.String()
}

// fixText is a verified fix as an edit of its source line and what it
// does: "price.go:9  if total > 100 {  →  if true {  makes TestX pass
// (verified by a forced run)".
func (b *builder) fixText(f localize.Fix) string {
	edit := analysis.Edits([]analysis.Location{f.Location}, b.sources.Lines)[0]
	return fmt.Sprintf("%s  %s (verified by a forced run)", edit, analysis.Effect(f.Test, f.Avoids))
}

// fix is a verified angelic value as a replacement of the lines it edits
// by those lines with the value written over the expression; of the
// expression's text alone when the source no longer holds it.
func (b *builder) fix(f localize.Fix) fix {
	src := b.sources.File(f.File)
	deleted := region{
		StartLine: f.Line, StartColumn: column(src.Line(f.Line), f.Col),
		EndLine: f.EndLine, EndColumn: column(src.Line(f.EndLine), f.EndCol),
	}
	inserted := f.Angelic
	if edit := analysis.Edits([]analysis.Location{f.Location}, b.sources.Lines)[0]; edit.InSource {
		deleted = region{StartLine: edit.Line, StartColumn: 1, EndLine: edit.EndLine, EndColumn: column(src.Line(edit.EndLine), len(src.Line(edit.EndLine))+1)}
		inserted = edit.Edited
	}
	return fix{
		Description: message{Text: b.fixText(f) + "."},
		ArtifactChanges: []artifactChange{{
			ArtifactLocation: b.artifact(f.File),
			Replacements:     []replacement{{DeletedRegion: deleted, InsertedContent: message{Text: inserted}}},
		}},
		Properties: fixProps{Test: f.Test, Package: f.Package, Expression: f.Expr, Original: f.Original, Angelic: f.Angelic, AvoidsCheck: f.Avoids},
	}
}

// column turns a 1-based byte column of a line into SARIF's 1-based
// Unicode code point column.
func column(line []byte, byteCol int) int {
	if byteCol < 1 {
		return 1
	}
	if n := byteCol - 1; n <= len(line) {
		return utf8.RuneCount(line[:n]) + 1
	}
	return utf8.RuneCount(line) + 1 + byteCol - 1 - len(line)
}

// fingerprints identify the lines of a file by the file, the function,
// the line's text with white space collapsed and which occurrence of that
// text in the function it is: moving a line by edits above it keeps its
// fingerprint, editing the line itself changes it. Indexed by line.
func fingerprints(src *export.SourceFile, file string) []string {
	out := make([]string, len(src.Lines)+1)
	seen := map[[2]string]int{}
	for n := 1; n <= len(src.Lines); n++ {
		fn, text := src.Func(n), normalize(src.Line(n))
		k := [2]string{fn, text}
		occurrence := seen[k]
		seen[k]++
		sum := sha256.Sum256([]byte(file + "\x00" + fn + "\x00" + text))
		out[n] = hex.EncodeToString(sum[:16]) + ":" + strconv.Itoa(occurrence)
	}
	return out
}

// fingerprint is the fingerprint of a line, or of its number alone when
// the source cannot be read.
func (b *builder) fingerprint(src *export.SourceFile, file string, line int) string {
	fps, ok := b.fps[file]
	if !ok {
		fps = fingerprints(src, file)
		b.fps[file] = fps
	}
	if line < len(fps) {
		return fps[line]
	}
	sum := sha256.Sum256([]byte(file + "\x00" + strconv.Itoa(line)))
	return hex.EncodeToString(sum[:16]) + ":0"
}

func normalize(line []byte) string {
	return strings.Join(strings.Fields(string(line)), " ")
}

// repositoryRoot is the nearest directory at or above dir that holds .git,
// or dir itself.
func repositoryRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

func ptr[T any](v T) *T { return &v }

func text(s string) *sarif.MultiformatMessageString {
	return &sarif.MultiformatMessageString{Text: &s}
}
