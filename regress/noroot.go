package regress

// NoRootReason says why AFTER's causes gave no root change.
type NoRootReason string

const (
	// NoRootOutside: the causes' statements touch no changed line, or
	// reverting the changes they touch leaves the test failing.
	NoRootOutside NoRootReason = "causes-outside-changes"
	// NoRootNoBuild: a revert of the causes' changes did not compile
	// alone, and none tried made the test pass.
	NoRootNoBuild NoRootReason = "revert-did-not-compile"
	// NoRootBudget: the semantic step's time budget, the bound on the
	// causes, or the dynamic step's budget ran out.
	NoRootBudget NoRootReason = "budget"
	// NoRootNoCause: the semantic step computed no cause (the notes say
	// why).
	NoRootNoCause NoRootReason = "no-cause"
)

// NoRootMemory: computing the causes reached a memory bound: the process
// explaining was stopped (and the causes left out when it explained
// again), or the test memory bound stopped the recorded run.
const NoRootMemory NoRootReason = "memory-bound"

// Text says the reason in a sentence.
func (r NoRootReason) Text() string {
	switch r {
	case NoRootOutside:
		return "the causes lay outside the changed lines"
	case NoRootNoBuild:
		return "a revert of the causes' changes did not compile"
	case NoRootBudget:
		return "the budget ran out"
	case NoRootNoCause:
		return "no semantic cause was found"
	case NoRootMemory:
		return "the memory bound ran out while the causes were computed"
	}
	return string(r)
}
