package calc_test

import (
	"fmt"

	"example.com/calc"
)

func ExampleEval() {
	v, err := calc.Eval("price * (1 + vat)", calc.Env{"price": 80, "vat": 0.25})
	fmt.Println(v, err)
	// Output: 100 <nil>
}
