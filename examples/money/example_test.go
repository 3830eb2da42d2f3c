package money_test

import (
	"fmt"

	"example.com/money"
)

func ExampleParse() {
	for _, s := range []string{"19.99", "0.125", "0.135"} {
		a, err := money.Parse(s, "EUR")
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(a)
	}
	// Output:
	// 19.99 EUR
	// 0.12 EUR
	// 0.14 EUR
}
