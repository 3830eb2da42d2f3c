// Package testbuild is the one layer through which faultline builds and runs
// a module's tests. Every technique (spectra, the angelic analysis, and the
// ones built on them) instruments, builds and runs through it:
//
//   - Module and List: the module on disk and its packages (go list), with
//     the listing cached and revalidated by file-system metadata, so that an
//     unchanged module is not listed again;
//   - Hasher and Keys: one content-hashing scheme for everything a test
//     binary is built from, with file hashes kept across processes under the
//     files' size and modification time, as the go command keeps its own;
//   - Edit and Apply: source rewrites that never move a line, including the
//     //go:build upgrade that lets instrumentation use generics in modules
//     declaring an older Go;
//   - Overlay: a content-addressed directory of rewritten files and injected
//     runtimes, reused across builds and processes, for go test -overlay;
//   - Build: test binaries built through the overlay, kept under their
//     content key so that an unchanged instrumented binary is not relinked;
//     BuildTestsEach hands each binary over as soon as it is linked (go
//     test -exec runs faultline's executable as the build helper), so that
//     tests run while the other packages build, as under go test;
//   - Run: a test binary run with -test.v=test2json, its output converted
//     in process to test2json's events as it arrives, with a verdict per test (pass, fail, skip, panic, timeout)
//     taken from the events and the process's exit, never from output text;
//   - the memory watch: every test process tree bounded in resident memory
//     (Config.TestMemory), a tree over it killed and its running test given
//     the verdict memory.
//
// Instrumentation itself belongs to the techniques: each contributes edits
// and a runtime package (real Go source, embedded in the faultline binary)
// to a build, and one build can carry several.
package testbuild
