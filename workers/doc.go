// Package workers is the foundation the relayer's workers stand on (DESIGN section 6): a
// Dispatcher that follows the event log from a durable checkpoint and publishes every request
// event to watermill topics, a Router that runs handlers with recovery, retries with backoff,
// correlation ids and a poison (dead-letter) topic, the Transport that carries the messages
// (in-process GoChannel by default; NATS JetStream later) and Checkpoints kept in the event
// store itself.
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
package workers
