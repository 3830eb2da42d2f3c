package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline-go/faultline/internal/localize"

	"github.com/faultline-go/faultline/bench/internal/gocmd"
	"github.com/faultline-go/faultline/bench/internal/realfault"
)

// runAugment writes copies of eval's rankings whose lines carry the
// evidence columns faultline computes from source alone, computed by the
// same function rank calls, so that train learns from what the product
// would give without running any test again: today the failing tests'
// identity (localize.IdentityEvidence) and, given the projects' histories,
// the lines' change history as the faulty version's parent commit has it
// (localize.HistoryEvidence).
func runAugment(args []string) error {
	fs, benchPath, work := rankingsFlagSet("augment", "eval's directory (rankings under work/eval), only read")
	out := fs.String("out", "", "directory to write the augmented copies under (out/eval/<fault>; src is linked, not copied)")
	mirrors := fs.String("mirrors", "", "directory holding the projects' git histories (owner+name/repo, owner+name.git or owner+name), for the history columns (empty: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("augment: -out is required")
	}
	if abs, err := filepath.Abs(*out); err == nil {
		if w, err := filepath.Abs(*work); err == nil && w == abs {
			return fmt.Errorf("augment: -out must not be -work: eval's rankings are kept as they are")
		}
	}
	b, err := realfault.LoadBenchmark(*benchPath)
	if err != nil {
		return err
	}
	done, skipped := 0, 0
	for _, f := range b.Faults {
		history := ""
		if *mirrors != "" {
			g, err := realfault.FindGitDir(*mirrors, f.Repo)
			if err != nil {
				return fmt.Errorf("%s: %w", f.ID, err)
			}
			history = g.Dir
		}
		ok, err := augmentFault(f, filepath.Join(*work, "eval", f.ID), filepath.Join(*out, "eval", f.ID), history)
		if err != nil {
			return fmt.Errorf("%s: %w", f.ID, err)
		}
		if ok {
			done++
		} else {
			skipped++
		}
	}
	fmt.Fprintf(os.Stderr, "augment: %d rankings augmented under %s, %d faults without a usable ranking or source\n", done, *out, skipped)
	return nil
}

// augmentFault writes one fault's augmented copy; ok is false when the
// fault has no ranking or source to augment (not evaluated yet, or its
// run failed), which is no error. history is the project's git directory,
// empty for no history columns.
func augmentFault(f realfault.Fault, from, to, history string) (ok bool, err error) {
	meta, err := os.ReadFile(filepath.Join(from, "meta.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	// The run's record is copied whatever it holds, so that a failed run
	// counts as one in the copies too.
	if err := os.MkdirAll(to, 0o755); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(to, "meta.json"), meta, 0o644); err != nil {
		return false, err
	}
	src, err := filepath.Abs(filepath.Join(from, "src"))
	if err != nil {
		return false, err
	}
	if src, err = filepath.EvalSymlinks(src); err != nil {
		return false, nil // no source kept
	}
	data, err := os.ReadFile(filepath.Join(from, "evidence.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	augmented, err := augmentReport(data, src, f.Failing, history, f.Parent)
	if err != nil {
		return false, err
	}
	if augmented != nil {
		data, ok = augmented, true
	}
	if err := os.WriteFile(filepath.Join(to, "evidence.json"), data, 0o644); err != nil {
		return false, err
	}
	link := filepath.Join(to, "src")
	if err := os.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return ok, os.Symlink(src, link)
}

// augmentReport adds the identity columns (and, with a history, the
// history columns as commit parent has them) to every line of a faultline
// rank -json output, keeping every other field as it is; nil when the
// output has no lines or does not decode. The failing tests are the ranking's own (those the
// angelic analysis lists, when it lists every failing test), else the
// benchmark's.
func augmentReport(data []byte, src string, benchFailing []gocmd.TestID, history, parent string) ([]byte, error) {
	// An output that does not decode is no ranking, as train reads it.
	var raw map[string]json.RawMessage
	var report localize.RankReport
	if json.Unmarshal(data, &raw) != nil || json.Unmarshal(data, &report) != nil || len(report.Lines) == 0 {
		return nil, nil
	}
	var lines []map[string]any
	if err := json.Unmarshal(raw["lines"], &lines); err != nil {
		return nil, err
	}
	var angelic struct {
		Tests []struct {
			Test    string `json:"test"`
			Package string `json:"package"`
		} `json:"tests"`
	}
	if a, ok := raw["angelic"]; ok {
		if err := json.Unmarshal(a, &angelic); err != nil {
			return nil, err
		}
	}
	var failing []localize.FailingTest
	if len(angelic.Tests) == report.Failed {
		for _, t := range angelic.Tests {
			failing = append(failing, localize.FailingTest{Package: t.Package, Name: t.Test})
		}
	} else {
		for _, t := range benchFailing {
			failing = append(failing, localize.FailingTest{Package: t.Package, Name: t.Test})
		}
	}
	ev, err := localize.IdentityEvidence(src, failing, report.Lines)
	if err != nil {
		return nil, err
	}
	added := []string{"identity."}
	if history != "" {
		h, err := localize.HistoryEvidence(context.Background(), history, parent, report.Lines)
		if err != nil {
			return nil, err
		}
		maps.Copy(ev.Columns, h.Columns)
		added = append(added, "history.")
	}
	for i, l := range lines {
		e, _ := l["evidence"].(map[string]any)
		if e == nil {
			e = map[string]any{}
		}
		for name := range e {
			for _, p := range added {
				if strings.HasPrefix(name, p) {
					delete(e, name)
				}
			}
		}
		for name, c := range ev.Columns {
			if c[i] != 0 {
				e[name] = c[i]
			}
		}
		l["evidence"] = e
	}
	if raw["lines"], err = json.Marshal(lines); err != nil {
		return nil, err
	}
	return json.Marshal(raw)
}
