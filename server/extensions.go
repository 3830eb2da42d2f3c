package server

import (
	"encoding/json"
)

// extensions are the server's own notifications that the client asked for,
// and the client's verdict on the workspace's trust. A client that knows
// nothing of them gets none, as gopls does with its own: generic clients
// report every unknown notification to their user. A client asks through
// its experimental capabilities:
//
//	"experimental": {"faultline": {"statusNotification": true, "rankingChangedNotification": true, "trustedWorkspace": true}}
//
// The verdict is read there, and not from settings, because clients compute
// their capabilities themselves, while settings may come from the workspace.
type extensions struct {
	Status           bool  `json:"statusNotification"`         // faultline/status
	RankingChanged   bool  `json:"rankingChangedNotification"` // faultline/rankingChanged
	TrustedWorkspace *bool `json:"trustedWorkspace"`           // nil: the client does not decide trust
}

// readExtensions reads the "faultline" member of the experimental client
// capabilities; anything else there, or a malformed member, asks for none.
func readExtensions(experimental []byte) extensions {
	var caps struct {
		Faultline extensions `json:"faultline"`
	}
	if len(experimental) == 0 || json.Unmarshal(experimental, &caps) != nil {
		return extensions{}
	}
	return caps.Faultline
}

// wants reports whether the client asked for the extension notification.
func (s *Server) wants(method string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch method {
	case methodStatus:
		return s.caps.extensions.Status
	case methodRankingChanged:
		return s.caps.extensions.RankingChanged
	}
	return false
}
