package sarif

// The results are declared here rather than built from go-sarif's types:
// a log of every executed line holds tens of thousands of them, and the
// library's property bags marshal through a map and its unset members
// need pruning afterwards (1.4 s for 45,000 results against 0.3 s for
// these). The run around them still comes from the library.

type result struct {
	RuleID              string              `json:"ruleId"`
	RuleIndex           int                 `json:"ruleIndex"`
	Level               string              `json:"level"`
	Kind                string              `json:"kind"`
	Rank                float64             `json:"rank"`
	Message             message             `json:"message"`
	Locations           []location          `json:"locations"`
	PartialFingerprints partialFingerprints `json:"partialFingerprints"`
	Properties          resultProps         `json:"properties"`
	Fixes               []fix               `json:"fixes,omitempty"`
}

// partialFingerprints holds the one partial fingerprint, under FingerprintKey.
type partialFingerprints struct {
	LineHash string `json:"faultlineLineHash/v1"`
}

type resultProps struct {
	Rank          int     `json:"rank"`
	Score         float64 `json:"score"`
	Formula       string  `json:"formula"`
	Order         string  `json:"order"`
	Tie           [2]int  `json:"tie"`
	EF            int     `json:"ef"`
	EP            int     `json:"ep"`
	NF            int     `json:"nf"`
	NP            int     `json:"np"`
	VerifiedFixes int     `json:"verifiedFixes"`
	Function      string  `json:"function,omitempty"`
}

type message struct {
	Text string `json:"text"`
}

type location struct {
	PhysicalLocation physicalLocation `json:"physicalLocation"`
}

type physicalLocation struct {
	ArtifactLocation artifactLocation `json:"artifactLocation"`
	Region           region           `json:"region"`
}

type artifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type region struct {
	StartLine   int      `json:"startLine"`
	StartColumn int      `json:"startColumn,omitempty"`
	EndLine     int      `json:"endLine,omitempty"`
	EndColumn   int      `json:"endColumn,omitempty"`
	Snippet     *message `json:"snippet,omitempty"`
}

type fix struct {
	Description     message          `json:"description"`
	ArtifactChanges []artifactChange `json:"artifactChanges"`
	Properties      fixProps         `json:"properties"`
}

type artifactChange struct {
	ArtifactLocation artifactLocation `json:"artifactLocation"`
	Replacements     []replacement    `json:"replacements"`
}

type replacement struct {
	DeletedRegion   region  `json:"deletedRegion"`
	InsertedContent message `json:"insertedContent"`
}

type fixProps struct {
	Test       string `json:"test"`
	Package    string `json:"package"`
	Expression string `json:"expression"`
	Original   string `json:"original"`
	Angelic    string `json:"angelic"`
	// AvoidsCheck: the fix steers the run around the failing check rather
	// than fixing what it checks.
	AvoidsCheck bool `json:"avoidsCheck,omitempty"`
	// Operator and Change describe a verified operator fix (a mutant),
	// which has no test, expression or value of its own.
	Operator string `json:"operator,omitempty"`
	Change   string `json:"change,omitempty"`
}
