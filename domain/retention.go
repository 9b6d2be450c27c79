package domain

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RetentionStream is the housekeeping stream of the archiver: where it records how far the
// archive reaches (ArchiveAdvanced) and which jobs left the live store (JobsRetired), each
// appended with the stream's expected version, so that one archiver at a time moves it and a
// killed one resumes from what it recorded.
const RetentionStream = "retention"

// ArchiveAdvanced records that the archive holds every event of the log at positions First to
// Last (every stream, not only the jobs'), in the segment File with the SHA-256 Sum, written and
// read back before this was appended. The archive is a complete prefix of the log: Last is the
// archived horizon, and the next segment starts at Last+1.
type ArchiveAdvanced struct {
	First  uint64    `json:"first"`
	Last   uint64    `json:"last"`
	File   string    `json:"file"`
	SHA256 string    `json:"sha256"`
	Events int       `json:"events"`
	At     time.Time `json:"at"`
}

func (ArchiveAdvanced) EventType() string { return "ArchiveAdvanced" }

// JobsRetired records that the jobs named leave the live store: each ended (a terminal status)
// longer ago than its kind's retention window, and its whole stream lies at or below UpTo, an
// archived horizon. It is appended before their streams are removed, and the projections drop
// the jobs when they apply it, so that the read models of a relayer that followed the log and
// those rebuilt from the live store afterwards agree. A job id named here is never given to a
// new job: an identical request later becomes a job of the next generation.
//
// Versions[i], when present, is the last version of Jobs[i]'s stream as the archiver checked
// it in the store: read models that caught up while the removal ran may hold the first part of
// a job's stream and never see the rest, and they tell that job (its version below the one
// named) from one that really is still open. Events recorded before Versions existed have none.
type JobsRetired struct {
	UpTo     uint64    `json:"upTo"`
	Jobs     []JobID   `json:"jobs"`
	Versions []uint64  `json:"versions,omitempty"`
	At       time.Time `json:"at"`
}

func (JobsRetired) EventType() string { return "JobsRetired" }

// HistoryCarried follows each ArchiveAdvanced in the same append. It carries the read models'
// running history (transitions entered, stage durations, drain rates, events applied: what
// folding every event so far added up) as the read models held it at position AsOf, at or past
// the archived horizon, in their own encoding (projections.Set.History), which the domain does
// not read. Read models folded from a live store that no longer holds the events archived
// before AsOf (retired jobs', superseded housekeeping ones) take it over, so that they agree
// with read models that followed the whole log. Only the latest matters: the archiver removes
// the older ones from the live store once they are archived.
type HistoryCarried struct {
	AsOf    uint64          `json:"asOf"`
	History json.RawMessage `json:"history"`
	At      time.Time       `json:"at"`
}

func (HistoryCarried) EventType() string { return "HistoryCarried" }

// Retention is the retention policy: how long a job that ended stays in the live store, per
// kind, before the archiver moves it to the archive, and how the archiver paces itself. Its
// defaults are the reference relayer's windows; unlike the reference, it is on by default,
// because nothing is destroyed: the archive keeps every event.
type Retention struct {
	Enabled bool
	// Windows[k.Ordinal()] is kind k's window, counted from the moment the job ended.
	Windows [NumKinds]time.Duration
	// Batch is how many events one archive segment holds at most, and how many jobs one
	// removal names at most.
	Batch int
	// Interval is how often the archiver looks for work when it has caught up.
	Interval time.Duration
}

// DefaultRetention is the reference relayer's policy: user decrypts (delegated ones too) and
// input proofs 7 days, public decrypts 365 days.
func DefaultRetention() Retention {
	r := Retention{Enabled: true, Batch: 2000, Interval: time.Minute}
	week, year := 7*24*time.Hour, 365*24*time.Hour
	r.Windows[InputProof.Ordinal()] = week
	r.Windows[UserDecrypt.Ordinal()] = week
	r.Windows[DelegatedUserDecrypt.Ordinal()] = week
	r.Windows[PublicDecrypt.Ordinal()] = year
	return r
}

// Window is kind k's retention window.
func (r Retention) Window(k Kind) time.Duration { return r.Windows[k.Ordinal()] }

// MinWindow is the shortest window of any kind.
func (r Retention) MinWindow() time.Duration {
	m := r.Windows[0]
	for _, w := range r.Windows[1:] {
		m = min(m, w)
	}
	return m
}

// Bounds of the retention settings.
const (
	MinRetentionWindow = time.Second
	MaxRetentionWindow = 100 * 365 * 24 * time.Hour
	MaxRetentionBatch  = 100_000
)

// Problems lists what is wrong with r, each naming its parameter as RetentionParam names it.
func (r Retention) Problems() []FieldIssue {
	var out []FieldIssue
	for _, k := range Kinds() {
		if w := r.Window(k); w < MinRetentionWindow || w > MaxRetentionWindow {
			out = append(out, FieldIssue{Field: RetentionPrefix + "window." + k.String(),
				Issue: fmt.Sprintf("must be from %s to %s, got %s", MinRetentionWindow, MaxRetentionWindow, w)})
		}
	}
	if r.Batch < 1 || r.Batch > MaxRetentionBatch {
		out = append(out, FieldIssue{Field: RetentionPrefix + "batch", Issue: fmt.Sprintf("must be from 1 to %d, got %d", MaxRetentionBatch, r.Batch)})
	}
	if r.Interval < 10*time.Millisecond || r.Interval > 24*time.Hour {
		out = append(out, FieldIssue{Field: RetentionPrefix + "interval", Issue: fmt.Sprintf("must be from 10ms to 24h, got %s", r.Interval)})
	}
	return out
}

// RetentionPrefix starts the names of the retention parameters in the admin API's runtime
// configuration: retention.enabled, retention.window.<kind> (seconds), retention.batch,
// retention.interval (seconds).
const RetentionPrefix = "retention."

// RetentionParam is one retention parameter as the admin API lists it.
type RetentionParam struct {
	Name, Unit, Constraint, Description string
	Value                               any
}

// Params lists r's parameters in a fixed order.
func (r Retention) Params() []RetentionParam {
	out := []RetentionParam{{Name: RetentionPrefix + "enabled", Value: r.Enabled, Unit: "bool", Constraint: "true or false (or 1 or 0)",
		Description: "whether the archiver moves ended jobs past their window from the live store to the archive"}}
	for _, k := range Kinds() {
		out = append(out, RetentionParam{Name: RetentionPrefix + "window." + k.String(), Value: r.Window(k).Seconds(), Unit: "seconds",
			Constraint: "1 to 3153600000", Description: "how long a " + k.String() + " job that ended stays in the live store"})
	}
	return append(out,
		RetentionParam{Name: RetentionPrefix + "batch", Value: r.Batch, Unit: "events", Constraint: fmt.Sprintf("1 to %d", MaxRetentionBatch),
			Description: "the most events one archive segment holds, and the most jobs one removal names"},
		RetentionParam{Name: RetentionPrefix + "interval", Value: r.Interval.Seconds(), Unit: "seconds", Constraint: "0.01 to 86400",
			Description: "how often the archiver looks for work once it has caught up"})
}

// ErrUnknownRetentionParam reports a name With does not know.
type ErrUnknownRetentionParam struct{ Name string }

func (e ErrUnknownRetentionParam) Error() string { return fmt.Sprintf("unknown parameter %q", e.Name) }

// With returns r with parameter name set to the JSON value raw, and the value before and after
// as JSON. A refusal is ErrUnknownRetentionParam or a *ValidationError naming the parameter.
func (r Retention) With(name string, raw json.RawMessage) (Retention, json.RawMessage, json.RawMessage, error) {
	before, ok := r.value(name)
	if !ok {
		return r, nil, nil, ErrUnknownRetentionParam{Name: name}
	}
	refuse := func(issue string) error {
		return &ValidationError{Label: LabelValidationFailed, Message: "invalid value for " + name, Details: []FieldIssue{{Field: name, Issue: issue}}}
	}
	next := r
	s := strings.TrimSpace(string(raw))
	switch inner := strings.TrimPrefix(name, RetentionPrefix); {
	case inner == "enabled":
		switch s {
		case "true", "1":
			next.Enabled = true
		case "false", "0":
			next.Enabled = false
		default:
			return r, nil, nil, refuse("must be true or false (or 1 or 0), got " + s)
		}
	case inner == "batch":
		n, err := strconv.Atoi(s)
		if err != nil {
			return r, nil, nil, refuse("must be a whole number, got " + s)
		}
		next.Batch = n
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f != f || f < 0 || f > MaxRetentionWindow.Seconds() {
			p, _ := r.param(name)
			return r, nil, nil, refuse("must be a number of seconds, " + p.Constraint + ", got " + s)
		}
		d := time.Duration(f * float64(time.Second))
		if inner == "interval" {
			next.Interval = d
		} else {
			k, _ := ParseKind(strings.TrimPrefix(inner, "window."))
			next.Windows[k.Ordinal()] = d
		}
	}
	for _, p := range next.Problems() {
		if p.Field == name {
			return r, nil, nil, refuse(p.Issue)
		}
	}
	after, _ := next.value(name)
	b, _ := json.Marshal(before)
	a, _ := json.Marshal(after)
	return next, b, a, nil
}

func (r Retention) value(name string) (any, bool) {
	p, ok := r.param(name)
	return p.Value, ok
}

func (r Retention) param(name string) (RetentionParam, bool) {
	for _, p := range r.Params() {
		if p.Name == name {
			return p, true
		}
	}
	return RetentionParam{}, false
}
