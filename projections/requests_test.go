package projections

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

func TestAJobsViewFollowsItsEvents(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.accept(domain.UserDecrypt, 0)
	h.toTx(id, time.Second)
	h.sign(id, 3*time.Second)
	tx := h.states[id].TxHash
	h.receipt(id, 4*time.Second)
	for i := range 3 {
		h.do(id, domain.RecordShare{At: h.at(5*time.Second + time.Duration(i)*time.Second), Threshold: 3,
			Share: domain.Share{Signer: "0x0" + string(rune('a'+i)), Payload: "0xbeef", Signature: "0x5151", ExtraData: "0x00"}})
	}

	j, ok := h.s.Job(id)
	if !ok {
		t.Fatal("job not found")
	}
	want := map[domain.Status]time.Duration{
		domain.Queued: 0, domain.Processing: 2 * time.Second, domain.TxInFlight: 3 * time.Second,
		domain.ReceiptReceived: 4 * time.Second, domain.Completed: 7 * time.Second,
	}
	for _, st := range domain.Statuses() {
		d, entered := want[st]
		if got := j.EnteredAt(st); entered != !got.IsZero() || (entered && !got.Equal(h.at(d).At)) {
			t.Errorf("entered %s at %v, want %v (entered: %v)", st, got, h.at(d).At, entered)
		}
	}
	if j.Kind != domain.UserDecrypt || j.Status != domain.Completed || j.TxHash != tx || j.GatewayRequestID != "42" ||
		j.Shares != 3 || j.Label != "" || j.Version != 8 || j.Position != 9 || !j.ReadinessCheckAt.Equal(h.at(time.Second).At) ||
		!j.Since().Equal(h.at(7*time.Second).At) || j.ContentHash != h.states[id].ContentHash {
		t.Fatalf("view %+v", j)
	}
	var r domain.Result
	if err := json.Unmarshal(j.Result, &r); err != nil || r.UserDecrypt == nil || len(r.UserDecrypt.Result) != 3 {
		t.Fatalf("result %s (%v)", j.Result, err)
	}
}

func TestAFailedOrTimedOutJobCarriesItsLabelAndMessage(t *testing.T) {
	h := newHarness(t, Config{})
	denied := h.accept(domain.PublicDecrypt, 0)
	h.do(denied, domain.FailReadiness{At: h.at(time.Second), Label: domain.LabelNotAllowedOnHostACL, Message: "not allowed"})
	late := h.accept(domain.PublicDecrypt, 0)
	h.do(late, domain.TimeOutReadiness{At: h.at(5 * time.Minute)})
	rejected := h.accept(domain.InputProof, 0)
	h.sign(rejected, time.Second)
	h.receipt(rejected, 2*time.Second)
	h.do(rejected, domain.RejectProof{At: h.at(3 * time.Second), ExtraData: "0x01"})
	reverted := h.accept(domain.InputProof, 0)
	h.sign(reverted, time.Second)
	tx := h.states[reverted].TxHash
	h.do(reverted, domain.FailTransaction{At: h.at(2 * time.Second), Label: domain.LabelTransactionReverted, Message: "execution reverted"})

	for _, c := range []struct {
		id             domain.JobID
		status         domain.Status
		label, message string
	}{
		{denied, domain.Failure, domain.LabelNotAllowedOnHostACL, "not allowed"},
		{late, domain.TimedOut, domain.LabelReadinessCheckTimedOut, ""},
		{rejected, domain.Failure, domain.LabelProofRejected, ""},
		{reverted, domain.Failure, domain.LabelTransactionReverted, "execution reverted"},
	} {
		j, _ := h.s.Job(c.id)
		if j.Status != c.status || j.Label != c.label || j.Message != c.message {
			t.Errorf("%s: %s %q %q, want %s %q %q", c.label, j.Status, j.Label, j.Message, c.status, c.label, c.message)
		}
	}
	j, _ := h.s.Job(rejected)
	var r domain.Result
	if err := json.Unmarshal(j.Result, &r); err != nil || r.InputProof == nil || r.InputProof.Accepted || r.InputProof.ExtraData != "0x01" {
		t.Fatalf("a rejected proof's result is %s (%v), want accepted:false", j.Result, err)
	}
	if j, _ := h.s.Job(reverted); j.TxHash != tx {
		t.Fatalf("a reverted job's tx hash is %q, want %q", j.TxHash, tx)
	}
}

func TestCountsMoveWithEveryTransition(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.accept(domain.UserDecrypt, 0)
	b := h.accept(domain.UserDecrypt, 0)
	p := h.accept(domain.InputProof, 0)
	c := h.s.Counts()
	if c.Of(domain.UserDecrypt, domain.Queued) != 2 || c.Of(domain.InputProof, domain.Processing) != 1 || c.InStatus(domain.Queued) != 2 {
		t.Fatalf("counts after three acceptances: %v", c)
	}
	h.toTx(a, time.Second)
	h.do(b, domain.Fail{At: h.at(time.Second), Label: domain.LabelInternalServerError})
	h.sign(p, time.Second)
	c = h.s.Counts()
	if c.Of(domain.UserDecrypt, domain.Queued) != 0 || c.Of(domain.UserDecrypt, domain.Processing) != 1 ||
		c.Of(domain.UserDecrypt, domain.Failure) != 1 || c.Of(domain.InputProof, domain.Processing) != 0 ||
		c.Of(domain.InputProof, domain.TxInFlight) != 1 {
		t.Fatalf("counts %v", c)
	}
	total := 0
	for _, st := range domain.Statuses() {
		total += c.InStatus(st)
	}
	if total != 3 || h.s.Jobs() != 3 {
		t.Fatalf("%d jobs counted, %d held, want 3", total, h.s.Jobs())
	}
}

func TestAJobKeepsItsContentHashAndAnUnknownJobIsNotFound(t *testing.T) {
	h := newHarness(t, Config{})
	hash := strings.Repeat("ab", 32)
	id := h.accept(domain.PublicDecrypt, 0, hash)
	if j, ok := h.s.Job(id); !ok || j.ContentHash != hash {
		t.Fatalf("job %+v, %v: want content hash %s", j, ok, hash)
	}
	if _, ok := h.s.Job(domain.NewJobID()); ok {
		t.Fatal("an unknown job was found")
	}
}

func TestAResetClearsTheTxHashUntilTheNextSignature(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.accept(domain.InputProof, 0)
	h.sign(id, time.Second)
	h.do(id, domain.ResetTransaction{At: h.at(2 * time.Second), Reason: "dropped"})
	if j, _ := h.s.Job(id); j.TxHash != "" || j.Status != domain.Processing || !j.Since().Equal(h.at(2*time.Second).At) {
		t.Fatalf("after a reset: %+v", j)
	}
	h.sign(id, 3*time.Second)
	if j, _ := h.s.Job(id); j.TxHash != h.states[id].TxHash || j.Version != eventstore.Version(3) {
		t.Fatalf("after the second signature: %+v", j)
	}
}

func TestAResetInputProofKeepsWhenItWasAcceptedAndARetryLastsItsStatus(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.accept(domain.InputProof, 0)
	h.do(id, domain.ScheduleRetry{At: h.at(time.Second), Step: "prepare", Attempt: 1, Reason: "transport error", NextAt: h.at(5 * time.Second).At})
	if j, _ := h.s.Job(id); !j.RetryAt.Equal(h.at(5 * time.Second).At) {
		t.Fatalf("retry at %v, want %v", j.RetryAt, h.at(5*time.Second).At)
	}
	h.do(id, domain.SignTransaction{At: h.at(2 * time.Second), From: "0xa1", Nonce: 1, TxHash: "0x01", RawTx: "0x02"})
	h.do(id, domain.ResetTransaction{At: h.at(3 * time.Second), Reason: "recovery"})
	j, _ := h.s.Job(id)
	if !j.RetryAt.IsZero() || !j.AcceptedAt.Equal(h.at(0).At) || !j.EnteredAt(domain.Processing).Equal(h.at(3*time.Second).At) ||
		!j.ReadinessCheckAt.IsZero() || !j.EnteredAt(domain.TxInFlight).Equal(h.at(2*time.Second).At) {
		t.Fatalf("after a retry, a signing and a reset: %+v", j)
	}
	h.do(id, domain.SignTransaction{At: h.at(4 * time.Second), From: "0xa1", Nonce: 1, TxHash: "0x03", RawTx: "0x04"})
	h.do(id, domain.ResetTransaction{At: h.at(6 * time.Second), Reason: "recovery"})
	if j, _ := h.s.Job(id); !j.AcceptedAt.Equal(h.at(0).At) || !j.EnteredAt(domain.Processing).Equal(h.at(6*time.Second).At) {
		t.Fatalf("after a second reset: accepted %v, in processing since %v", j.AcceptedAt, j.EnteredAt(domain.Processing))
	}
}
