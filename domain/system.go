package domain

import (
	"encoding/json"
	"time"
)

// Events outside the request streams share the log (and its codec) with request events but are
// not part of any job's lifecycle, so they are not Events: the projections of jobs skip them.

// ConfigStream is the stream of runtime configuration changes.
const ConfigStream = "config"

// ConfigChanged records one runtime parameter change made through the admin API: who made it and
// the value before and after (as JSON). Who is an identity, never a credential.
type ConfigChanged struct {
	Param string          `json:"param"`
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
	Who   string          `json:"who"`
	At    time.Time       `json:"at"`
}

func (ConfigChanged) EventType() string { return "ConfigChanged" }
