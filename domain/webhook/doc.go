// Package webhook is what a webhook endpoint is and how it may change, without any I/O: the
// events of the "webhooks" stream (an endpoint registered, its secret rotated, disabled, enabled,
// deleted), their fold into a Registry and the decisions that produce them, the filter of the
// transitions an endpoint hears about, its signing secrets and how they are kept in the log, the
// Standard Webhooks signature (https://www.standardwebhooks.com), the event id a delivery carries,
// and which network addresses an endpoint may have.
//
// The admin API (registration) and the delivery worker (workers/delivery) both stand on it: the
// first decides and appends, the second folds the stream and delivers.
//
// Secrets. An endpoint's secret ("whsec_" and base64 of 32 random bytes) must survive restarts, so
// it lives in the log; it must never be readable there, because the log is printed (relayer
// replay), copied (relayer migrate), backed up and read by operators. So it is sealed before it is
// appended: AES-256-GCM under the key of the webhooks.secret_key setting, the endpoint's id bound
// as additional data (a sealed secret copied to another endpoint does not open). Only the
// delivery worker opens it, to sign; the admin API shows a secret once, in the answer that
// created it. Whatever reads the log (replay, migrate, the audit endpoints, which do not read this
// stream anyway) sees ciphertext: no reader has to remember to redact.
//
// What it must never do: import anything of the project but domain, read a clock (commands carry
// their time) or a random source it was not handed, or put a secret, a sealing key or a URL's
// credentials in an error.
package webhook
