// Package snapshot is the language server's core below the protocol: one
// module's results as an editor shows them, with no knowledge of LSP.
//
// A Snapshot (BuildSnapshot) is the ranking of a collected matrix under the
// settings' technique, in the order they ask for (made by the localization
// service from what it holds, order.go), indexed for per-request lookups
// and immutable once built. Beside it: the sentence on why a line stands
// where it does (why.go), the texts of a line's diagnostic, hover and
// inlay hint (text.go), the analyses' findings as shown (findings.go),
// the test functions of the failing tests (tests.go), the content cache of
// collected file texts and the mapping of collected lines onto edited ones
// (content.go, linemap.go). Package server turns these into LSP messages.
package snapshot
