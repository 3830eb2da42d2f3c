package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/faultline-go/faultline/bench/internal/mutation"
)

// Subject is a prepared module, with the known fault a local directory
// may carry.
type Subject struct {
	*mutation.Subject
	Fault    *Fault // a known fault from fault.json, for local directories carrying one
	FaultDoc string // its description
}

// Prepare makes the subject's working copy (mutation.Prepare); a local
// directory with a fault.json keeps its failing packages and is scored on
// that fault.
func Prepare(ctx context.Context, spec mutation.SubjectSpec, work string, testTimeout time.Duration) (*Subject, error) {
	s := &Subject{}
	if spec.Dir != "" {
		var err error
		if s.Fault, s.FaultDoc, err = readFaultFile(spec.Dir); err != nil {
			return nil, err
		}
	}
	prepared, err := mutation.Prepare(ctx, spec, work, testTimeout, s.Fault != nil)
	if err != nil {
		return nil, err
	}
	s.Subject = prepared
	return s, nil
}

// faultFile is the format of an example's fault.json.
type faultFile struct {
	File        string `json:"file"`
	Line        int    `json:"line"`
	Description string `json:"description"`
}

// readFaultFile reads dir/fault.json if it exists.
func readFaultFile(dir string) (*Fault, string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "fault.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read fault.json: %w", err)
	}
	var ff faultFile
	if err := json.Unmarshal(data, &ff); err != nil {
		return nil, "", fmt.Errorf("parse %s: %w", filepath.Join(dir, "fault.json"), err)
	}
	if ff.File == "" || ff.Line <= 0 {
		return nil, "", fmt.Errorf("%s: needs a file and a positive line", filepath.Join(dir, "fault.json"))
	}
	return &Fault{File: filepath.ToSlash(ff.File), Lines: []int{ff.Line}}, ff.Description, nil
}
