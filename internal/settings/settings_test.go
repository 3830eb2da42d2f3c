package settings

import (
	"strings"
	"testing"
	"time"
)

func TestSettingsApply(t *testing.T) {
	base := Default()
	tests := []struct {
		name    string
		raw     string
		want    func(*Settings)
		wantErr string
	}{
		{"null", `null`, func(*Settings) {}, ""},
		{"empty table from Neovim", ` [] `, func(*Settings) {}, ""},
		{"flat", `{"formula":"tarantula","top":3,"threshold":0.5,"autoRun":false,"timeout":"5s","parallel":2,"angelic":true,"trust":"never"}`, func(s *Settings) {
			s.Formula, s.Top, s.Threshold, s.AutoRun, s.Timeout, s.Parallel, s.Angelic, s.Trust = "tarantula", 3, 0.5, false, 5*time.Second, 2, true, "never"
		}, ""},
		{"unknown trust", `{"trust":"sometimes","top":2}`, func(s *Settings) { s.Top = 2 }, `"trust": "sometimes" is neither "ask" nor "never"`},
		{"trust granted by settings", `{"trust":"always","top":2}`, func(s *Settings) { s.Top = 2 }, `"trust": "always": trust is not taken from settings`},
		{"wrapped in its section", `{"faultline":{"top":4},"go":{"x":1}}`, func(s *Settings) { s.Top = 4 }, ""},
		{"unknown formula", `{"formula":"nope","top":2}`, func(s *Settings) { s.Top = 2 }, `unknown formula "nope"`},
		{"blockrank", `{"formula":"BlockRank"}`, func(s *Settings) { s.Formula = "BlockRank" }, ""},
		{"sattar", `{"formula":"SAT-TAR"}`, func(s *Settings) { s.Formula = "SAT-TAR" }, ""},
		{"bad values keep the old ones", `{"top":0,"timeout":"soon","parallel":-1,"autoRun":"yes"}`, func(*Settings) {}, `"top": 0 is not a positive count`},
		{"not an object", `[1]`, func(*Settings) {}, "settings must be a JSON object"},
		{"learned order", `{"order":"learned"}`, func(s *Settings) { s.Order = "learned" }, ""},
		{"unknown order", `{"order":"best","top":2}`, func(s *Settings) { s.Top = 2 }, `"order": "best" is not one of formula, combined, learned`},
		{"empty order", `{"order":""}`, func(*Settings) {}, `"order": "" is not one of`},
		{"test memory in MB", `{"testMemory":512}`, func(s *Settings) { s.TestMemory = 512 << 20 }, ""},
		{"negative test memory", `{"testMemory":-1,"top":2}`, func(s *Settings) { s.Top = 2 }, `"testMemory": -1 MB is less than 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := base.Apply([]byte(tt.raw))
			want := base
			tt.want(&want)
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}
