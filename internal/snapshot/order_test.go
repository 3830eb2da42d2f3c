package snapshot

import (
	"testing"

	"github.com/faultline-go/faultline/internal/localize"
)

// TestEvidenceCacheKeepsOnlyTheCurrentMatrix: once the view takes a new
// matrix, the evidence over the one it showed is dropped, and evidence over
// it that a rebuild still under way puts later is not kept: either would
// hold the old matrix alive beside the new one.
func TestEvidenceCacheKeepsOnlyTheCurrentMatrix(t *testing.T) {
	var c EvidenceCache
	old, cur := &localize.Matrix{}, &localize.Matrix{}
	oldKey, curKey := evidenceKey{matrix: old}, evidenceKey{matrix: cur}
	c.put(oldKey, &localize.Evidence{})
	c.Keep(cur)
	if c.get(oldKey) != nil {
		t.Error("the evidence over the matrix shown before is kept after Keep")
	}
	c.put(oldKey, &localize.Evidence{})
	if c.get(oldKey) != nil || len(c.entries) != 0 {
		t.Errorf("evidence over the matrix shown before, put after Keep, is kept (%d entries)", len(c.entries))
	}
	ev := &localize.Evidence{}
	c.put(curKey, ev)
	if c.get(curKey) != ev {
		t.Error("the evidence over the current matrix is not kept")
	}
}
