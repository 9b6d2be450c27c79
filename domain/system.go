package domain

import (
	"encoding/json"
	"time"
)

// Events outside the request streams. They share the log (and its codec) with request events but
// are not part of any job's lifecycle, so they are not Events: the projections of jobs skip them.

// ConfigStream is the stream of runtime configuration changes.
const ConfigStream = "config"

// ContentStreamPrefix starts the name of a content-hash reservation stream.
const ContentStreamPrefix = "content-"

// ContentStream is the reservation stream of a content hash: its last ContentReserved names the
// job that answers submissions with that hash. Appending a reservation with the stream's expected
// version is what makes two concurrent identical submissions produce one job.
func ContentStream(hash string) string { return ContentStreamPrefix + hash }

// ContentReserved records that job JobID holds content hash Hash: identical submissions answer
// with that job while it is active or completed.
type ContentReserved struct {
	Hash  string    `json:"hash"`
	JobID JobID     `json:"jobId"`
	At    time.Time `json:"at"`
}

// ConfigChanged records one runtime parameter change made through the admin API: who made it and
// the value before and after (as JSON). Who is an identity, never a credential.
type ConfigChanged struct {
	Param string          `json:"param"`
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
	Who   string          `json:"who"`
	At    time.Time       `json:"at"`
}

func (ContentReserved) EventType() string { return "ContentReserved" }
func (ConfigChanged) EventType() string   { return "ConfigChanged" }
