package workers

import (
	"encoding/json"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"relayer/workers/gateway"
)

// A listener resuming from an old cursor reads hundreds of blocks at once: their responses go in
// several messages, each under the bound (NATS refuses a message above its max_payload), in
// order, with distinct ids, and a restart reads from the range's first block.
func TestALargeBatchOfResponsesIsSplitIntoBoundedMessages(t *testing.T) {
	b := gateway.Batch{From: 286, To: 1005}
	for i := range 400 {
		b.Events = append(b.Events, gateway.Event{
			Type: gateway.UserDecryptionResponse, RequestID: big.NewInt(int64(i)), BlockNumber: 286 + uint64(i),
			BlockHash: common.BigToHash(big.NewInt(int64(i))), LogIndex: uint(i % 3),
			UserDecryptionShare: &gateway.UserDecryptionShare{Share: make([]byte, 2000), Signature: make([]byte, 65)},
		})
	}
	const limit = 64 << 10
	msgs, err := responsesMessages(b, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) < 2 {
		t.Fatalf("%d messages for about 1 MB of responses under a %d-byte bound", len(msgs), limit)
	}
	var all []gateway.Event
	var ids []string
	for _, m := range msgs {
		if len(m.msg.Payload) > limit {
			t.Errorf("a message of %d bytes, above the bound %d", len(m.msg.Payload), limit)
		}
		if m.from != b.From {
			t.Errorf("a message resumes at block %d, want the range's first %d", m.from, b.From)
		}
		var evs []gateway.Event
		if err := json.Unmarshal(m.msg.Payload, &evs); err != nil {
			t.Fatalf("a message's payload does not decode as the handler reads it: %v", err)
		}
		all = append(all, evs...)
		ids = append(ids, m.msg.UUID)
	}
	if len(all) != len(b.Events) {
		t.Fatalf("%d events in the messages, want %d", len(all), len(b.Events))
	}
	for i := range all {
		if all[i].RequestID.Cmp(b.Events[i].RequestID) != 0 || all[i].BlockNumber != b.Events[i].BlockNumber {
			t.Fatalf("event %d out of order: request %s block %d", i, all[i].RequestID, all[i].BlockNumber)
		}
	}
	slices.Sort(ids)
	if len(slices.Compact(ids)) != len(msgs) {
		t.Error("two messages of the batch have one id")
	}

	// A small batch is one message whose payload is the events' JSON array, as before.
	small := gateway.Batch{From: 7, To: 7, Events: b.Events[:2]}
	msgs, err = responsesMessages(small, maxResponsesPayload)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("a small batch: %d messages, %v", len(msgs), err)
	}
	want, _ := json.Marshal(small.Events)
	if string(msgs[0].msg.Payload) != string(want) {
		t.Error("a small batch's payload differs from the events' JSON array")
	}
}
