package server

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// withExtensions adds the experimental capability that asks for the
// server's own notifications.
func withExtensions(caps protocol.ClientCapabilities) protocol.ClientCapabilities {
	caps.Experimental = []byte(`{"faultline":{"statusNotification":true,"rankingChangedNotification":true}}`)
	return caps
}

func TestReadExtensions(t *testing.T) {
	for _, tc := range []struct {
		experimental string
		want         extensions
	}{
		{``, extensions{}},
		{`null`, extensions{}},
		{`{"other":{"statusNotification":true}}`, extensions{}},
		{`{"faultline":{"statusNotification":true}}`, extensions{Status: true}},
		{`{"faultline":{"statusNotification":true,"rankingChangedNotification":true}}`, extensions{Status: true, RankingChanged: true}},
		{`{"faultline":{"statusNotification":"yes"}}`, extensions{}},
		{`[1]`, extensions{}},
	} {
		if got := readExtensions([]byte(tc.experimental)); got != tc.want {
			t.Errorf("readExtensions(%s) = %+v, want %+v", tc.experimental, got, tc.want)
		}
	}
}

// A client that does not ask for faultline/status and
// faultline/rankingChanged gets neither, and the standard features as
// before; one that asks gets both.
func TestExtensionNotificationsOnlyWhenAsked(t *testing.T) {
	for _, asked := range []bool{false, true} {
		dir, fake := newFakeModule(t)
		c := startServer(t, Options{Open: fake.open})
		caps := protocol.ClientCapabilities{}
		if asked {
			caps = withExtensions(caps)
		}
		c.initialize(dir, "", caps)
		src := uri.File(filepath.Join(dir, "a.go"))
		c.waitDiagnostics("diagnostics on a.go", src, onLines(4, 5))
		if asked {
			c.waitFor("status and rankingChanged", func(notes []note) bool {
				var status, ranking bool
				for _, n := range notes {
					status = status || n.method == methodStatus
					ranking = ranking || n.method == methodRankingChanged
				}
				return status && ranking
			})
		}
		c.shutdown()
		if asked {
			continue
		}
		for _, n := range c.notes() {
			if strings.HasPrefix(n.method, "faultline/") {
				t.Errorf("unasked notification %s", n.method)
			}
		}
	}
}
