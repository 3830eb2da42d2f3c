package server

import (
	"errors"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/faultline-go/faultline/internal/settings"
	"github.com/faultline-go/faultline/internal/trust"
)

// Running a module's tests runs the module's code, so the server builds and
// runs nothing in a module until its user agrees. Every path that would
// (a collection, the angelic analysis, verifying a fix) asks mayRun first.
// What runs no code (the store's results, hovers, hints) is always served.
//
// Consent comes only from places a repository cannot write: the user's
// answer to the server's question or an explicit command such as "run
// tests now" (both for this session), the user's trust list
// (internal/trust), or the client's own verdict on the workspace, stated
// in its capabilities (experimental.faultline.trustedWorkspace, as VS
// Code's workspace trust and Neovim's vim.secure decide it). Settings are
// no source: clients fill initializationOptions and workspace/configuration
// from files a repository may carry (.dir-locals.el, .vscode/settings.json,
// .helix/languages.toml), so the "trust" setting can only lower trust, to
// "never". When nothing decides and nobody said no, the server asks once
// with window/showMessageRequest and defers the work until the answer.

// The answers the question offers.
const (
	answerOnce   = "Run this time"
	answerAlways = "Always for this module"
	answerNotNow = "Not now"
)

// errUntrusted is the result of work refused for want of consent.
var errUntrusted = errors.New("the user has not agreed to run this module's tests")

// consentState is what the user said of one module in this session.
type consentState int

const (
	consentUnknown consentState = iota // nothing yet
	consentAsking                      // the question is on screen
	consentGiven                       // run, until the server stops
	consentRefused                     // no automatic run and no question until the server stops
)

// consent is the server's record of who may run what.
type consent struct {
	store  *trust.Store // the user's trust list; nil when it has no place
	noList error        // why store is nil
	asking sync.Mutex   // one question on screen at a time

	mu       sync.Mutex
	modules  map[string]consentState
	reported map[string]bool // trust list problems and refused settings already shown
}

func newConsent(store *trust.Store) *consent {
	c := &consent{store: store, modules: make(map[string]consentState), reported: make(map[string]bool)}
	if store == nil {
		path, err := trust.DefaultPath()
		if err != nil {
			c.noList = err
		} else {
			c.store = trust.At(path)
		}
	}
	return c
}

// give records consent for root until the server stops: the user asked for
// a run themselves.
func (c *consent) give(root string) {
	c.mu.Lock()
	c.modules[root] = consentGiven
	c.mu.Unlock()
}

// mayRun reports whether the tests of the module at root may be built and
// run now; if not, the error is errUntrusted. When nobody has said yet, it
// asks the user, in the background: a yes resumes the module's deferred work.
func (s *Server) mayRun(root string) error {
	c := s.consent
	c.mu.Lock()
	state := c.modules[root]
	c.mu.Unlock()
	if state == consentGiven {
		return nil
	}
	if s.currentSettings().Trust == settings.TrustNever {
		s.status(statusParams{State: "idle", Root: root,
			Message: `tests not run: the "trust" setting is "never" (run them with faultline.run)`})
		return errUntrusted
	}
	client := s.clientTrust()
	if (client != nil && *client) || s.listed(root) {
		return nil
	}
	if state != consentUnknown || client != nil {
		return errUntrusted // asked already, or the client said no
	}
	c.mu.Lock()
	ask := c.modules[root] == consentUnknown
	if ask {
		c.modules[root] = consentAsking
	}
	c.mu.Unlock()
	if ask {
		s.status(statusParams{State: "idle", Root: root, Message: "waiting for permission to run the tests"})
		s.spawn("asking to run the tests of "+root, func() { s.ask(root) })
	}
	return errUntrusted
}

// clientTrust is the client's own verdict on the workspace, from its
// capabilities; nil when it states none.
func (s *Server) clientTrust() *bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.extensions.TrustedWorkspace
}

// reportSettings reports what was wrong with settings read from where: in
// the log, and a "trust" setting that would grant trust once to the user
// too, since it was either theirs, now without effect, or a repository's
// attempt to trust itself.
func (s *Server) reportSettings(where string, err error) {
	if err == nil {
		return
	}
	s.client.logf(protocol.MessageTypeWarning, "%s: %v", where, err)
	if !errors.Is(err, settings.ErrTrustFromSettings) {
		return
	}
	c := s.consent
	c.mu.Lock()
	first := !c.reported[settings.ErrTrustFromSettings.Error()]
	c.reported[settings.ErrTrustFromSettings.Error()] = true
	c.mu.Unlock()
	if first {
		s.client.showMessage(protocol.MessageTypeWarning, fmt.Sprintf(
			"faultline: the %q setting %q (from %s) is ignored: %v", "trust", settings.TrustAlways, where, settings.ErrTrustFromSettings))
	}
}

// listed reports whether root is in the user's trust list. A list that
// cannot be read trusts nothing; its problem is shown once.
func (s *Server) listed(root string) bool {
	c := s.consent
	if c.store == nil {
		return false
	}
	ok, err := c.store.Trusted(root)
	if err != nil {
		c.mu.Lock()
		first := !c.reported[err.Error()]
		c.reported[err.Error()] = true
		c.mu.Unlock()
		if first {
			s.client.showMessage(protocol.MessageTypeWarning, "faultline: "+err.Error())
		}
		return false
	}
	return ok
}

// ask puts the question for root to the user and acts on the answer. It
// runs off the read loop, which must stay free to read the answer; the
// answer may come much later, or never.
func (s *Server) ask(root string) {
	c := s.consent
	c.asking.Lock()
	defer c.asking.Unlock()
	if s.ctx.Err() != nil {
		return
	}
	var answer *protocol.MessageActionItem
	err := s.client.call(s.ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning,
		Message: fmt.Sprintf("faultline finds suspicious lines by building and running the tests of %s, "+
			"which runs the module's code. Run its tests?", root),
		Actions: []protocol.MessageActionItem{{Title: answerOnce}, {Title: answerAlways}, {Title: answerNotNow}},
	}, &answer)
	if s.ctx.Err() != nil {
		return
	}
	given := err == nil && answer != nil && (answer.Title == answerOnce || answer.Title == answerAlways)
	state := consentRefused
	if given {
		state = consentGiven
	}
	c.mu.Lock()
	c.modules[root] = state
	c.mu.Unlock()

	switch {
	case err != nil:
		s.client.showMessage(protocol.MessageTypeWarning, fmt.Sprintf(
			"faultline: the tests of %s were not run: the editor could not ask whether to run them (%v). "+
				"Run them with the faultline.run command, or trust the module with `faultline trust %s`.", root, err, root))
	case given && answer.Title == answerAlways:
		s.remember(root)
	}
	if !given {
		s.status(statusParams{State: "idle", Root: root,
			Message: "tests not run: the module is not trusted (run them with faultline.run, or `faultline trust` in a terminal)"})
		return
	}
	for _, v := range s.allViews() {
		if v.root == root {
			v.resume()
		}
	}
}

// remember adds root to the user's trust list; when that fails the answer
// still holds for this session.
func (s *Server) remember(root string) {
	c := s.consent
	err := c.noList
	if c.store != nil {
		_, err = c.store.Add(root)
	}
	if err != nil {
		s.client.showMessage(protocol.MessageTypeWarning, fmt.Sprintf(
			"faultline: could not remember to trust %s, so the tests run until the editor closes only: %v", root, err))
	}
}

// deferredWork is what a view was refused for want of consent.
type deferredWork struct {
	run      bool // a collection
	analysis bool // the providers' analysis of the current snapshot
}

// mayRun asks the server's gate whether the view may do w now. Refused work
// is recorded before the user is asked, so an answer cannot come before
// there is something to resume.
func (v *view) mayRun(w deferredWork) error {
	v.mu.Lock()
	v.deferred.run = v.deferred.run || w.run
	v.deferred.analysis = v.deferred.analysis || w.analysis
	v.mu.Unlock()
	if err := v.srv.mayRun(v.root); err != nil {
		return err
	}
	v.mu.Lock()
	v.deferred.run = v.deferred.run && !w.run
	v.deferred.analysis = v.deferred.analysis && !w.analysis
	v.mu.Unlock()
	return nil
}

// resume does what the view was refused, now that the user agreed: a
// collection (which analyzes its result), else the analysis alone.
func (v *view) resume() {
	v.mu.Lock()
	w := v.deferred
	v.deferred = deferredWork{}
	v.mu.Unlock()
	switch {
	case w.run:
		v.runNow()
	case w.analysis:
		v.localize()
	}
}
