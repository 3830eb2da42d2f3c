// Package settings owns the language server's settings: the model
// (Settings, its defaults and what it asks of the localization service)
// and the registry of the settings a client sends (All), from which they
// are parsed, checked against the editors' configurations and documented
// in doc/settings.md. It knows nothing of LSP.
package settings

//go:generate go run ./gen -o ../../doc/settings.md
