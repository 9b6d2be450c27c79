package webhook

import (
	"fmt"
	"slices"
	"strings"

	"relayer/domain"
)

// Filter selects the transitions an endpoint hears about: by the job's kind, by the status the
// transition enters and by the type of the event that made it. An empty list lets everything
// through; a transition must pass all three.
type Filter struct {
	Kinds      []domain.Kind   `json:"kinds,omitempty"`
	Statuses   []domain.Status `json:"statuses,omitempty"`
	EventTypes []string        `json:"eventTypes,omitempty"`
}

// Match tells whether a transition of a job of kind k into status to, made by an event of type
// eventType, passes f. An unknown kind (the zero Kind) passes only a filter without kinds.
func (f Filter) Match(k domain.Kind, to domain.Status, eventType string) bool {
	return (len(f.Kinds) == 0 || slices.Contains(f.Kinds, k)) &&
		(len(f.Statuses) == 0 || slices.Contains(f.Statuses, to)) &&
		(len(f.EventTypes) == 0 || slices.Contains(f.EventTypes, eventType))
}

// TransitionEventTypes are the types of the events that change a job's status: the ones an
// endpoint can be sent, and the only ones a filter may name.
func TransitionEventTypes() []string {
	var out []string
	for _, e := range domain.EventPrototypes() {
		if _, changes := domain.StatusAfter(e); changes {
			out = append(out, e.EventType())
		}
	}
	slices.Sort(out)
	return out
}

// ParseFilter reads a filter from the names of kinds, statuses and event types, listing every
// one it does not know (field "filter.kinds[1]", say). Duplicates are dropped.
func ParseFilter(kinds, statuses, eventTypes []string) (Filter, []domain.FieldIssue) {
	var f Filter
	var issues []domain.FieldIssue
	for i, s := range kinds {
		k, err := domain.ParseKind(strings.TrimSpace(s))
		if err != nil {
			issues = append(issues, domain.FieldIssue{Field: fmt.Sprintf("filter.kinds[%d]", i),
				Issue: fmt.Sprintf("unknown kind %q (want input-proof, user-decrypt, public-decrypt or delegated-user-decrypt)", s)})
			continue
		}
		if !slices.Contains(f.Kinds, k) {
			f.Kinds = append(f.Kinds, k)
		}
	}
	for i, s := range statuses {
		st, err := domain.ParseStatus(strings.TrimSpace(s))
		if err != nil {
			names := make([]string, 0, domain.NumStatuses)
			for _, x := range domain.Statuses() {
				names = append(names, x.String())
			}
			issues = append(issues, domain.FieldIssue{Field: fmt.Sprintf("filter.statuses[%d]", i),
				Issue: fmt.Sprintf("unknown status %q (want one of %s)", s, strings.Join(names, ", "))})
			continue
		}
		if !slices.Contains(f.Statuses, st) {
			f.Statuses = append(f.Statuses, st)
		}
	}
	known := TransitionEventTypes()
	for i, s := range eventTypes {
		s = strings.TrimSpace(s)
		if !slices.Contains(known, s) {
			issues = append(issues, domain.FieldIssue{Field: fmt.Sprintf("filter.eventTypes[%d]", i),
				Issue: fmt.Sprintf("%q is not an event that changes a job's status (want one of %s)", s, strings.Join(known, ", "))})
			continue
		}
		if !slices.Contains(f.EventTypes, s) {
			f.EventTypes = append(f.EventTypes, s)
		}
	}
	return f, issues
}
