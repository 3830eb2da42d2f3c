package snapshot

import "testing"

// A line inserted above a collected line moves it down; the inserted
// line shows nothing collected, and an unchanged text maps line to line.
func TestMappedText(t *testing.T) {
	ft := MappedText([]byte("a\nb\r\nc\n"), []byte("a\nnew\nb\nc"))
	if i, ok := ft.Current(2); !ok || i != 2 {
		t.Errorf("collected line 2 is at index %d, %v; want 2", i, ok)
	}
	if n, ok := ft.Collected(1); ok {
		t.Errorf("the inserted line shows collected line %d", n)
	}
	if n, ok := ft.Collected(3); !ok || n != 3 {
		t.Errorf("index 3 shows collected line %d, %v; want 3", n, ok)
	}
	same := UnchangedText([]byte("a\nb\n"))
	if i, ok := same.Current(2); !ok || i != 1 {
		t.Errorf("unchanged: line 2 at %d, %v", i, ok)
	}
	if _, ok := same.Current(3); ok {
		t.Error("unchanged: line 3 of two is shown")
	}
}
