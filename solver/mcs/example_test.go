//go:build cgo

package mcs_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/faultline-go/faultline/solver/mcs"
	"github.com/faultline-go/faultline/solver/z3"
)

// Which statements of "y = x + 1; z = y + 5" could be changed so that
// x = 3 gives z = 10? Each statement is a soft constraint tagged with its
// line; the input and the expected output are hard.
func Example() {
	ctx, err := z3.NewContext(z3.Config{Timeout: 5 * time.Second})
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	x, y, z := ctx.BVConst("x", 64), ctx.BVConst("y", 64), ctx.BVConst("z", 64)

	enum, err := mcs.New[string](ctx, mcs.Options{})
	if err != nil {
		panic(err)
	}
	_ = enum.AddHard(x.Eq(ctx.BVInt(3, 64)), z.Eq(ctx.BVInt(10, 64)))
	_, _ = enum.AddSoft("line 1", y.Eq(x.Add(ctx.BVInt(1, 64))))
	_, _ = enum.AddSoft("line 2", z.Eq(y.Add(ctx.BVInt(5, 64))))

	var found []string
	for c, err := range enum.Enumerate(context.Background(), mcs.Bounds{MaxSize: 2, Budget: 5 * time.Second}) {
		if err != nil {
			panic(err)
		}
		line := c.Tags[0]
		angelic, _ := c.Model.Int64(y) // the value y must take
		found = append(found, fmt.Sprintf("%v: y = %d", line, angelic))
	}
	slices.Sort(found)
	for _, f := range found {
		fmt.Println(f)
	}
	// Output:
	// line 1: y = 5
	// line 2: y = 4
}
