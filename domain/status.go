package domain

import "fmt"

// Status is where a request is in its lifecycle. Like Kind it is closed; the zero Status means
// "no request yet" (a stream with no events).
type Status struct{ s uint8 }

var (
	Queued          = Status{1}
	Processing      = Status{2}
	TxInFlight      = Status{3}
	ReceiptReceived = Status{4}
	Completed       = Status{5}
	TimedOut        = Status{6}
	Failure         = Status{7}
)

var statusNames = [...]string{"", "queued", "processing", "tx_in_flight", "receipt_received", "completed", "timed_out", "failure"}

// NumStatuses is the number of statuses; Ordinal values run from 0 to NumStatuses-1.
const NumStatuses = 7

// Statuses lists every status in lifecycle order.
func Statuses() []Status {
	return []Status{Queued, Processing, TxInFlight, ReceiptReceived, Completed, TimedOut, Failure}
}

// ParseStatus reads a status's name ("queued", "tx_in_flight", ...).
func ParseStatus(s string) (Status, error) {
	for i := 1; i < len(statusNames); i++ {
		if statusNames[i] == s {
			return Status{uint8(i)}, nil
		}
	}
	return Status{}, fmt.Errorf("unknown status %q", s)
}

func (s Status) String() string {
	if s.s != 0 && int(s.s) < len(statusNames) {
		return statusNames[s.s]
	}
	return "none"
}

// IsZero reports whether s is the zero Status (no request).
func (s Status) IsZero() bool { return s.s == 0 }

// Ordinal is 0..NumStatuses-1 in lifecycle order; -1 for the zero Status.
func (s Status) Ordinal() int { return int(s.s) - 1 }

// Terminal reports whether no transition may leave s.
func (s Status) Terminal() bool { return s == Completed || s == TimedOut || s == Failure }

func (s Status) MarshalText() ([]byte, error) {
	if s.IsZero() {
		return nil, fmt.Errorf("marshal zero status")
	}
	return []byte(s.String()), nil
}

func (s *Status) UnmarshalText(b []byte) error {
	v, err := ParseStatus(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
