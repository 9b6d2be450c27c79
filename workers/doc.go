// Package workers is the relayer's engine (DESIGN section 6): it drives every accepted job to a
// terminal state on the gateway chain. Engine (New, Run) joins
//
//   - a Dispatcher that follows the event log from a durable checkpoint and publishes every
//     request event to watermill topics, with a Router that runs the handlers with recovery,
//     retries with backoff, correlation ids and a poison (dead-letter) topic; poisoned messages
//     are counted (relayer_poisoned_messages_total) and recorded in the log's "poison" stream,
//     which GET /v1/transitions shows as "poison" events;
//   - the readiness worker (decrypts): at most C checks at once (readiness_max_concurrency), host
//     ACL then gateway readiness polled until ready or the readiness deadline; jobs are picked,
//     and their picks recorded, in order of acceptance, the readiness queue's order;
//   - the transaction worker: at most D starts per second per kind (*_throttler_tps, an exact
//     sliding window), TransactionSigned with the raw bytes before the broadcast, the receipt
//     recorded with the gateway request id; reverts, pauses and exhausted retries fail the job
//     with the label the API maps;
//   - the responses worker: the gateway's response logs from a block cursor kept in the log,
//     published on TopicGatewayResponses and matched to jobs by gateway request id; responses
//     that come before the job's receipt is recorded are kept (and the cursor held before them)
//     until it is;
//   - the timeouts worker: the readiness, processing and response deadlines from the timers
//     projection; a job past its tx_in_flight deadline is not failed but has its recorded bytes
//     sent again until they are mined or another transaction takes the nonce;
//   - recovery at start: re-dispatch by status; a tx_in_flight job's recorded bytes are looked
//     up and sent again, never re-signed, so no job ever has two gateway requests;
//   - beside them, the signing key's upkeep: the balance guard pauses the key before its balance
//     runs out and resumes it (SignerPaused, SignerResumed in the key's stream), the nonce
//     check heals the key's nonce sequence (NonceCorrected), and the chain's outages are
//     recorded in the chain stream, where the projections stop the deadlines while one lasts.
//
// Beside the engine, RateLimitRecorder is the upstream.Sink serve gives the gateway adapter: the
// rate limits its JSON-RPC calls meet are counted (relayer_upstream_ratelimit_*) and recorded in
// the log's "ratelimit" stream, which GET /v1/transitions shows as "ratelimit" events. It never
// holds a call up: a full buffer drops (and counts) the event. The webhook deliveries (package
// workers/delivery) run beside the engine too, on their own followers of the log.
//
// C and D are read from the Retry-After policy in force (Deps.Tuning), so the admin API changes
// them at run time and the hints clients get follow the pace the workers keep. Every step is a
// command through the projections' Executor, appended with the stream's expected version: a
// duplicate delivery, a timeout racing a completion or two workers on one job lose the race and
// change nothing.
//
// # Topics
//
// Every event of a request stream ("request-<jobId>") is published to EventTopic(type), e.g.
// "events.RequestAccepted"; events that change a job's status are also published to
// TopicTransitions. Messages that a handler could not process after all retries go to
// TopicPoison, with the original metadata plus watermill's reason_poisoned, topic_poisoned and
// handler_poisoned keys; Router.Poisoned counts them for metrics.
//
// # Delivery: at least once
//
// The dispatcher advances its checkpoint only after Publish returned. After a restart it
// re-publishes everything after the last saved checkpoint, so a handler may see an event again
// (saves are throttled: up to CheckpointConfig.Every events or Interval of work is repeated).
// Handlers must therefore be idempotent; the relayer's are, because they append with the
// stream's expected version and a duplicate loses that race and is acknowledged without effect.
// A message's UUID is derived from the event's position (MessageUUID), so a re-published event
// is recognisably the same message.
//
// # GoChannel and ordering of start-up
//
// The GoChannel transport is not persistent: a message published to a topic that has no
// subscriber yet is dropped. Start the router first, wait for Router.Running, and only then
// start the dispatcher. By default Publish blocks until every subscriber acknowledged the
// message (GoChannelConfig.FireAndForget false), so a checkpoint never covers an event that a
// handler has not finished with (handled, or parked on the poison topic). The price is that
// the dispatcher goes at the pace of the slowest handler, retries included: handlers must hand
// long work (readiness polling, waiting for receipts) to their own goroutines and acknowledge
// quickly. With FireAndForget the checkpoint may run ahead of the handlers and a crash loses
// the in-flight events; the workers' recovery at start (re-dispatch by status) then covers them.
//
// # NATS JetStream
//
// The nats transport (NATSConfig) carries the same messages through one JetStream stream per
// prefix, with one durable consumer per topic shared by every instance: each message is handled
// by one subscriber, acknowledged only once its handler succeeded, and redelivered to any of
// them after AckWait when its subscriber died. Publish returns once the server stored the
// message, so a checkpoint never loses an event, but the dispatcher is no longer held to the
// handlers' pace, and order holds only per topic and per instance. The engine does not run on
// it (ErrEngineNotOnNATS): the responses worker moves its block cursor once Publish returns,
// which on GoChannel means its handler kept the responses; a fleet shares the work through the
// keys' leases instead (see Several instances).
//
// # Several instances
//
// Instances sharing a store run the engine through a Leader (FleetConfig). With one signing key,
// the whole engine runs on one instance at a time, the holder of the engine lease (package
// lease), over the lease term's fenced store; the others wait and take over when the holder
// stops renewing. With several keys, the jobs are split over the keys by job id and each key's
// engine runs under that key's own lease, on whichever instance holds it, with its share of C
// and D. An engine's messages stay in its holder's process (GoChannel): the fleet spreads work
// by keys under leases, not by durable consumers, and a new holder takes up its key's jobs by
// recovery from the projections, so nothing waits in a transport.
package workers
