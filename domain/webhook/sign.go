package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The Standard Webhooks headers every delivery carries.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// eventNamespace makes EventID's UUIDs.
var eventNamespace = uuid.MustParse("8f2b6c1e-0d4a-5e3b-9c7f-2a1d4e6b8c90")

// EventID is the id of the event at version of stream, the webhook-id of its deliveries: a UUID
// (version 5) of the stream's name and the version, the same on every attempt and every instance,
// and across a copy of the log to another store (relayer migrate keeps streams and versions, not
// necessarily global positions). A receiver drops a delivery whose id it has seen.
func EventID(stream string, version int64) string {
	return uuid.NewSHA1(eventNamespace, []byte(stream+"@"+strconv.FormatInt(version, 10))).String()
}

// Sign is the Standard Webhooks signature of one delivery: "v1," and the base64 of the
// HMAC-SHA256, keyed by the secret's bytes (SecretKey), of "<id>.<unix seconds>.<body>".
func Sign(key []byte, id string, at time.Time, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write(strconv.AppendInt(nil, at.Unix(), 10))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// SignatureHeader is the webhook-signature header of a delivery signed with every one of keys
// (the current secret's, and during a rotation's overlap the previous one's): their signatures
// separated by spaces, any of which a receiver accepts.
func SignatureHeader(keys [][]byte, id string, at time.Time, body []byte) string {
	sigs := make([]string, len(keys))
	for i, k := range keys {
		sigs[i] = Sign(k, id, at, body)
	}
	return strings.Join(sigs, " ")
}
