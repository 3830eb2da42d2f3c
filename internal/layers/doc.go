// Package layers holds no code: its test checks that the module's imports
// run one way, down the layers ARCHITECTURE.md names (command line →
// language server → its LSP-free core → localization service →
// techniques → build layer → solver), that nothing below the server
// imports LSP, that only tests and bench import the fake editor, and that
// the shared file cache imports no layer.
package layers
