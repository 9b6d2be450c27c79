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
// A Set holds the four and applies each event once, in the log's order, to all of them; its
// checkpoint is the position of the last event applied. Set.Run follows the log (catch up, then
// live), Rebuild replays it from position 0, and Set.Snapshot writes every read model as
// canonical JSON, so that a live Set and a rebuild can be compared byte for byte: the read models
// depend on the events alone (times come from the events, never from the clock).
//
// The package also holds the codec of the domain's events (NewCodec) and the Executor, the one
// way a command changes a request.
//
// Projections never write to the log, never skip an event (a record they cannot read stops them
// with an error naming it) and never import workers or api.
package projections
