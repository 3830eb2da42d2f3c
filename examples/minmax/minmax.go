package minmax

// MinMax returns the least and the most of three numbers.
func MinMax(in1, in2, in3 int) (int, int) {
	least := in1
	most := in1
	if most < in2 {
		most = in2
	}
	if most < in3 {
		most = in3
	}
	if least > in2 {
		most = in2
	}
	if least > in3 {
		least = in3
	}
	return least, most
}
