// Package regress owns faultline's regression explanation: for a test that
// fails in the working tree and passed at an earlier commit, which of the
// changes since then are responsible, and how they reach the failure. It
// follows AFTER (Yi, Yang, Liu, Zhao and Wang, "A Synergistic Analysis
// Method for Explaining Failed Regression Tests", ICSE 2015).
//
// The base is given or found by bisecting the first-parent history: the
// test is built and run as the module was at a commit, with the working
// tree's test files (the test is the input), through an overlay over the
// working tree, and each commit's verdict is kept in the module's cache.
// The changes are the zero-context diff between the base and the working
// tree (uncommitted edits and untracked files included), each hunk split
// at statement boundaries.
//
// The semantic step asks the failing run, recorded by the angelic
// analysis's instrumentation (analysis.RecordFailingRun), which executed
// statements force the failed check along the recorded path: a minimal
// unsat core over the statements' literals (the weakest precondition of
// the check along the trace, in one solver call). The hunks those
// statements fall in are its changes. The dynamic step is asymmetric delta
// debugging over those hunks: each subset is reverted through an overlay
// (the user's files and the git state are never touched), built and run,
// and only a passing run is conclusive. A revert that does not compile is
// completed with auxiliary hunks, found from the compiler's errors and
// shrunk by AFTER's Algorithm 4. When no revert of the causes' changes
// passes, critical predicates (the conditions that control a cause's
// statements or could have redefined what they read) give further causes;
// when those run out, the changes the failing run executes and then every
// change are tried.
//
// LineTimes, git blame's date of each line's last change, is the one
// reading of the history other than explanation (bench/realfaults measures
// it as evidence).
package regress
