// Package projections folds the event log into the read models every query answers from
// (DESIGN section 5), in memory:
//
//   - requests: per job its kind, status, when it entered each status, content hash, tx hash,
//     gateway request id, result or failure label, share count, stream version and position;
//     counts by kind and status, and transitions by kind and status entered.
//   - queues: the readiness queue, readiness in progress and the TX queue, each in arrival order,
//     with a job's own position (jobs ahead of it) in O(log n).
//   - timers: per waiting job the time it entered its status (E) and its stage's deadline, and the
//     deadlines due by a given time, earliest first.
//   - stats: drain rates of the queues and durations of each stage per kind, from event times.
//
// A Set holds the four and applies each event once, in the log's order, to all of them. Of the
// other streams it follows two: the gateway chain's (while an outage lasts no deadline falls
// due, and after it the deadlines move by the time each job waited through it) and the signing
// keys' (which keys the balance guard has paused); the rest it only signals (NotifyStream). Its
// checkpoint is the position of the last event applied. Set.Run follows the log (catch up, then
// live), Rebuild replays it from position 0, and Set.Snapshot writes every read model as
// canonical JSON, so that a live Set and a rebuild can be compared byte for byte: the read models
// depend on the events alone (times come from the events, never from the clock).
//
// The package also holds the codec of the domain's events (NewCodec), Transitions (the log's
// request events as status transitions, the shape GET /v1/transitions and the webhooks send),
// and the Executor, the one way a command changes a request: it loads the job's stream,
// decides, and appends the events with the stream's expected version. Beside it, the Submitter
// is the submission command's one handler (admission, idempotency by content hash and
// generation, load shedding, the acceptance through the Executor); the chain checks of admission
// come in through its ChainChecks port. Every append the package makes goes through the
// Executor; the Executor and the Submitter sit here, beside the read models, so that the API,
// the workers and `relayer demo` share them without importing each other.
//
// The read models never write to the log and never skip an event (a record they cannot read
// stops them with an error naming it). The package never imports workers or api.
package projections
