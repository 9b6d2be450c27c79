package projections

import (
	"fmt"
	"slices"

	"relayer/domain"
	"relayer/domain/webhook"
	"relayer/eventstore"
)

// NewCodec returns the codec for every domain event, and the system events (configuration
// changes, poisoned messages, chain outages, upstream rate limits, webhook endpoints), at their
// current schema versions. It is the one place domain events meet the store's encoding; workers, the API and
// the commands all use it.
func NewCodec() *eventstore.Codec {
	c := eventstore.NewCodec()
	for _, register := range []func(*eventstore.Codec, int) error{
		eventstore.Register[domain.RequestAccepted],
		eventstore.Register[domain.ReadinessCheckStarted],
		eventstore.Register[domain.ReadinessPassed],
		eventstore.Register[domain.ReadinessTimedOut],
		eventstore.Register[domain.ReadinessFailed],
		eventstore.Register[domain.TransactionSigned],
		eventstore.Register[domain.TransactionReset],
		eventstore.Register[domain.TransactionReplaced],
		eventstore.Register[domain.RetryScheduled],
		eventstore.Register[domain.ReceiptRecorded],
		eventstore.Register[domain.TransactionFailed],
		eventstore.Register[domain.ShareReceived],
		eventstore.Register[domain.RequestCompleted],
		eventstore.Register[domain.ProofRejected],
		eventstore.Register[domain.ResponseTimedOut],
		eventstore.Register[domain.RequestFailed],
		eventstore.Register[domain.JobCancelled],
		eventstore.Register[domain.CancelRequested],
		eventstore.Register[domain.RetryRequested],
		eventstore.Register[domain.JobRetried],
	} {
		if err := register(c, 1); err != nil {
			panic(fmt.Sprintf("projections codec: %v", err)) // a programming error, caught by every test
		}
	}
	// The system events: not domain.Events, they live in streams the projections skip.
	system := []func(*eventstore.Codec, int) error{
		eventstore.Register[domain.ConfigChanged],
		eventstore.Register[domain.ArchiveAdvanced],
		eventstore.Register[domain.JobsRetired],
		eventstore.Register[domain.HistoryCarried],
		eventstore.Register[domain.MessagePoisoned],
		eventstore.Register[domain.ChainOutageStarted],
		eventstore.Register[domain.ChainOutageEnded],
		eventstore.Register[domain.SignerPaused],
		eventstore.Register[domain.NonceCorrected],
		eventstore.Register[domain.SignerResumed],
		eventstore.Register[domain.RateLimitEncountered],
		eventstore.Register[domain.RateLimitBackoff],
		eventstore.Register[domain.RateLimitRecovered],
		eventstore.Register[domain.RateLimitGaveUp],
		eventstore.Register[webhook.Registered],
		eventstore.Register[webhook.SecretRotated],
		eventstore.Register[webhook.Disabled],
		eventstore.Register[webhook.Enabled],
		eventstore.Register[webhook.Deleted],
	}
	for _, register := range system {
		if err := register(c, 1); err != nil {
			panic(fmt.Sprintf("projections codec: %v", err))
		}
	}
	if len(c.Types()) != len(domain.EventPrototypes())+len(system) {
		panic("projections codec: the domain has events the codec does not register")
	}
	for _, e := range webhook.EventPrototypes() {
		if !slices.Contains(c.Types(), e.EventType()) {
			panic("projections codec: the webhooks stream has events the codec does not register")
		}
	}
	return c
}

// DecodeEvent decodes a record into a domain event with codec c.
func DecodeEvent(c *eventstore.Codec, r eventstore.Record) (domain.Event, error) {
	v, err := c.Decode(r)
	if err != nil {
		return nil, err
	}
	e, ok := v.(domain.Event)
	if !ok {
		return nil, &eventstore.RecordError{Stream: r.Stream, Version: r.Version, Position: r.Position, Err: fmt.Errorf("%w: %s is not a domain event", eventstore.ErrUnknownEventType, r.Type)}
	}
	return e, nil
}
