package projections

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"relayer/domain"
	"relayer/eventstore"
)

// sampleRecords returns the records of a generated history of n jobs, as a store would hold them.
func sampleRecords(tb testing.TB, seed uint64, n int) []eventstore.Record {
	tb.Helper()
	var recs []eventstore.Record
	eachRecord(tb, newGenerator(seed, genOptions{jobs: n, active: 40, sameHash: 0.1}), func(rec eventstore.Record) {
		recs = append(recs, rec)
	})
	return recs
}

// codecFact decodes rec with the codec alone.
func codecFact(rec *eventstore.Record) (fact, error) {
	d := newDecoder(NewCodec(), true)
	var f fact
	err := d.decode(rec, &f)
	return f, err
}

// decodeBoth decodes rec with the projections' decoder (got) and with the codec alone (want),
// failing the test when either refuses it.
func decodeBoth(t *testing.T, rec *eventstore.Record) (got, want fact) {
	t.Helper()
	want, err := codecFact(rec)
	if err != nil {
		t.Fatalf("codec: %v", err)
	}
	if err := newDecoder(NewCodec(), false).decode(rec, &got); err != nil {
		t.Fatalf("projections: %v", err)
	}
	return got, want
}

// sameFact reports whether a and b hold the same fields.
func sameFact(a, b fact) bool {
	return a.typ == b.typ && a.job == b.job && a.at == b.at && a.kind == b.kind && a.status == b.status &&
		bytes.Equal(a.contentHash, b.contentHash) && bytes.Equal(a.txHash, b.txHash) &&
		bytes.Equal(a.gatewayRequestID, b.gatewayRequestID) && bytes.Equal(a.label, b.label) &&
		bytes.Equal(a.message, b.message) && bytes.Equal(a.result, b.result) && bytes.Equal(a.extraData, b.extraData) &&
		bytes.Equal(a.users, b.users) && bytes.Equal(a.contracts, b.contracts)
}

func TestTheProjectionsDecoderReadsEveryGeneratedEventAsTheCodecDoes(t *testing.T) {
	fast := newDecoder(NewCodec(), false)
	seen := map[string]bool{}
	for _, rec := range sampleRecords(t, 11, 400) {
		var f fact
		if err := decodeFast(&rec, eventTypeOf(rec.Type), &f); err != nil {
			t.Fatalf("%s: the fast path refused a record the codec wrote: %v", rec.Type, err)
		}
		if err := fast.decode(&rec, &f); err != nil {
			t.Fatal(err)
		}
		want, err := codecFact(&rec)
		if err != nil {
			t.Fatal(err)
		}
		if !sameFact(f, want) {
			t.Fatalf("%s %s: fast %+v\ncodec %+v", rec.Type, rec.Data, f, want)
		}
		seen[rec.Type] = true
	}
	for _, p := range domain.EventPrototypes() {
		if !seen[p.EventType()] {
			t.Errorf("the generated history has no %s", p.EventType())
		}
	}
}

func TestTheProjectionsDecoderFollowsEncodingJSONOnOddButValidInput(t *testing.T) {
	id := "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"
	for _, c := range []struct{ name, typ, data string }{
		{"keys in another case", "ReadinessFailed", `{"JOBID":"` + id + `","AT":"2026-03-01T12:00:00Z","Label":"x","MESSAGE":"m"}`},
		{"the last duplicate wins", "ReadinessFailed", `{"jobId":"` + id + `","label":"a","label":"b","at":"2026-03-01T12:00:00+02:00"}`},
		{"null leaves a field as it was", "ReadinessFailed", `{"jobId":"` + id + `","label":"a","label":null}`},
		{"escapes in values", "RequestFailed", `{"jobId":"\u0030b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11","label":"\u00e9\n\"","message":"\ud83d\ude00"}`},
		{"invalid UTF-8 in a value", "RequestFailed", "{\"jobId\":\"" + id + "\",\"label\":\"a\xffb\"}"},
		{"an escaped key goes to the codec", "RequestFailed", `{"jobI\u0064":"` + id + `","label":"x"}`},
		{"unknown members are skipped", "TransactionSigned", `{"jobId":"` + id + `","extra":[1,{"a":[true,false,null,-1.5e+3]}],"txHash":"0xab","nonce":3}`},
		{"upper-case hex in a job id", "ReadinessPassed", `{"jobId":"0B8AD7A4-2F0E-4C4F-9D7E-5A1D3C0E9F11"}`},
		{"whitespace everywhere", "RequestAccepted", " {\n\t\"kind\" : \"user-decrypt\" , \"status\":\"queued\",\"contentHash\":\"ab\"\r} \n"},
		{"a null event", "ReadinessPassed", `null`},
		{"an empty object", "ReadinessPassed", `{}`},
		{"a result kept as stored", "RequestCompleted", `{"jobId":"` + id + `","result":{"publicDecrypt":{"decryptedValue":"0x01","signatures":[],"extraData":"0x00"}}}`},
		{"a null result", "RequestCompleted", `{"jobId":"` + id + `","result":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := eventstore.Record{Stream: "request-" + id, Type: c.typ, SchemaVersion: 1, Data: []byte(c.data)}
			if got, want := decodeBoth(t, &rec); !sameFact(got, want) {
				t.Fatalf("projections %+v\ncodec %+v", got, want)
			}
		})
	}
}

func TestACorruptRecordFailsTheProjectionsDecoderWithAnErrorNamingIt(t *testing.T) {
	id := "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"
	for _, c := range []struct{ name, typ, data string }{
		{"truncated", "ReadinessPassed", `{"jobId":"` + id},
		{"not JSON", "ReadinessPassed", `garbage`},
		{"trailing data", "ReadinessPassed", `{"jobId":"` + id + `"} x`},
		{"a bad job id", "ReadinessPassed", `{"jobId":"not-a-uuid"}`},
		{"a number for a string", "ReadinessFailed", `{"jobId":"` + id + `","label":5}`},
		{"a bad time", "ReadinessPassed", `{"jobId":"` + id + `","at":"yesterday"}`},
		{"an unknown kind", "RequestAccepted", `{"jobId":"` + id + `","kind":"teleport"}`},
		{"an unknown status", "RequestAccepted", `{"jobId":"` + id + `","status":"sleeping"}`},
		{"a result that is not an object", "RequestCompleted", `{"jobId":"` + id + `","result":[1]}`},
		{"a control character in a string", "ReadinessPassed", "{\"jobId\":\"a\x01\"}"},
		{"a bad escape in a skipped value", "TransactionSigned", `{"jobId":"` + id + `","rawTx":"\x"}`},
		{"a bad number in a skipped value", "TransactionSigned", `{"jobId":"` + id + `","nonce":01}`},
		{"an unknown type", "Teleported", `{}`},
		{"a newer schema version", "ReadinessPassed", `{}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := eventstore.Record{Stream: "request-" + id, Version: 4, Position: 9, Type: c.typ, SchemaVersion: 1, Data: []byte(c.data)}
			if c.name == "a newer schema version" {
				rec.SchemaVersion = 2
			}
			var f fact
			err := newDecoder(NewCodec(), false).decode(&rec, &f)
			var re *eventstore.RecordError
			if !errors.As(err, &re) || re.Stream != rec.Stream || re.Version != 4 || re.Position != 9 {
				t.Fatalf("got %v, want a *eventstore.RecordError naming %s@4", err, rec.Stream)
			}
			if _, cerr := codecFact(&rec); cerr == nil {
				t.Fatalf("the codec accepts what the projections refuse (%v)", err)
			}
		})
	}
}

func TestTheProjectionsDecoderSkipsRecordsOfOtherStreams(t *testing.T) {
	rec := eventstore.Record{Stream: "config", Type: "ConfigChanged", SchemaVersion: 1, Data: []byte(`{"x":1}`)}
	f := fact{typ: evRequestAccepted}
	if err := newDecoder(NewCodec(), false).decode(&rec, &f); err != nil || f.typ != evNone {
		t.Fatalf("got %+v, %v; want a skipped record", f, err)
	}
}

// The store checks data when it is appended and not again on reads: the decoder is a replay's
// check, for the records it skips as for those it reads.
func TestTheProjectionsDecoderRefusesDataThatIsNotJSONInTheStreamsItSkips(t *testing.T) {
	for _, data := range []string{``, `{"x":`, `{"x":1} x`, `garbage`} {
		rec := eventstore.Record{Stream: "config", Version: 2, Position: 7, Type: "ConfigChanged", SchemaVersion: 1, Data: []byte(data)}
		var f fact
		err := newDecoder(NewCodec(), false).decode(&rec, &f)
		var re *eventstore.RecordError
		if !errors.As(err, &re) || !errors.Is(err, eventstore.ErrCorruptRecord) || re.Stream != "config" || re.Version != 2 || re.Position != 7 {
			t.Fatalf("%q: got %v, want a *eventstore.RecordError wrapping ErrCorruptRecord naming config@2", data, err)
		}
	}
}

func TestTheEventTablesMatchTheDomain(t *testing.T) {
	codec := NewCodec()
	d := newDecoder(codec, false)
	for _, p := range domain.EventPrototypes() {
		typ := eventTypeOf(p.EventType())
		if typ == evNone {
			t.Fatalf("%s has no event type in the projections", p.EventType())
		}
		want, changes := domain.StatusAfter(p)
		if a, ok := p.(domain.RequestAccepted); ok {
			_ = a
			continue // its status is in the event
		}
		if got := statusAfter[typ]; changes != !got.IsZero() || (changes && got != want) {
			t.Errorf("%s: the projections move to %v, the domain to %v (%v)", p.EventType(), got, want, changes)
		}
		if !d.layoutKnown[typ] {
			t.Errorf("%s: the codec writes it at a schema version the projections' decoder does not know", p.EventType())
		}
	}
}

// FuzzTheProjectionsDecoderAgreesWithTheCodec: whatever the data, when the codec decodes a
// record the projections' decoder gives the same fact, and when the projections' decoder refuses
// one the codec refuses it too.
func FuzzTheProjectionsDecoderAgreesWithTheCodec(f *testing.F) {
	for _, rec := range sampleRecords(f, 12, 30) {
		f.Add(rec.Type, []byte(rec.Data))
	}
	f.Add("ReadinessFailed", []byte(`{"Label":"a","label":null,"JOBID":"0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"}`))
	codec := NewCodec()
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		rec := eventstore.Record{Stream: "request-0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11", Type: typ, SchemaVersion: 1, Data: data}
		var got fact
		ferr := newDecoder(codec, false).decode(&rec, &got)
		want, cerr := codecFact(&rec)
		switch {
		case cerr == nil && ferr != nil:
			t.Fatalf("the codec reads %s %q, the projections refuse it: %v", typ, data, ferr)
		case cerr == nil && !sameFact(got, want):
			t.Fatalf("%s %q: projections %+v, codec %+v", typ, data, got, want)
		}
	})
}

func FuzzTheSyntaxCheckAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2]`, `"a\u00e9"`, `-0.5e+10`, `01`, `{"a":}`, `[1,]`, `"\x"`, `nul`, "\"\x01\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		i := skipSpace(data, 0)
		end, err := skipValue(data, i, 0)
		ok := err == nil && skipSpace(data, end) == len(data)
		if ok != json.Valid(data) {
			t.Fatalf("%q: the syntax check says %v (%v), json.Valid %v", data, ok, err, json.Valid(data))
		}
	})
}

func FuzzPackedTextUnpacksToWhatWasPacked(f *testing.F) {
	for _, s := range []string{"", "0x", "0xdeadbeefcafebabe", "DEADBEEF", "abc", "0123456789abcdef0", "x" + string(make([]byte, 300)),
		"0x0x", `"}}"}}`, "proof_rejectedproof_rejected", `{"inputProof":{"accepted":true,"handles":["0xabcdef0123456789"],"signatures":["0x1234abcd5678ef90","0x1"],"extraData":"0x00"}}`,
		`{"userDecrypt":{"result":[{"payload":"0xabcdef0123","signature":"0xabcdef01","extraData":"0x00"},{"payload":"0x","signature":"0x","extraData":"0x0"}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		p := packText(nil, s)
		if got := unpackText(nil, string(p)); !bytes.Equal(got, s) {
			t.Fatalf("%q packed to %x unpacks to %q", s, p, got)
		}
		if len(p) > len(s)+len(s)/maxSegment+1 {
			t.Fatalf("%q packed to %d bytes", s, len(p))
		}
	})
}

func TestEveryTokenHasAHeaderByteAndPacksToIt(t *testing.T) {
	if tokenBase+len(tokens) > hexFlag {
		t.Fatalf("%d tokens, room for %d", len(tokens), hexFlag-tokenBase)
	}
	for i, tok := range tokens {
		if p := packText(nil, []byte(tok)); len(p) != 1 || p[0] != tokenBase+byte(i) {
			t.Errorf("token %q packs to %x", tok, p)
		}
	}
}

func TestATextFieldKeepsItsValueWhateverTheOthersHold(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var j job
	var want [numTextFields]string
	var scratch []byte
	for range 2000 {
		f := textField(rng.IntN(int(numTextFields)))
		v := make([]byte, []int{0, 0, 3, 40, 130, 300}[rng.IntN(6)])
		for i := range v {
			v[i] = "0123456789abcdefx,\"\xe2"[rng.IntN(20)]
		}
		scratch = j.setField(f, v, scratch)
		want[f] = string(v)
		for g := range numTextFields {
			if got := unpackString(j.field(g)); got != want[g] {
				t.Fatalf("after setting field %d, field %d holds %q, want %q", f, g, got, want[g])
			}
		}
	}
}

func TestAContentHashIsKeptAsItWasGiven(t *testing.T) {
	for _, h := range []string{"", "2b846f701648c8b6b7646816f9f9af57575957518e7bfb85f70d2b416520aeef",
		"2B846F701648C8B6B7646816F9F9AF57575957518E7BFB85F70D2B416520AEEF", "0xh", "2b846f70"} {
		var j job
		j.setContentHash([]byte(h), nil)
		if got := string(j.appendContentHash(nil)); got != h {
			t.Errorf("content hash %q kept as %q", h, got)
		}
		if h != "" && !contentHashQuery(h).matches(&j) || contentHashQuery(h+"0").matches(&j) {
			t.Errorf("content hash %q: a search for it does not find it, or one for another does", h)
		}
	}
}

func FuzzJSONStringsAreEscapedAsEncodingJSONDoes(f *testing.F) {
	for _, s := range []string{"", "plain", "\"quoted\" \\ <html> & \u2028\u2029", "\x00\x1f\t\n\r\b\f", "é😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip("only strings decoded from JSON reach appendJSONString, and they are valid UTF-8")
		}
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Fatalf("%q: wrote %s, encoding/json writes %s", s, got, want)
		}
	})
}
