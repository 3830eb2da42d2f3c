package minmax

import "testing"

func FuzzMinMax(f *testing.F) {
	f.Add(1, 0, 2)
	f.Add(0, 1, 2)
	f.Add(2, 2, 2)
	f.Fuzz(func(t *testing.T, in1, in2, in3 int) {
		least, most := MinMax(in1, in2, in3)
		if least > most {
			t.Errorf("MinMax(%d, %d, %d) = %d, %d: least above most", in1, in2, in3, least, most)
		}
	})
}
