package domain

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// An operator's cancel of a job in tx_in_flight is a request raced on chain: only a job with a
// request gets a no-op, only no-ops replace a no-op, the no-op's receipt is no gateway receipt,
// and whichever transaction is mined decides.
func TestACancelInFlightRacesTheJobsTransactionWithANoOpAndWhicheverIsMinedDecides(t *testing.T) {
	at := At{t0.Add(time.Hour)}
	for _, k := range everyKind {
		s, _ := driveTo(t, k, TxInFlight)
		sent := s.TxHash
		noOp := func(s State, n int) ReplaceTransaction {
			return ReplaceTransaction{At: at, Replaces: s.TxHash, TxHash: txHashFor(n), RawTx: testRawTx, GasFeeCap: "3", GasTipCap: "2", Cancel: true}
		}
		if _, err := Decide(s, noOp(s, 70)); !errors.Is(err, ErrInvalidCommand) {
			t.Errorf("%s: a no-op without a cancel request gave %v, want ErrInvalidCommand", k, err)
		}
		asked := apply(s, mustDecide(t, s, Cancel{At: at, Who: "admin:0a1b2c3d", Reason: "stuck"}))
		if asked.Status != TxInFlight || asked.Cancelling == nil || asked.Cancelling.TxHash != sent {
			t.Fatalf("%s: a cancel in flight left %s %+v", k, asked.Status, asked.Cancelling)
		}
		if _, err := Decide(asked, Cancel{At: at, Who: "admin:0a1b2c3d", Reason: "again"}); !errors.Is(err, ErrCancelPending) {
			t.Errorf("%s: a second cancel gave %v, want ErrCancelPending", k, err)
		}
		racing := apply(asked, mustDecide(t, asked, noOp(asked, 70)))
		if racing.CancelTx != txHashFor(70) || len(racing.Sent()) != 2 {
			t.Fatalf("%s: after the no-op the job sends %v (cancel %q)", k, racing.Sent(), racing.CancelTx)
		}
		plain := ReplaceTransaction{At: at, Replaces: racing.TxHash, TxHash: txHashFor(71), RawTx: testRawTx, GasFeeCap: "4", GasTipCap: "3"}
		if _, err := Decide(racing, plain); !errors.Is(err, ErrInvalidCommand) {
			t.Errorf("%s: a gateway request replacing the no-op gave %v, want ErrInvalidCommand", k, err)
		}
		bump := ReplaceTransaction{At: at, Replaces: asked.TxHash, TxHash: txHashFor(73), RawTx: testRawTx, GasFeeCap: "4", GasTipCap: "3"}
		if _, err := Decide(asked, bump); !errors.Is(err, ErrInvalidCommand) {
			t.Errorf("%s: a fee bump of the gateway request after the cancel was asked gave %v, want ErrInvalidCommand", k, err)
		}
		bumped := apply(racing, mustDecide(t, racing, noOp(racing, 72))) // a stalled no-op is bumped as a no-op
		if _, err := Decide(bumped, RecordReceipt{At: at, TxHash: txHashFor(70), BlockNumber: 9, GatewayRequestID: "1"}); !errors.Is(err, ErrInvalidCommand) {
			t.Errorf("%s: a gateway receipt for the no-op gave %v, want ErrInvalidCommand", k, err)
		}
		if _, err := Decide(bumped, ConfirmCancel{At: at, TxHash: sent, BlockNumber: 9}); !errors.Is(err, ErrInvalidCommand) {
			t.Errorf("%s: confirming the cancel with the job's own transaction gave %v, want ErrInvalidCommand", k, err)
		}
		// The no-op (the first one, replaced since) was mined: cancelled, attributed, naming it.
		won := apply(bumped, mustDecide(t, bumped, ConfirmCancel{At: at, TxHash: txHashFor(70), BlockNumber: 9}))
		c := won.Message
		if won.Status != Failure || won.Label != LabelCancelled || !strings.Contains(c, "stuck") || !strings.Contains(c, txHashFor(70)) {
			t.Errorf("%s: the no-op mined left %s %q %q", k, won.Status, won.Label, c)
		}
		// The job's own transaction was mined: it goes on.
		lost := apply(bumped, mustDecide(t, bumped, RecordReceipt{At: at, TxHash: sent, BlockNumber: 9, GatewayRequestID: "1"}))
		if lost.Status != ReceiptReceived {
			t.Errorf("%s: the job's transaction mined first left %s", k, lost.Status)
		}
		// Another transaction took the nonce: none of the job's can be mined, and the cancel ends it.
		evs := mustDecide(t, racing, ResetTransaction{At: at, Reason: "nonce taken"})
		if e, ok := evs[0].(JobCancelled); !ok || e.From != TxInFlight || e.Who != "admin:0a1b2c3d" || e.NoOpTxHash != "" {
			t.Errorf("%s: a reset during a cancel gave %+v, want JobCancelled from tx_in_flight", k, evs)
		}
	}
}

// A retry makes a job waiting on a backoff due now, refuses what has nothing to retry, and never
// reopens an ended job: it is linked, once, to the new job its retry created.
func TestARetryMakesAWaitingJobDueNowAndLinksAnEndedJobToItsNewJobOnce(t *testing.T) {
	at := At{t0.Add(time.Hour)}
	retry := Retry{At: at, Who: "admin:0a1b2c3d", Reason: "the node is back"}
	for _, k := range everyKind {
		for _, st := range Statuses() {
			s, ok := driveTo(t, k, st)
			if !ok {
				continue
			}
			_, err := Decide(s, retry)
			var want error
			switch st {
			case Queued, Processing:
				want = ErrNotWaiting
			case TxInFlight, ReceiptReceived:
				want = ErrAlreadySent
			case Completed:
				want = ErrCompleted
			case Failure, TimedOut:
				want = ErrEnded
			}
			if !errors.Is(err, want) {
				t.Errorf("a %s job in %s: retry gave %v, want %v", k, st, err, want)
			}
			if st == Queued || st == Processing {
				waiting := apply(s, mustDecide(t, s, ScheduleRetry{At: At{t0}, Step: "prepare", Attempt: 1, Reason: "down", NextAt: at.At.Add(time.Minute)}))
				evs := mustDecide(t, waiting, retry)
				due := apply(waiting, evs)
				if e, ok := evs[0].(RetryRequested); !ok || e.From != st || !e.WasDueAt.Equal(at.At.Add(time.Minute)) || due.Status != st || !due.RetryAt.Equal(at.At) {
					t.Errorf("a waiting %s job in %s: retry gave %+v and left %s due at %v", k, st, evs, due.Status, due.RetryAt)
				}
				if _, err := Decide(due, retry); !errors.Is(err, ErrNotWaiting) {
					t.Errorf("a %s job made due now: a second retry gave %v, want ErrNotWaiting", k, err)
				}
			}
			link := LinkRetry{At: at, Who: "admin:0a1b2c3d", Reason: "fixed", NewJob: JobIDFor("0xh", 1)}
			evs, err := Decide(s, link)
			if st != Failure && st != TimedOut {
				if !errors.Is(err, ErrIllegalTransition) {
					t.Errorf("a %s job in %s: link gave %v, want ErrIllegalTransition", k, st, err)
				}
				continue
			}
			linked := apply(s, evs)
			if err != nil || linked.Status != st || linked.RetriedAs != link.NewJob || linked.Events != s.Events+1 {
				t.Fatalf("an ended %s job in %s: link gave %v and left %s, retried as %s", k, st, err, linked.Status, linked.RetriedAs)
			}
			for _, c := range []Command{link, retry} {
				if _, err := Decide(linked, c); !errors.Is(err, ErrAlreadyRetried) {
					t.Errorf("a %s job retried already: %s gave %v, want ErrAlreadyRetried", k, c.CommandName(), err)
				}
			}
		}
	}
	for _, bad := range []Retry{{At: at, Reason: "x"}, {At: at, Who: "w"}, {At: at, Who: "w", Reason: strings.Repeat("r", MaxCancelReason+1)}} {
		s, _ := driveTo(t, InputProof, Failure)
		if _, err := Decide(s, bad); !errors.Is(err, ErrInvalidCommand) {
			t.Errorf("retry %+v gave %v, want ErrInvalidCommand", bad, err)
		}
	}
	req := sampleRequest(InputProof)
	for _, link := range []*RetryOf{{Who: "w"}, {JobID: testJob, Who: "w"}, {JobID: JobIDFor("0xh", 0)}} {
		if _, err := Decide(State{}, Accept{At: at, JobID: testJob, Request: req, ContentHash: "0xh", RetryOf: link}); !errors.Is(err, ErrInvalidCommand) {
			t.Errorf("accept as a retry of %+v gave %v, want ErrInvalidCommand", link, err)
		}
	}
	evs := mustDecide(t, State{}, Accept{At: at, JobID: testJob, Request: req, ContentHash: "0xh", RetryOf: &RetryOf{JobIDFor("0xh", 0), "w", "fixed"}})
	if s := apply(State{}, evs); s.RetryOf == nil || s.RetryOf.JobID != JobIDFor("0xh", 0) || !slices.Equal(eventTypes(evs), []string{"RequestAccepted"}) {
		t.Errorf("accept as a retry left %+v", s.RetryOf)
	}
}
