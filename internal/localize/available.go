package localize

// analysisAvailable says why the angelic analysis cannot run in this
// faultline, or nil.
func analysisAvailable() error { return nil }
