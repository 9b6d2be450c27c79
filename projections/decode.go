package projections

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// The projections' own decoder.
//
// Rebuilding the read models means decoding every event ever written, and the codec's
// reflection-based decoding of a whole event (an accepted request carries its full payload) costs
// several microseconds an event, most of it on fields no read model keeps. decodeFast reads an
// event's JSON in one pass without reflection, takes the few fields the read models keep
// (without copying them: they point into the record), and only checks the syntax of the rest.
//
// It must read every field it keeps exactly as the codec would (encoding/json's rules: keys
// matched exactly or else case-insensitively, the last duplicate wins, null leaves a field as it
// was, strings with escapes or non-ASCII bytes unescaped by encoding/json itself). Whatever it is
// not sure of (a key with escapes, a schema version other than the one it knows, a type the
// codec registers at another version) it leaves to the codec. decode_test.go holds the two
// equal on every generated event and under fuzzing. The one difference: a value of the wrong
// JSON type in a field the projections do not keep (say, a nonce written as a string) passes
// here and fails the codec; Config.FullDecode checks those too.
//
// The decoder is where a replay checks that each event's data is JSON: the store checked it when
// it was appended and does not check it again on reads (eventstore.Store), so the decoder
// checks the syntax of every record's data once (with eventstore.CheckData for the records of
// other streams than a request's, which it does not parse) and reports data that is not JSON as
// a *eventstore.RecordError wrapping eventstore.ErrCorruptRecord, as the store did when it
// checked it.

// fastSchemaVersion is the schema version whose layout decodeFast knows.
const fastSchemaVersion = 1

// errNotFast reports a record decodeFast leaves to the codec.
var errNotFast = errors.New("left to the codec")

// decoder turns records into facts: with decodeFast where it can, else with the codec.
type decoder struct {
	codec *eventstore.Codec
	// full sends every record to the codec (Config.FullDecode).
	full bool
	// layoutKnown[t] says decodeFast knows how the codec writes type t now: at
	// fastSchemaVersion, so that no upcaster stands between the stored data and the event.
	layoutKnown [numEventTypes]bool
}

func newDecoder(codec *eventstore.Codec, full bool) *decoder {
	d := &decoder{codec: codec, full: full}
	for _, p := range domain.EventPrototypes() {
		// The zero kind and status do not encode.
		switch e := p.(type) {
		case domain.RequestAccepted:
			e.Kind, e.Status = domain.InputProof, domain.Processing
			p = e
		case domain.JobCancelled:
			e.From = domain.Processing
			p = e
		case domain.RetryRequested:
			e.From = domain.Processing
			p = e
		}
		ev, err := codec.Encode(p, eventstore.Metadata{})
		if err == nil && ev.SchemaVersion == fastSchemaVersion {
			d.layoutKnown[eventTypeOf(ev.Type)] = true
		}
	}
	return d
}

// isRequestStream reports whether a stream holds a request's events; the projections skip every
// other stream.
func isRequestStream(stream string) bool { return strings.HasPrefix(stream, domain.StreamPrefix) }

// decode fills f from rec. A record of another stream than a request's gives the fact evNone,
// once its data is known to be JSON. Every failure is a *eventstore.RecordError naming the
// record.
func (d *decoder) decode(rec *eventstore.Record, f *fact) error {
	if !isRequestStream(rec.Stream) {
		*f = fact{}
		return eventstore.CheckData(*rec)
	}
	if t := eventTypeOf(rec.Type); !d.full && d.layoutKnown[t] && rec.SchemaVersion == fastSchemaVersion {
		err := decodeFast(rec, t, f)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errNotFast) {
			return &eventstore.RecordError{Stream: rec.Stream, Version: rec.Version, Position: rec.Position,
				Err: fmt.Errorf("%w: decode %s: %v", eventstore.ErrCorruptRecord, rec.Type, err)}
		}
	}
	e, err := DecodeEvent(d.codec, *rec)
	if err != nil {
		return err
	}
	*f, err = d.factOf(rec, e)
	return err
}

// field numbers the JSON members decodeFast reads.
type field uint8

const (
	fJobID field = iota
	fAt
	fKind
	fStatus
	fContentHash
	fTxHash
	fGatewayRequestID
	fLabel
	fMessage
	fResult
	fExtraData
	fNextAt
	fRequest
	numFields
)

var fieldNames = [numFields]string{"jobId", "at", "kind", "status", "contentHash", "txHash", "gatewayRequestId", "label", "message", "result", "extraData", "nextAt", "request"}

// fieldsOf lists, per event type, the members decodeFast reads; every other member is skipped.
var fieldsOf = func() (m [numEventTypes][]field) {
	header := []field{fJobID, fAt}
	with := func(fs ...field) []field { return append(append([]field(nil), header...), fs...) }
	for t := evRequestAccepted; t < numEventTypes; t++ {
		m[t] = header
	}
	m[evRequestAccepted] = with(fKind, fStatus, fContentHash, fRequest)
	m[evReadinessFailed] = with(fLabel, fMessage)
	m[evTransactionSigned] = with(fTxHash)
	m[evTransactionReplaced] = with(fTxHash)
	m[evRetryScheduled] = with(fNextAt)
	m[evReceiptRecorded] = with(fTxHash, fGatewayRequestID)
	m[evTransactionFailed] = with(fTxHash, fLabel, fMessage)
	m[evRequestCompleted] = with(fResult)
	m[evProofRejected] = with(fExtraData)
	m[evRequestFailed] = with(fLabel, fMessage)
	m[evJobCancelled] = with(fLabel, fMessage)
	return m
}()

// decodeFast fills f from rec's data, an event of type t at fastSchemaVersion.
func decodeFast(rec *eventstore.Record, t eventType, f *fact) error {
	*f = fact{typ: t}
	b := rec.Data
	i := skipSpace(b, 0)
	if i == len(b) {
		return errors.New("no data")
	}
	if b[i] == 'n' {
		// JSON null decodes into a zero event, as with encoding/json.
		end, err := skipLiteral(b, i, "null")
		if err != nil {
			return err
		}
		return expectEnd(b, end)
	}
	if b[i] != '{' {
		return fmt.Errorf("want a JSON object at offset %d", i)
	}
	fields := fieldsOf[t]
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return expectEnd(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return fmt.Errorf("want a member name at offset %d", i)
		}
		end, plain, err := scanString(b, i)
		if err != nil {
			return err
		}
		if !plain {
			return errNotFast
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return fmt.Errorf("want ':' at offset %d", i)
		}
		i = skipSpace(b, i+1)
		start := i
		if i, err = skipValue(b, i, 0); err != nil {
			return err
		}
		if fl, ok := matchField(fields, key); ok {
			if err := f.set(fl, b[start:i]); err != nil {
				return fmt.Errorf("member %q: %w", key, err)
			}
		}
		var closed bool
		if i, closed, err = afterValue(b, i, '}'); err != nil {
			return err
		}
		if closed {
			return expectEnd(b, i)
		}
	}
}

// matchField finds key among fields as encoding/json does: an exact match, else one that
// differs only in case (Unicode simple folding, like bytes.EqualFold).
func matchField(fields []field, key []byte) (field, bool) {
	for _, fl := range fields {
		if string(key) == fieldNames[fl] {
			return fl, true
		}
	}
	for _, fl := range fields {
		if bytes.EqualFold(key, []byte(fieldNames[fl])) {
			return fl, true
		}
	}
	return 0, false
}

// set stores value v (one whole JSON value, already checked for syntax) in field fl.
func (f *fact) set(fl field, v []byte) error {
	if v[0] == 'n' {
		return nil // null leaves a field as it was
	}
	switch fl {
	case fAt, fNextAt:
		var t time.Time
		if err := t.UnmarshalJSON(v); err != nil {
			return err
		}
		if fl == fAt {
			f.at = unixNanos(domain.EventHeader{At: t})
		} else {
			f.nextAt = unixNanos(domain.EventHeader{At: t})
		}
		return nil
	case fResult:
		if v[0] != '{' {
			return errors.New("want a JSON object")
		}
		f.result = v
		return nil
	case fRequest:
		// encoding/json decodes a repeated request into what the first one left (payloads
		// merge): that is the codec's to read.
		if f.sawRequest {
			return errNotFast
		}
		f.sawRequest = true
		return f.setParties(v)
	}
	s, err := stringValue(v)
	if err != nil {
		return err
	}
	switch fl {
	case fJobID:
		id, err := parseJobID(s)
		if err != nil {
			return err
		}
		f.job = id
	case fKind:
		k, ok := kindNamed(s)
		if !ok {
			return fmt.Errorf("unknown request kind %q", s)
		}
		f.kind = k
	case fStatus:
		st, ok := statusNamed(s)
		if !ok {
			return fmt.Errorf("unknown status %q", s)
		}
		f.status = st
	case fContentHash:
		f.contentHash = s
	case fTxHash:
		f.txHash = s
	case fGatewayRequestID:
		f.gatewayRequestID = s
	case fLabel:
		f.label = s
	case fMessage:
		f.message = s
	case fExtraData:
		f.extraData = s
	}
	return nil
}

// stringValue returns the string a JSON string value holds. A plain one (ASCII, no escapes) is
// returned in place; any other is unescaped by encoding/json, so that escapes and invalid UTF-8
// come out exactly as the codec would have them.
func stringValue(v []byte) ([]byte, error) {
	if v[0] != '"' {
		return nil, errors.New("want a JSON string")
	}
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c == '\\' || c >= 0x80 {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, err
			}
			return []byte(s), nil
		}
	}
	return body, nil
}

func kindNamed(s []byte) (domain.Kind, bool) {
	for _, k := range domain.Kinds() {
		if string(s) == k.String() {
			return k, true
		}
	}
	return domain.Kind{}, false
}

func statusNamed(s []byte) (domain.Status, bool) {
	for _, st := range [...]domain.Status{domain.Queued, domain.Processing, domain.TxInFlight, domain.ReceiptReceived, domain.Completed, domain.TimedOut, domain.Failure} {
		if string(s) == st.String() {
			return st, true
		}
	}
	return domain.Status{}, false
}

// parseJobID reads a job id in the canonical 36-character form, as domain.ParseJobID does (hex
// digits of either case), without allocating.
func parseJobID(s []byte) (domain.JobID, error) {
	var id domain.JobID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, fmt.Errorf("job id %q: want a UUID", s)
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := hexValue(s[i])
		lo, ok2 := hexValue(s[i+1])
		if !ok1 || !ok2 {
			return domain.JobID{}, fmt.Errorf("job id %q: invalid hex", s)
		}
		id[j] = hi<<4 | lo
		j++
		i += 2
	}
	return id, nil
}

func hexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// The rest is a strict JSON syntax checker (RFC 8259, as encoding/json.Valid), used to skip
// values without decoding them.

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func expectEnd(b []byte, i int) error {
	if i = skipSpace(b, i); i != len(b) {
		return fmt.Errorf("data after the event at offset %d", i)
	}
	return nil
}

// scanString checks the string starting at b[i] (a quote) and returns the offset after its
// closing quote, and whether it is plain: ASCII without escapes, so its bytes are its value.
func scanString(b []byte, i int) (end int, plain bool, err error) {
	plain = true
	for i++; i < len(b); {
		// Most strings are long runs of hex digits: skip eight ordinary bytes at a time.
		for i+8 <= len(b) && !specialInWord(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, plain, nil
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return 0, false, errors.New("unexpected end of data in a string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, false, errors.New("unexpected end of data in a string")
				}
				for _, h := range b[i+2 : i+6] {
					if _, ok := hexValue(h); !ok {
						return 0, false, fmt.Errorf("invalid \\u escape at offset %d", i)
					}
				}
				i += 6
			default:
				return 0, false, fmt.Errorf("invalid escape at offset %d", i)
			}
		case c < 0x20:
			return 0, false, fmt.Errorf("control character in a string at offset %d", i)
		default:
			if c >= 0x80 {
				plain = false
			}
			i++
		}
	}
	return 0, false, errors.New("unexpected end of data in a string")
}

// specialInWord reports whether any of the eight bytes in x needs a look inside a string: a
// quote, a backslash, a control character or a non-ASCII byte. (A zero byte in v shows as the
// high bit of (v - 0x01..) &^ v; bytes below 0x20 likewise with 0x20.., and non-ASCII bytes have
// their own high bit set.)
func specialInWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	return ((quote-ones)&^quote|(backslash-ones)&^backslash|(x-ones*0x20)|x)&highs != 0
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, fmt.Errorf("invalid literal at offset %d", i)
	}
	return i + len(lit), nil
}

func skipNumber(b []byte, i int) (int, error) {
	start := i
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return 0, fmt.Errorf("invalid number at offset %d", start)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return 0, fmt.Errorf("invalid number at offset %d", start)
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return 0, fmt.Errorf("invalid number at offset %d", start)
		}
	}
	return i, nil
}

// afterValue reads what follows a member or an element, from b[i], in an object or an array
// that end closes: a ',' (next is where the next one starts) or end (closed, and next is just
// past it).
func afterValue(b []byte, i int, end byte) (next int, closed bool, err error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, false, errors.New("unexpected end of data")
	}
	switch b[i] {
	case ',':
		return skipSpace(b, i+1), false, nil
	case end:
		return i + 1, true, nil
	}
	return 0, false, fmt.Errorf("want ',' or '%c' at offset %d", end, i)
}

// skipValue checks the JSON value starting at b[i] and returns the offset after it.
func skipValue(b []byte, i int, depth int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("unexpected end of data")
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := scanString(b, i)
		return end, err
	case c == '{':
		if depth++; depth > maxDepth {
			return 0, errors.New("exceeded max depth")
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return 0, fmt.Errorf("want a member name at offset %d", i)
			}
			end, _, err := scanString(b, i)
			if err != nil {
				return 0, err
			}
			i = skipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return 0, fmt.Errorf("want ':' at offset %d", i)
			}
			if i, err = skipValue(b, skipSpace(b, i+1), depth); err != nil {
				return 0, err
			}
			var closed bool
			if i, closed, err = afterValue(b, i, '}'); err != nil || closed {
				return i, err
			}
		}
	case c == '[':
		if depth++; depth > maxDepth {
			return 0, errors.New("exceeded max depth")
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = skipValue(b, i, depth); err != nil {
				return 0, err
			}
			var closed bool
			if i, closed, err = afterValue(b, i, ']'); err != nil || closed {
				return i, err
			}
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	default:
		return 0, fmt.Errorf("invalid character %q at offset %d", c, i)
	}
}
