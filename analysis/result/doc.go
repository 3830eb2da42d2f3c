// Package result owns what the angelic analysis is given and gives back:
// the failing test (Target), the bounds of its analysis (Options), the fix
// candidates and their locations, each test's result, and why its
// analysis ended. It sits below the instrumentation's users and above
// package instrument, so that the formula, value replacement and the front
// share these types.
package result
