// Package server owns faultline's language server: the JSON-RPC connection
// over stdio, the LSP lifecycle and method registry, per-module views over the
// spectrum engine (faultline/spectra), the collection scheduler that reruns
// tests on save and follows store changes made by other processes, and the
// presentation of rankings as diagnostics, inlay hints, hovers, code lenses
// and code actions. It is the only package that speaks LSP.
package server
