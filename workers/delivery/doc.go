// Package delivery delivers the log's transitions to the webhook endpoints registered through the
// admin API (package domain/webhook; README "Webhooks"). It is one more consumer of the log, like
// the projections (DESIGN section 13): each active endpoint has its own follower, which reads the
// log from the endpoint's checkpoint, turns each request event that changes a status into the
// transition GET /v1/transitions shows (projections.Transitions, with the exact status left, read
// from the job's stream when the follower meets the job mid-life), keeps those the endpoint's
// filter lets through and POSTs each, signed the Standard Webhooks way.
//
// # At least once, in order, never skipping
//
// A follower handles one record at a time, in the log's global order, and goes past a record
// only once it is delivered (a 2xx answer) or is not for this endpoint. A failed delivery is
// tried again, the same record, on the long-tail schedule (upstream.Schedule, capped at
// webhooks.retry_cap, jittered; a longer Retry-After the receiver asks for is honoured within the
// cap) until it succeeds, the endpoint is disabled, or the process stops: nothing after it is
// delivered meanwhile. So each job's transitions reach the endpoint in the order of its stream
// (the global order keeps it), and none is skipped.
//
// The checkpoint ("checkpoint-webhook-<id>", workers.Checkpoint) is saved after the deliveries it
// covers (throttled, and before a failing delivery starts waiting), never before: a crash loses
// at most the deliveries since the last save, which are made again: at least once. A receiver
// drops duplicates by webhook-id (domain/webhook.EventID: the same on every attempt, every
// instance, every restart).
//
// # Never on the engine's path
//
// The engine never waits for a delivery: the followers read the log on their own, with their own
// HTTP client and timeouts, and write nothing but their checkpoints and, when an endpoint has
// failed for webhooks.disable_after, its WebhookDisabled. A failure streak's start is saved with
// the checkpoint (workers.Checkpoint.MarkStuck) when it begins and cleared at the next success,
// so that a restart or another instance takes the streak up where it was. A slow or dead endpoint holds its own
// follower back, and no one else.
//
// # One instance at a time
//
// Alone on its log, an instance delivers to every endpoint. In a fleet (several instances on one
// log), the instance holding the lease "webhooks" (package lease) does, and its appends go
// through the lease's fenced store; when it loses the lease its followers stop, and the next
// holder resumes from the checkpoints: deliveries since the last save are made again, never
// skipped.
//
// # Server-side request forgery
//
// Unless webhooks.allow_private, every connection's address is checked as it is dialled
// (net.Dialer.Control): a loopback, private, link-local, multicast or unspecified address is
// refused, whatever the URL's host resolved to at registration (DNS rebinding). Redirects are not
// followed. No log line or event repeats an endpoint's URL beyond its scheme and host, nor a
// secret.
package delivery
