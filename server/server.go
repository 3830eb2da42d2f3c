package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/faultline-go/faultline/internal/bug"
	"github.com/faultline-go/faultline/internal/settings"
	"github.com/faultline-go/faultline/internal/snapshot"
	"github.com/faultline-go/faultline/internal/trust"
)

// Options configure a Server.
type Options struct {
	// Open opens the spectrum engine of the module containing a directory.
	// Nil means the real engine, faultline/spectra.
	Open OpenFunc
	// Debounce is how long a save waits for further saves before tests are
	// recollected; zero means 300ms.
	Debounce time.Duration
	// Localizer makes the localization service of a module (the angelic
	// analysis and the combined order); nil means the real service for the
	// real engine.
	Localizer OpenLocalizerFunc
	// Version is reported in serverInfo.
	Version string
	// Trust is the user's list of trusted modules; nil means the one in
	// the user's configuration directory.
	Trust *trust.Store
	// Trace receives the phase trace of every module's results (see
	// phaseTrace); nil means standard error when FAULTLINE_DEBUG is set.
	Trace io.Writer
}

type lifecycleState int

const (
	stateNew         lifecycleState = iota // waiting for initialize
	stateInitialized                       // initialize answered
	stateShutdown                          // shutdown answered; only exit remains
)

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// without shutdown first; the LSP asks for exit status 1 then.
var ErrExitWithoutShutdown = errors.New("exit received before shutdown")

// Server is one language server session over one connection.
type Server struct {
	opts     Options
	registry map[string]method
	cancels  *cancels
	consent  *consent
	client   *client
	cache    *snapshot.ContentCache
	mappings *snapshot.LRU[snapshot.MappingKey, *snapshot.FileText]
	hints    *snapshot.LRU[hintKey, []protocol.InlayHint]

	pubMu       sync.Mutex     // serializes diagnostics passes
	analyses    sync.WaitGroup // localizations, which start processes; see startAnalysis
	progressSeq atomic.Int64
	trace       *phaseTrace

	ctx    context.Context // the session's lifetime; background work hangs off it
	cancel context.CancelFunc
	exited chan struct{} // closed by the exit notification

	mu       sync.Mutex
	state    lifecycleState
	draining bool // Serve is waiting for the analyses: start no more
	exitOnce sync.Once
	// unavailableOnce says once that the angelic analysis cannot run.
	unavailableOnce sync.Once
	panics          map[string]bool // panics and bugs reported, not to repeat them
	caps            clientCaps
	settings        Settings
	folders         []string         // workspace folder paths, in the client's order
	views           map[string]*view // by module root
	docs            map[string]*document
}

// New returns a server ready to Serve one connection.
func New(opts Options) *Server {
	if opts.Open == nil {
		opts.Open = openSpectra
	}
	if opts.Debounce == 0 {
		opts.Debounce = 300 * time.Millisecond
	}
	if opts.Localizer == nil {
		opts.Localizer = openLocalizer
	}
	s := &Server{
		opts:     opts,
		cancels:  newCancels(),
		consent:  newConsent(opts.Trust),
		cache:    snapshot.NewContentCache(256),
		mappings: snapshot.NewLRU[snapshot.MappingKey, *snapshot.FileText](256),
		hints:    snapshot.NewLRU[hintKey, []protocol.InlayHint](64),
		exited:   make(chan struct{}),
		settings: settings.Default(),
		views:    make(map[string]*view),
		docs:     make(map[string]*document),
		trace:    newPhaseTrace(opts.Trace),
	}
	s.registry = s.methods()
	return s
}

// Serve speaks LSP (Content-Length framed JSON-RPC 2.0) over rwc until the
// client sends exit, the stream ends, or ctx is cancelled.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	s.ctx, s.cancel = context.WithCancel(ctx)
	defer s.cancel()
	var c *client
	stream, err := newGuardedStream(jsonrpc2.NewHeaderStream(rwc), func(frame []byte, err error) {
		c.logf(protocol.MessageTypeError, "rejected malformed message (%d bytes): %v", len(frame), err)
	})
	if err != nil {
		return fmt.Errorf("serving: %w", err)
	}
	conn := jsonrpc2.NewConn(stream,
		jsonrpc2.WithCodec(lspCodec{}),
		jsonrpc2.WithPreempter(cancelPreempter{s.cancels}))
	c = &client{conn: conn, ctx: s.ctx}
	s.client = c
	defer bug.Default.Handle(s.reportBug)()
	conn.Go(s.ctx, s.handle)

	select {
	case <-conn.Done():
	case <-s.exited:
	case <-ctx.Done():
	}
	s.teardown()
	// A cancelled analysis kills its test process on its way out; wait for
	// that, but not for a solver call that cannot be interrupted.
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	waitAtMost(&s.analyses, analysisGrace)
	closeErr := conn.Close()
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	select {
	case <-s.exited:
		if state != stateShutdown {
			return ErrExitWithoutShutdown
		}
		return nil
	default:
	}
	if err := conn.Err(); err != nil {
		return fmt.Errorf("connection: %w", err)
	}
	if closeErr != nil {
		return fmt.Errorf("closing connection: %w", closeErr)
	}
	return nil
}

// analysisGrace bounds how long Serve waits for cancelled analyses: the LSP
// client expects the process gone soon after exit.
const analysisGrace = 500 * time.Millisecond

// startAnalysis counts an analysis about to start, unless Serve is already
// waiting for them: a WaitGroup must not grow while it is waited on.
func (s *Server) startAnalysis() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return false
	}
	s.analyses.Add(1)
	return true
}

func waitAtMost(wg *sync.WaitGroup, limit time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
	}
}

func (s *Server) lifecycle() lifecycleState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// teardown stops every view's background work.
func (s *Server) teardown() {
	s.cancel()
	s.mu.Lock()
	views := s.views
	s.views = make(map[string]*view)
	s.mu.Unlock()
	haltViews(views, stopGrace)
}

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	workDoneProgress bool
	configuration    bool
	inlayHintRefresh bool
	codeLensRefresh  bool
	encoding         encoding
	extensions       extensions
}

func (s *Server) encoding() encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.encoding
}

func (s *Server) currentSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// viewOf returns the view of the innermost module holding path, or nil.
func (s *Server) viewOf(path string) *view {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best *view
	for root, v := range s.views {
		if within(root, path) && (best == nil || len(root) > len(best.root)) {
			best = v
		}
	}
	return best
}

// viewAt returns the view of the module at root, or nil.
func (s *Server) viewAt(root string) *view {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.views[root]
}

// allViews returns the views ordered by root.
func (s *Server) allViews() []*view {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*view, 0, len(s.views))
	for _, root := range snapshot.SortedKeys(s.views) {
		out = append(out, s.views[root])
	}
	return out
}

// within reports whether path is dir or lies inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
