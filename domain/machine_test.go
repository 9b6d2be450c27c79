package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// This file checks the state machine against DESIGN section 3. The expectations below are written
// out by hand from that section; they deliberately do not consult `transitions` or CanTransition,
// so that a wrong table in machine.go makes these tests fail.

// designTransitions is DESIGN section 3's transition table, per kind, written out by hand:
//
//	queued -> processing | timed_out | failure          (decrypts only: input proofs start in processing)
//	processing -> tx_in_flight | failure
//	tx_in_flight -> processing | receipt_received | failure
//	receipt_received -> completed | timed_out | failure
//
// plus "any non-terminal -> failure". Terminal statuses have no row.
var designTransitions = map[Kind]map[Status][]Status{
	PublicDecrypt: {
		Queued:          {Processing, TimedOut, Failure},
		Processing:      {TxInFlight, Failure},
		TxInFlight:      {Processing, ReceiptReceived, Failure},
		ReceiptReceived: {Completed, TimedOut, Failure},
	},
	UserDecrypt: {
		Queued:          {Processing, TimedOut, Failure},
		Processing:      {TxInFlight, Failure},
		TxInFlight:      {Processing, ReceiptReceived, Failure},
		ReceiptReceived: {Completed, TimedOut, Failure},
	},
	DelegatedUserDecrypt: {
		Queued:          {Processing, TimedOut, Failure},
		Processing:      {TxInFlight, Failure},
		TxInFlight:      {Processing, ReceiptReceived, Failure},
		ReceiptReceived: {Completed, TimedOut, Failure},
	},
	InputProof: {
		Processing:      {TxInFlight, Failure},
		TxInFlight:      {Processing, ReceiptReceived, Failure},
		ReceiptReceived: {Completed, TimedOut, Failure},
	},
}

// designInitial is the "starts in" column of DESIGN section 3's kind table.
var designInitial = map[Kind]Status{PublicDecrypt: Queued, UserDecrypt: Queued, DelegatedUserDecrypt: Queued, InputProof: Processing}

// designAllows reports whether DESIGN section 3 lets a job of kind k move from one status to another.
func designAllows(k Kind, from, to Status) bool {
	return slices.Contains(designTransitions[k][from], to)
}

var (
	t0         = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	testJob    = mustJobID("0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11")
	decrypts   = []Kind{PublicDecrypt, UserDecrypt, DelegatedUserDecrypt}
	everyKind  = Kinds()
	shareKinds = []Kind{UserDecrypt, DelegatedUserDecrypt}
	testFrom   = "0x" + strings.Repeat("f", 40)
	testRawTx  = "0x02f8" + strings.Repeat("ab", 60)
	testHandle = "0x" + strings.Repeat("1", 64)
)

func mustJobID(s string) JobID {
	id, err := ParseJobID(s)
	if err != nil {
		panic(err)
	}
	return id
}

// txHashFor is a distinct transaction hash per attempt.
func txHashFor(n int) string { return fmt.Sprintf("0x%064x", n+1) }

// sampleRequest returns a fresh, fully populated payload of kind k.
func sampleRequest(k Kind) Request {
	switch k {
	case InputProof:
		return Request{InputProof: &InputProofRequest{
			ContractChainID: 1337, ContractAddress: "0x" + strings.Repeat("c", 40),
			UserAddress: "0x" + strings.Repeat("a", 40), Ciphertext: "7e5700ff", ExtraData: "0x00",
		}}
	case PublicDecrypt:
		return Request{PublicDecrypt: &PublicDecryptRequest{CiphertextHandles: []string{testHandle}, ExtraData: "0x00"}}
	case UserDecrypt:
		return Request{UserDecrypt: &UserDecryptRequest{
			HandleContractPairs: []HandleContractPair{{Handle: testHandle, ContractAddress: "0x" + strings.Repeat("c", 40)}},
			RequestValidity:     RequestValidity{StartTimestamp: 1740830400, DurationDays: 10},
			ContractsChainID:    1337,
			ContractAddresses:   []string{"0x" + strings.Repeat("c", 40)},
			UserAddress:         "0x" + strings.Repeat("a", 40),
			Signature:           strings.Repeat("5", 130),
			PublicKey:           "2000000000000000" + strings.Repeat("e", 64),
			ExtraData:           "0x00",
		}}
	case DelegatedUserDecrypt:
		return Request{DelegatedUserDecrypt: &DelegatedUserDecryptRequest{
			HandleContractPairs: []HandleContractPair{{Handle: testHandle, ContractAddress: "0x" + strings.Repeat("c", 40)}},
			ContractsChainID:    1337,
			ContractAddresses:   []string{"0x" + strings.Repeat("c", 40)},
			DelegatorAddress:    "0x" + strings.Repeat("a", 40),
			DelegateAddress:     "0x" + strings.Repeat("d", 40),
			StartTimestamp:      1740830400, DurationDays: 10,
			Signature: strings.Repeat("5", 130),
			PublicKey: "2000000000000000" + strings.Repeat("e", 64),
			ExtraData: "0x00",
		}}
	}
	return Request{}
}

// sampleResult returns a fresh, fully populated (and, for input proofs, accepted) result of kind k.
func sampleResult(k Kind) Result {
	switch k {
	case InputProof:
		return Result{InputProof: &InputProofResult{Accepted: true, Handles: []string{testHandle}, Signatures: []string{"0xsig"}, ExtraData: "0x00"}}
	case PublicDecrypt:
		return Result{PublicDecrypt: &PublicDecryptResult{DecryptedValue: "0x2a", Signatures: []string{"0xsig1", "0xsig2"}, ExtraData: "0x00"}}
	case UserDecrypt, DelegatedUserDecrypt:
		return Result{UserDecrypt: &UserDecryptResult{Result: []UserDecryptShare{{Payload: "p", Signature: "s", ExtraData: "0x00"}}}}
	}
	return Result{}
}

func share(n int) Share {
	return Share{Signer: fmt.Sprintf("kms-%d", n), Payload: fmt.Sprintf("payload-%d", n), Signature: fmt.Sprintf("sig-%d", n), ExtraData: "0x00"}
}

func accept(k Kind, at time.Time) Accept {
	return Accept{At: At{at}, JobID: testJob, Request: sampleRequest(k), ContentHash: "0x" + strings.Repeat("9", 64)}
}

// variant is one of the 14 commands with valid arguments, and what DESIGN section 3 says it does.
type variant struct {
	name string
	// kinds is the kinds the command applies to (the kind rules); others reject it with ErrWrongKind.
	kinds []Kind
	// moves maps each status the command is allowed in to the status it leads to.
	moves map[Status]Status
	// events is the event types an accepted command produces, in order.
	events []string
	build  func(s State, at time.Time) Command
}

// eventsIn overrides a variant's events in the statuses it names: a cancel in tx_in_flight is a
// request raced on chain, not an end.
var eventsIn = map[string]map[Status][]string{"cancel": {TxInFlight: {"CancelRequested"}}}

func everyNonTerminal(to Status) map[Status]Status {
	return map[Status]Status{Queued: to, Processing: to, TxInFlight: to, ReceiptReceived: to}
}

// variants is every command of machine.go except Accept (tested on its own), written from
// DESIGN section 3. RecordShare appears twice: below and reaching the threshold.
var variants = []variant{
	{"start readiness", decrypts, map[Status]Status{Queued: Queued}, []string{"ReadinessCheckStarted"},
		func(s State, at time.Time) Command { return StartReadiness{At{at}} }},
	{"pass readiness", decrypts, map[Status]Status{Queued: Processing}, []string{"ReadinessPassed"},
		func(s State, at time.Time) Command { return PassReadiness{At{at}} }},
	{"time out readiness", decrypts, map[Status]Status{Queued: TimedOut}, []string{"ReadinessTimedOut"},
		func(s State, at time.Time) Command { return TimeOutReadiness{At{at}} }},
	{"fail readiness", decrypts, map[Status]Status{Queued: Failure}, []string{"ReadinessFailed"},
		func(s State, at time.Time) Command {
			return FailReadiness{At{at}, LabelNotAllowedOnHostACL, "handle not allowed"}
		}},
	{"sign transaction", everyKind, map[Status]Status{Processing: TxInFlight}, []string{"TransactionSigned"},
		func(s State, at time.Time) Command {
			return SignTransaction{At: At{at}, From: testFrom, Nonce: uint64(s.Events), TxHash: txHashFor(s.Events), RawTx: testRawTx}
		}},
	{"reset transaction", everyKind, map[Status]Status{TxInFlight: Processing}, []string{"TransactionReset"},
		func(s State, at time.Time) Command { return ResetTransaction{At{at}, "dropped from the mempool"} }},
	{"record receipt", everyKind, map[Status]Status{TxInFlight: ReceiptReceived}, []string{"ReceiptRecorded"},
		func(s State, at time.Time) Command {
			h := s.TxHash
			if h == "" {
				h = txHashFor(0)
			}
			return RecordReceipt{At{at}, h, 42, "17"}
		}},
	{"fail transaction", everyKind, map[Status]Status{Processing: Failure, TxInFlight: Failure}, []string{"TransactionFailed"},
		func(s State, at time.Time) Command {
			return FailTransaction{At{at}, LabelTransactionReverted, "execution reverted"}
		}},
	{"record share below the threshold", shareKinds, map[Status]Status{ReceiptReceived: ReceiptReceived}, []string{"ShareReceived"},
		func(s State, at time.Time) Command {
			return RecordShare{At{at}, share(len(s.Shares)), len(s.Shares) + 2}
		}},
	{"record share reaching the threshold", shareKinds, map[Status]Status{ReceiptReceived: Completed}, []string{"ShareReceived", "RequestCompleted"},
		func(s State, at time.Time) Command {
			return RecordShare{At{at}, share(len(s.Shares)), len(s.Shares) + 1}
		}},
	{"complete", []Kind{InputProof, PublicDecrypt}, map[Status]Status{ReceiptReceived: Completed}, []string{"RequestCompleted"},
		func(s State, at time.Time) Command { return Complete{At{at}, sampleResult(s.Kind)} }},
	{"reject proof", []Kind{InputProof}, map[Status]Status{ReceiptReceived: Failure}, []string{"ProofRejected"},
		func(s State, at time.Time) Command { return RejectProof{At{at}, "0x01"} }},
	{"time out response", everyKind, map[Status]Status{ReceiptReceived: TimedOut}, []string{"ResponseTimedOut"},
		func(s State, at time.Time) Command { return TimeOutResponse{At{at}} }},
	{"fail", everyKind, everyNonTerminal(Failure), []string{"RequestFailed"},
		func(s State, at time.Time) Command { return Fail{At{at}, LabelInternalServerError, "disk on fire"} }},
	{"cancel", everyKind, map[Status]Status{Queued: Failure, Processing: Failure, TxInFlight: TxInFlight}, []string{"JobCancelled"},
		func(s State, at time.Time) Command {
			return Cancel{At: At{at}, Who: "admin:0a1b2c3d", Reason: "the contract was misconfigured"}
		}},
}

func variantNamed(name string) variant {
	for _, v := range variants {
		if v.name == name {
			return v
		}
	}
	panic("no command variant " + name)
}

// route is a real sequence of commands after Accept that leads a job to a status.
type route struct {
	name  string
	to    Status
	steps []string
}

// routes lists, per kind, sequences that reach every status the kind can be in, several ways
// where DESIGN has several ways in. Input proofs have no route to queued: they start in
// processing and nothing leads back there.
func routes(k Kind) []route {
	var p []string // to processing
	if k.NeedsReadiness() {
		p = []string{"start readiness", "pass readiness"}
	}
	cat := func(a []string, b ...string) []string { return append(slices.Clone(a), b...) }
	tx := cat(p, "sign transaction")
	rr := cat(tx, "record receipt")
	rs := []route{
		{"just accepted", k.InitialStatus(), nil},
		{"processing", Processing, p},
		{"processing after a reset", Processing, cat(tx, "reset transaction")},
		{"tx_in_flight", TxInFlight, tx},
		{"tx_in_flight after a reset and a new signature", TxInFlight, cat(tx, "reset transaction", "sign transaction")},
		{"receipt_received", ReceiptReceived, rr},
		{"receipt_received after a reset", ReceiptReceived, cat(tx, "reset transaction", "sign transaction", "record receipt")},
		{"timed_out waiting for the response", TimedOut, cat(rr, "time out response")},
		{"failure from processing (transaction)", Failure, cat(p, "fail transaction")},
		{"failure from tx_in_flight (transaction)", Failure, cat(tx, "fail transaction")},
		{"failure from processing (internal)", Failure, cat(p, "fail")},
		{"failure from tx_in_flight (internal)", Failure, cat(tx, "fail")},
		{"failure from receipt_received (internal)", Failure, cat(rr, "fail")},
	}
	if k.NeedsReadiness() {
		rs = append(rs,
			route{"queued with readiness started", Queued, []string{"start readiness"}},
			route{"queued with readiness started twice (a restart)", Queued, []string{"start readiness", "start readiness"}},
			route{"processing without a recorded readiness start", Processing, []string{"pass readiness"}},
			route{"timed_out waiting for readiness", TimedOut, []string{"start readiness", "time out readiness"}},
			route{"failure from readiness", Failure, []string{"start readiness", "fail readiness"}},
			route{"failure from queued (internal)", Failure, []string{"fail"}},
		)
	}
	switch k {
	case UserDecrypt, DelegatedUserDecrypt:
		rs = append(rs,
			route{"receipt_received with one share", ReceiptReceived, cat(rr, "record share below the threshold")},
			route{"completed by a threshold of one share", Completed, cat(rr, "record share reaching the threshold")},
			route{"completed by a threshold of two shares", Completed, cat(rr, "record share below the threshold", "record share reaching the threshold")},
			route{"timed_out with one share", TimedOut, cat(rr, "record share below the threshold", "time out response")},
		)
	case InputProof:
		rs = append(rs,
			route{"completed", Completed, cat(rr, "complete")},
			route{"failure from a rejected proof", Failure, cat(rr, "reject proof")},
		)
	case PublicDecrypt:
		rs = append(rs, route{"completed", Completed, cat(rr, "complete")})
	}
	return rs
}

// stepTime is the time of a route's i-th command (Accept is 0): one minute apart.
func stepTime(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

// drive runs Accept then the route's steps through Decide and Evolve, failing the test if any is
// rejected. It returns the state and every event.
func drive(t *testing.T, k Kind, r route) (State, []Event) {
	t.Helper()
	var s State
	var all []Event
	apply := func(name string, c Command) {
		t.Helper()
		evs, err := Decide(s, c)
		if err != nil {
			t.Fatalf("driving a %s job along %q: %s was rejected in %s: %v", k, r.name, name, s.Status, err)
		}
		for _, e := range evs {
			s = Evolve(s, e)
		}
		all = append(all, evs...)
	}
	apply("accept", accept(k, stepTime(0)))
	for i, name := range r.steps {
		apply(name, variantNamed(name).build(s, stepTime(i+1)))
	}
	if s.Status != r.to {
		t.Fatalf("driving a %s job along %q ended in %s, want %s", k, r.name, s.Status, r.to)
	}
	return s, all
}

// driveTo drives a job of kind k to status st by the first route that reaches it; false if no
// route does (the combination is unreachable).
func driveTo(t *testing.T, k Kind, st Status) (State, bool) {
	t.Helper()
	for _, r := range routes(k) {
		if r.to == st {
			s, _ := drive(t, k, r)
			return s, true
		}
	}
	return State{}, false
}

func eventTypes(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.EventType()
	}
	return out
}

func TestTheCodesTransitionTableIsDesignSectionThree(t *testing.T) {
	all := append([]Status{{}}, Statuses()...)
	for _, k := range everyKind {
		for _, from := range all {
			for _, to := range all {
				want := designAllows(k, from, to)
				if got := CanTransition(k, from, to); got != want {
					t.Errorf("CanTransition(%s, %s, %s) = %v, DESIGN section 3 says %v", k, from, to, got, want)
				}
			}
		}
	}
}

func TestTheHandWrittenCommandTableStaysInsideTheDesignTable(t *testing.T) {
	names := map[string]bool{}
	for _, v := range variants {
		names[v.build(State{Kind: InputProof}, t0).CommandName()] = true
		for _, k := range v.kinds {
			for from, to := range v.moves {
				if from == to {
					continue
				}
				if k == InputProof && from == Queued {
					continue
				}
				if !designAllows(k, from, to) {
					t.Errorf("test table: %s moves a %s job %s -> %s, which DESIGN section 3 does not list", v.name, k, from, to)
				}
			}
		}
	}
	names[Accept{}.CommandName()] = true
	if len(names) != 15 {
		t.Errorf("the command table covers %d distinct commands, want all 15 of machine.go", len(names))
	}
}

func TestEveryStatusIsReachableForItsKindAndNoOtherIs(t *testing.T) {
	for _, k := range everyKind {
		// What DESIGN allows: graph reachability over the hand-written table.
		designReach := map[Status]bool{designInitial[k]: true}
		for changed := true; changed; {
			changed = false
			for from := range designReach {
				for _, to := range designTransitions[k][from] {
					if !designReach[to] {
						designReach[to], changed = true, true
					}
				}
			}
		}
		// What the code allows: breadth-first search over every command from Accept.
		type key struct {
			st      Status
			started bool
			shares  int
			tx      string
		}
		start := Fold(mustDecide(t, State{}, accept(k, t0)))
		codeReach := map[Status]bool{}
		seen := map[key]bool{}
		frontier := []State{start}
		for depth := 0; depth < 12 && len(frontier) > 0; depth++ {
			var next []State
			for _, s := range frontier {
				codeReach[s.Status] = true
				kk := key{s.Status, s.ReadinessStarted, len(s.Shares), s.TxHash}
				if seen[kk] {
					continue
				}
				seen[kk] = true
				for _, v := range variants {
					evs, err := Decide(s, v.build(s, t0.Add(time.Duration(depth)*time.Second)))
					if err != nil {
						continue
					}
					n := s
					for _, e := range evs {
						n = Evolve(n, e)
					}
					next = append(next, n)
				}
			}
			frontier = next
		}
		for _, st := range Statuses() {
			_, routed := driveTo(t, k, st)
			switch {
			case designReach[st] && !codeReach[st]:
				t.Errorf("a %s job can never reach %s, but DESIGN section 3 leads there", k, st)
			case !designReach[st] && codeReach[st]:
				t.Errorf("a %s job reaches %s, which DESIGN section 3 makes unreachable", k, st)
			}
			if routed != designReach[st] {
				t.Errorf("test routes: a route to %s for %s is %v, want %v", st, k, routed, designReach[st])
			}
		}
	}
	if _, ok := driveTo(t, InputProof, Queued); ok {
		t.Errorf("an input proof is driven to queued, but it starts in processing and never returns")
	}
}

func mustDecide(t *testing.T, s State, c Command) []Event {
	t.Helper()
	evs, err := Decide(s, c)
	if err != nil {
		t.Fatalf("%s in %s: %v", c.CommandName(), s.Status, err)
	}
	return evs
}

func apply(s State, evs []Event) State {
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s
}

func TestEveryCommandIsAcceptedExactlyWhenDesignAllowsItInEveryReachableStatus(t *testing.T) {
	at := t0.Add(time.Hour)
	for _, k := range everyKind {
		for _, r := range routes(k) {
			t.Run(k.String()+"/"+r.name, func(t *testing.T) {
				s, _ := drive(t, k, r)
				where := fmt.Sprintf("a %s job in %s (%s)", k, s.Status, r.name)

				evs, err := Decide(s, accept(k, at))
				if !errors.Is(err, ErrAlreadyAccepted) || len(evs) != 0 {
					t.Errorf("%s: accept again gave %d events and %v, want ErrAlreadyAccepted and none", where, len(evs), err)
				}
				for _, v := range variants {
					c := v.build(s, at)
					evs, err := Decide(s, c)
					if err != nil && len(evs) != 0 {
						t.Errorf("%s: %s was rejected (%v) but still returned %d events", where, v.name, err, len(evs))
					}
					to, allowed := v.moves[s.Status]
					switch {
					case s.Status.Terminal():
						if !errors.Is(err, ErrTerminal) || !errors.Is(err, ErrIllegalTransition) {
							t.Errorf("%s: %s gave %v, want an error matching ErrTerminal and ErrIllegalTransition", where, v.name, err)
						}
					case !slices.Contains(v.kinds, k):
						if !errors.Is(err, ErrWrongKind) {
							t.Errorf("%s: %s gave %v, want ErrWrongKind (it does not apply to %s)", where, v.name, err, k)
						}
					case !allowed:
						if !errors.Is(err, ErrIllegalTransition) || errors.Is(err, ErrTerminal) {
							t.Errorf("%s: %s gave %v, want ErrIllegalTransition (DESIGN has no such transition), not ErrTerminal", where, v.name, err)
						}
					default:
						if err != nil {
							t.Errorf("%s: %s was rejected with %v; DESIGN section 3 allows %s -> %s", where, v.name, err, s.Status, to)
							continue
						}
						want := v.events
						if w, ok := eventsIn[v.name][s.Status]; ok {
							want = w
						}
						if got := eventTypes(evs); !slices.Equal(got, want) {
							t.Errorf("%s: %s produced %v, want %v", where, v.name, got, want)
						}
						for _, e := range evs {
							if h := e.Header(); h.JobID != s.JobID || !h.At.Equal(at) {
								t.Errorf("%s: %s produced %s with header %v/%v, want the job's id and the command's time", where, v.name, e.EventType(), h.JobID, h.At)
							}
						}
						if n := apply(s, evs); n.Status != to {
							t.Errorf("%s: %s left the job in %s, want %s", where, v.name, n.Status, to)
						} else if to != s.Status && !CanTransition(k, s.Status, to) {
							t.Errorf("%s: %s moved %s -> %s, which CanTransition refuses", where, v.name, s.Status, to)
						}
					}
				}
			})
		}
	}
}

func TestACancelEndsAJobNotYetSentWithTheLabelCancelledAndIsRefusedOnceItsTransactionLeft(t *testing.T) {
	at := t0.Add(time.Hour)
	for _, k := range everyKind {
		for _, st := range []Status{Queued, Processing, ReceiptReceived} {
			s, ok := driveTo(t, k, st)
			if !ok {
				continue
			}
			evs, err := Decide(s, Cancel{At: At{at}, Who: "admin:0a1b2c3d", Reason: "wrong contract"})
			if st == ReceiptReceived {
				if !errors.Is(err, ErrAlreadySent) || !errors.Is(err, ErrIllegalTransition) || len(evs) != 0 {
					t.Errorf("a %s job in %s: cancel gave %d events and %v, want ErrAlreadySent", k, st, len(evs), err)
				}
				continue
			}
			if err != nil || len(evs) != 1 {
				t.Fatalf("a %s job in %s: cancel gave %v", k, st, err)
			}
			c, ok := evs[0].(JobCancelled)
			n := apply(s, evs)
			if !ok || c.Label != LabelCancelled || c.Who != "admin:0a1b2c3d" || c.Reason != "wrong contract" || c.From != st ||
				!strings.Contains(c.Message, "wrong contract") || n.Status != Failure || n.Label != LabelCancelled || n.Message != c.Message {
				t.Errorf("a %s job in %s: cancel gave %+v and left %s %q %q", k, st, evs[0], n.Status, n.Label, n.Message)
			}
		}
	}
	s, _ := driveTo(t, InputProof, Processing)
	// Only narrows the statuses: a processing job is not cancelled by a cancel of queued jobs.
	if evs, err := Decide(s, Cancel{At: At{at}, Who: "admin:1", Reason: "r", Only: []Status{Queued}}); !errors.Is(err, ErrIllegalTransition) || len(evs) != 0 {
		t.Errorf("a cancel of queued jobs on a processing one: %v", err)
	}
	for _, c := range []Cancel{{At: At{at}, Reason: "why"}, {At: At{at}, Who: "admin:1", Reason: " "}, {At: At{at}, Who: "admin:1", Reason: strings.Repeat("x", MaxCancelReason+1)}} {
		if evs, err := Decide(s, c); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
			t.Errorf("cancel by %q for %q: %v, want ErrInvalidCommand", c.Who, c.Reason, err)
		}
	}
}

func TestATerminalJobAcceptsNoCommandAtAll(t *testing.T) {
	at := t0.Add(time.Hour)
	for _, k := range everyKind {
		for _, r := range routes(k) {
			if !r.to.Terminal() {
				continue
			}
			s, _ := drive(t, k, r)
			for _, v := range variants {
				for _, c := range []Command{v.build(s, at), v.build(State{Kind: k}, at)} {
					evs, err := Decide(s, c)
					if err == nil || len(evs) != 0 || !errors.Is(err, ErrTerminal) || !errors.Is(err, ErrIllegalTransition) {
						t.Errorf("a %s job %s accepted %s: %d events, err %v; want none and ErrTerminal", k, r.name, v.name, len(evs), err)
					}
				}
			}
			// Invalid arguments do not get past a terminal status either.
			for _, c := range []Command{Fail{At: At{at}}, FailTransaction{At: At{at}}, SignTransaction{At: At{at}}, RecordShare{At: At{at}}, Complete{At: At{at}}} {
				if evs, err := Decide(s, c); err == nil || len(evs) != 0 {
					t.Errorf("a %s job %s accepted an invalid %s", k, r.name, c.CommandName())
				}
			}
			if evs, err := Decide(s, accept(k, at)); !errors.Is(err, ErrAlreadyAccepted) || len(evs) != 0 {
				t.Errorf("a %s job %s: accept gave %d events and %v, want ErrAlreadyAccepted", k, r.name, len(evs), err)
			}
		}
	}
}

func TestACommandOnAStreamWithNoRequestIsRejected(t *testing.T) {
	for _, v := range variants {
		evs, err := Decide(State{}, v.build(State{}, t0))
		if !errors.Is(err, ErrNoRequest) || len(evs) != 0 {
			t.Errorf("%s on an empty stream gave %d events and %v, want ErrNoRequest", v.name, len(evs), err)
		}
	}
}

func TestAcceptStartsTheStreamInTheKindsInitialStatus(t *testing.T) {
	for _, k := range everyKind {
		c := accept(k, t0)
		evs := mustDecide(t, State{}, c)
		if len(evs) != 1 {
			t.Fatalf("accept of a %s produced %d events, want 1", k, len(evs))
		}
		e, ok := evs[0].(RequestAccepted)
		if !ok {
			t.Fatalf("accept of a %s produced %T, want RequestAccepted", k, evs[0])
		}
		want := RequestAccepted{EventHeader{testJob, t0}, k, designInitial[k], c.ContentHash, c.Request, nil}
		if !reflect.DeepEqual(e, want) {
			t.Errorf("accept of a %s produced %+v, want %+v", k, e, want)
		}
		s := Evolve(State{}, e)
		if s.Status != designInitial[k] || s.Kind != k || s.JobID != testJob || s.ContentHash != c.ContentHash ||
			!reflect.DeepEqual(s.Request, c.Request) || !s.EnteredAt.Equal(t0) || s.Events != 1 {
			t.Errorf("a %s job after RequestAccepted is %+v, want status %s, kind, id, hash, request, EnteredAt and one event", k, s, designInitial[k])
		}
		if k.InitialStatus() != designInitial[k] {
			t.Errorf("%s.InitialStatus() = %s, DESIGN says it starts in %s", k, k.InitialStatus(), designInitial[k])
		}
	}
}

func TestAcceptOnAnExistingStreamIsAlreadyAccepted(t *testing.T) {
	for _, k := range everyKind {
		s := Fold(mustDecide(t, State{}, accept(k, t0)))
		for _, other := range everyKind {
			c := accept(other, t0.Add(time.Second))
			c.JobID = NewJobID()
			if evs, err := Decide(s, c); !errors.Is(err, ErrAlreadyAccepted) || len(evs) != 0 {
				t.Errorf("accept of a %s on a %s stream gave %d events and %v, want ErrAlreadyAccepted", other, k, len(evs), err)
			}
		}
	}
}

func TestAcceptWithoutAJobIDExactlyOnePayloadOrAContentHashIsInvalid(t *testing.T) {
	two := sampleRequest(InputProof)
	two.PublicDecrypt = sampleRequest(PublicDecrypt).PublicDecrypt
	three := two
	three.UserDecrypt = sampleRequest(UserDecrypt).UserDecrypt
	cases := map[string]func(*Accept){
		"zero job id":        func(c *Accept) { c.JobID = JobID{} },
		"no payload":         func(c *Accept) { c.Request = Request{} },
		"two payloads":       func(c *Accept) { c.Request = two },
		"three payloads":     func(c *Accept) { c.Request = three },
		"empty content hash": func(c *Accept) { c.ContentHash = "" },
	}
	for name, mutate := range cases {
		c := accept(PublicDecrypt, t0)
		mutate(&c)
		if evs, err := Decide(State{}, c); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
			t.Errorf("accept with %s gave %d events and %v, want ErrInvalidCommand", name, len(evs), err)
		}
	}
}

// userDecryptAwaitingShares is a user decrypt in receipt_received.
func userDecryptAwaitingShares(t *testing.T) State {
	t.Helper()
	s, ok := driveTo(t, UserDecrypt, ReceiptReceived)
	if !ok {
		t.Fatal("no route to receipt_received")
	}
	return s
}

func TestUserDecryptSharesBelowTheThresholdOnlyRecordTheShare(t *testing.T) {
	s := userDecryptAwaitingShares(t)
	entered := s.EnteredAt
	for i := 0; i < 3; i++ {
		evs := mustDecide(t, s, RecordShare{At{t0.Add(time.Duration(i) * time.Hour)}, share(i), 4})
		if got := eventTypes(evs); !slices.Equal(got, []string{"ShareReceived"}) {
			t.Fatalf("share %d of threshold 4 produced %v, want only ShareReceived", i+1, got)
		}
		if e := evs[0].(ShareReceived); e.Share != share(i) {
			t.Errorf("ShareReceived holds %+v, want %+v", e.Share, share(i))
		}
		s = apply(s, evs)
		if s.Status != ReceiptReceived || len(s.Shares) != i+1 || !s.EnteredAt.Equal(entered) {
			t.Errorf("after share %d the job is %s with %d shares entered at %v, want receipt_received, %d, %v", i+1, s.Status, len(s.Shares), s.EnteredAt, i+1, entered)
		}
	}
}

func TestTheShareReachingTheThresholdCompletesWithEveryShareInArrivalOrder(t *testing.T) {
	s := userDecryptAwaitingShares(t)
	order := []int{3, 0, 2}
	for i, n := range order[:2] {
		s = apply(s, mustDecide(t, s, RecordShare{At{t0.Add(time.Duration(i) * time.Hour)}, share(n), 3}))
	}
	at := t0.Add(5 * time.Hour)
	evs := mustDecide(t, s, RecordShare{At{at}, share(order[2]), 3})
	if got := eventTypes(evs); !slices.Equal(got, []string{"ShareReceived", "RequestCompleted"}) {
		t.Fatalf("the third share of threshold 3 produced %v, want ShareReceived then RequestCompleted", got)
	}
	var want []UserDecryptShare
	for _, n := range order {
		sh := share(n)
		want = append(want, UserDecryptShare{Payload: sh.Payload, Signature: sh.Signature, ExtraData: sh.ExtraData})
	}
	done := evs[1].(RequestCompleted)
	if done.Result.Kind() != UserDecrypt || !reflect.DeepEqual(done.Result.UserDecrypt.Result, want) {
		t.Errorf("RequestCompleted holds %+v, want every share in arrival order %+v", done.Result, want)
	}
	s = apply(s, evs)
	if s.Status != Completed || !s.EnteredAt.Equal(at) || s.Result == nil || !reflect.DeepEqual(s.Result.UserDecrypt.Result, want) {
		t.Errorf("the completed job is %s entered at %v with result %+v", s.Status, s.EnteredAt, s.Result)
	}
	// Shares after completion are rejected.
	if evs, err := Decide(s, RecordShare{At{at}, share(9), 3}); !errors.Is(err, ErrTerminal) || len(evs) != 0 {
		t.Errorf("a share after completion gave %d events and %v, want ErrTerminal", len(evs), err)
	}
}

func TestAShareFromASignerAlreadyRecordedIsADuplicate(t *testing.T) {
	s := userDecryptAwaitingShares(t)
	s = apply(s, mustDecide(t, s, RecordShare{At{t0}, share(1), 3}))
	dup := share(1)
	dup.Payload = "another payload"
	for _, thr := range []int{1, 2, 3} {
		if evs, err := Decide(s, RecordShare{At{t0}, dup, thr}); !errors.Is(err, ErrDuplicateShare) || len(evs) != 0 {
			t.Errorf("a second share from %s (threshold %d) gave %d events and %v, want ErrDuplicateShare", dup.Signer, thr, len(evs), err)
		}
	}
}

func TestAShareWithoutASignerOrAPositiveThresholdIsInvalid(t *testing.T) {
	s := userDecryptAwaitingShares(t)
	noSigner := share(1)
	noSigner.Signer = ""
	for _, c := range []RecordShare{{At{t0}, noSigner, 2}, {At{t0}, share(1), 0}, {At{t0}, share(1), -1}} {
		if evs, err := Decide(s, c); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
			t.Errorf("share %+v gave %d events and %v, want ErrInvalidCommand", c, len(evs), err)
		}
	}
}

func TestResponseTimedOutRecordsHowManySharesArrived(t *testing.T) {
	for n := 0; n < 3; n++ {
		s := userDecryptAwaitingShares(t)
		for i := 0; i < n; i++ {
			s = apply(s, mustDecide(t, s, RecordShare{At{t0}, share(i), 5}))
		}
		evs := mustDecide(t, s, TimeOutResponse{At{t0}})
		if e, ok := evs[0].(ResponseTimedOut); !ok || e.Shares != n {
			t.Errorf("response timeout after %d shares produced %+v, want ResponseTimedOut{Shares: %d}", n, evs[0], n)
		}
	}
}

func TestCompleteWithAResultOfAnotherKindIsInvalid(t *testing.T) {
	two := sampleResult(InputProof)
	two.PublicDecrypt = sampleResult(PublicDecrypt).PublicDecrypt
	for _, k := range []Kind{InputProof, PublicDecrypt} {
		s, _ := driveTo(t, k, ReceiptReceived)
		for _, r := range []Result{{}, two, sampleResult(UserDecrypt), sampleResult(InputProof), sampleResult(PublicDecrypt)} {
			if r.Kind() == k {
				continue
			}
			if evs, err := Decide(s, Complete{At{t0}, r}); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
				t.Errorf("complete of a %s with a %s result gave %d events and %v, want ErrInvalidCommand", k, r.Kind(), len(evs), err)
			}
		}
	}
}

func TestCompleteWithARejectedProofIsInvalidBecauseRejectionsUseRejectProof(t *testing.T) {
	s, _ := driveTo(t, InputProof, ReceiptReceived)
	r := sampleResult(InputProof)
	r.InputProof.Accepted = false
	if evs, err := Decide(s, Complete{At{t0}, r}); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
		t.Errorf("complete with accepted:false gave %d events and %v, want ErrInvalidCommand", len(evs), err)
	}
}

func TestARecordReceiptForAnotherTransactionIsInvalid(t *testing.T) {
	for _, k := range everyKind {
		s, _ := driveTo(t, k, TxInFlight)
		for _, h := range []string{txHashFor(999), txHashFor(-1)} {
			if evs, err := Decide(s, RecordReceipt{At{t0}, h, 1, "17"}); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
				t.Errorf("a %s job signed %s: receipt for %s gave %d events and %v, want ErrInvalidCommand", k, s.TxHash, h, len(evs), err)
			}
		}
		if evs, err := Decide(s, RecordReceipt{At{t0}, s.TxHash, 1, ""}); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
			t.Errorf("a receipt without a gateway request id gave %d events and %v, want ErrInvalidCommand", len(evs), err)
		}
	}
}

func TestCommandsMissingWhatTheyMustCarryAreInvalid(t *testing.T) {
	q, _ := driveTo(t, PublicDecrypt, Queued)
	p, _ := driveTo(t, InputProof, Processing)
	cases := []struct {
		s State
		c Command
	}{
		{q, FailReadiness{At{t0}, "", "why"}},
		{p, SignTransaction{At: At{t0}, Nonce: 1, TxHash: "0x1", RawTx: "0x2"}},
		{p, SignTransaction{At: At{t0}, From: testFrom, Nonce: 1, RawTx: "0x2"}},
		{p, SignTransaction{At: At{t0}, From: testFrom, Nonce: 1, TxHash: "0x1"}},
		{p, FailTransaction{At{t0}, "", "why"}},
		{p, Fail{At{t0}, "", "why"}},
		{q, Fail{At{t0}, "", "why"}},
	}
	for _, tc := range cases {
		if evs, err := Decide(tc.s, tc.c); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
			t.Errorf("%+v in %s gave %d events and %v, want ErrInvalidCommand", tc.c, tc.s.Status, len(evs), err)
		}
	}
}

func TestEnteredAtIsTheTimeOfTheEventThatChangedTheStatusAndEventsCountsEveryEvent(t *testing.T) {
	for _, k := range everyKind {
		for _, r := range routes(k) {
			_, evs := drive(t, k, r)
			var s State
			for i, e := range evs {
				before := s
				s = Evolve(s, e)
				if s.Events != i+1 {
					t.Errorf("%s %s: after %d events State.Events = %d", k, r.name, i+1, s.Events)
				}
				to, changes := StatusAfter(e)
				if changes && to != before.Status {
					if !s.EnteredAt.Equal(e.Header().At) {
						t.Errorf("%s %s: %s moved the job to %s but EnteredAt is %v, want the event's time %v", k, r.name, e.EventType(), s.Status, s.EnteredAt, e.Header().At)
					}
				} else if !s.EnteredAt.Equal(before.EnteredAt) {
					t.Errorf("%s %s: %s did not change the status but moved EnteredAt from %v to %v", k, r.name, e.EventType(), before.EnteredAt, s.EnteredAt)
				}
			}
		}
	}
	// The two events that do not change the status, explicitly.
	s := userDecryptAwaitingShares(t)
	entered := s.EnteredAt
	s = apply(s, mustDecide(t, s, RecordShare{At{t0.Add(99 * time.Hour)}, share(0), 2}))
	if !s.EnteredAt.Equal(entered) {
		t.Errorf("ShareReceived moved EnteredAt to %v", s.EnteredAt)
	}
	q := Fold(mustDecide(t, State{}, accept(UserDecrypt, t0)))
	q = apply(q, mustDecide(t, q, StartReadiness{At{t0.Add(time.Hour)}}))
	if !q.EnteredAt.Equal(t0) || !q.ReadinessStarted {
		t.Errorf("ReadinessCheckStarted left EnteredAt %v (want %v) and ReadinessStarted %v", q.EnteredAt, t0, q.ReadinessStarted)
	}
}

func TestATransactionResetClearsTheTransactionSoANewOneMayBeSigned(t *testing.T) {
	for _, k := range everyKind {
		s, _ := driveTo(t, k, TxInFlight)
		old := s.TxHash
		if s.RawTx == "" || old == "" {
			t.Fatalf("a signed %s job holds no transaction: %+v", k, s)
		}
		if evs, err := Decide(s, variantNamed("sign transaction").build(s, t0)); !errors.Is(err, ErrIllegalTransition) || len(evs) != 0 {
			t.Errorf("a second signature while tx_in_flight gave %d events and %v, want ErrIllegalTransition (one gateway request at a time)", len(evs), err)
		}
		evs := mustDecide(t, s, ResetTransaction{At{t0}, "not on chain"})
		if e := evs[0].(TransactionReset); e.TxHash != old || e.Reason != "not on chain" {
			t.Errorf("TransactionReset is %+v, want the dropped hash %s and the reason", e, old)
		}
		s = apply(s, evs)
		if s.Status != Processing || s.TxHash != "" || s.RawTx != "" {
			t.Errorf("after a reset the %s job is %s with tx %q raw %q, want processing and no transaction", k, s.Status, s.TxHash, s.RawTx)
		}
		next := SignTransaction{At: At{t0}, From: testFrom, Nonce: 8, TxHash: txHashFor(100), RawTx: testRawTx}
		s = apply(s, mustDecide(t, s, next))
		if s.Status != TxInFlight || s.TxHash != next.TxHash || s.Nonce != 8 || s.From != testFrom || s.RawTx != testRawTx {
			t.Errorf("after a new signature the job is %+v", s)
		}
	}
}

func TestEveryFailureAndTimeoutPathRecordsItsLabel(t *testing.T) {
	q, _ := driveTo(t, PublicDecrypt, Queued)
	p, _ := driveTo(t, InputProof, Processing)
	f, _ := driveTo(t, UserDecrypt, TxInFlight)
	rp, _ := driveTo(t, InputProof, ReceiptReceived)
	ru, _ := driveTo(t, UserDecrypt, ReceiptReceived)
	cases := []struct {
		name         string
		s            State
		c            Command
		label, msg   string
		wantRejected bool
	}{
		{"readiness timeout", q, TimeOutReadiness{At{t0}}, LabelReadinessCheckTimedOut, "", false},
		{"readiness failure", q, FailReadiness{At{t0}, LabelNotAllowedOnHostACL, "denied"}, LabelNotAllowedOnHostACL, "denied", false},
		{"transaction failure in processing", p, FailTransaction{At{t0}, LabelTransactionFailed, "retries exhausted"}, LabelTransactionFailed, "retries exhausted", false},
		{"tx_in_flight timeout", f, FailTransaction{At{t0}, LabelTxInFlightTimedOut, "stuck"}, LabelTxInFlightTimedOut, "stuck", false},
		{"response timeout", ru, TimeOutResponse{At{t0}}, LabelResponseTimedOut, "", false},
		{"input proof response timeout", rp, TimeOutResponse{At{t0}}, LabelResponseTimedOut, "", false},
		{"proof rejected", rp, RejectProof{At{t0}, "0xee"}, LabelProofRejected, "", true},
		{"internal failure", q, Fail{At{t0}, LabelProtocolPaused, "paused"}, LabelProtocolPaused, "paused", false},
		{"internal failure late", ru, Fail{At{t0}, LabelInternalServerError, "boom"}, LabelInternalServerError, "boom", false},
	}
	for _, tc := range cases {
		evs, err := Decide(tc.s, tc.c)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		s := apply(tc.s, evs)
		if !s.Status.Terminal() || s.Label != tc.label || s.Message != tc.msg {
			t.Errorf("%s: the job is %s with label %q message %q, want a terminal status with %q %q", tc.name, s.Status, s.Label, s.Message, tc.label, tc.msg)
		}
		if tc.wantRejected {
			want := &Result{InputProof: &InputProofResult{Accepted: false, Handles: []string{}, Signatures: []string{}, ExtraData: "0xee"}}
			if !reflect.DeepEqual(s.Result, want) {
				t.Errorf("%s: the result is %+v, want accepted:false with the extra data", tc.name, s.Result)
			}
		}
	}
}

// sampleEvents is one fully populated value of every event type.
func sampleEvents() []Event {
	loc := time.FixedZone("UTC+2", 2*3600)
	h := EventHeader{JobID: testJob, At: time.Date(2025, 3, 1, 14, 0, 0, 123456789, loc)}
	pd := sampleResult(PublicDecrypt)
	return []Event{
		RequestAccepted{h, UserDecrypt, Queued, "0xhash", sampleRequest(UserDecrypt), &RetryOf{JobIDFor("0xhash", 0), "admin:1a2b3c4d", "contract fixed"}},
		ReadinessCheckStarted{h},
		ReadinessPassed{h},
		ReadinessTimedOut{h},
		ReadinessFailed{h, LabelReadinessCheckFailed, "not ready"},
		TransactionSigned{EventHeader: h, From: testFrom, Nonce: 12, TxHash: txHashFor(1), RawTx: testRawTx, StartedAt: h.At.Add(-time.Second).UTC()},
		TransactionReset{h, txHashFor(1), "dropped"},
		TransactionReplaced{h, txHashFor(1), txHashFor(2), testRawTx, "2000000000", "1100000000", true},
		RetryScheduled{h, "prepare", 2, "transport error", LabelGatewayNotReachable, h.At.Add(10 * time.Second).UTC()},
		ReceiptRecorded{h, txHashFor(1), 77, "123"},
		TransactionFailed{h, txHashFor(1), LabelTransactionReverted, "reverted"},
		ShareReceived{h, share(3)},
		RequestCompleted{h, pd},
		ProofRejected{h, "0x01"},
		ResponseTimedOut{h, 2},
		RequestFailed{h, LabelInternalServerError, "boom"},
		JobCancelled{h, LabelCancelled, "cancelled by the relayer's operator: wrong contract", "admin:1a2b3c4d", "wrong contract", TxInFlight, txHashFor(3)},
		CancelRequested{h, "admin:1a2b3c4d", "wrong contract", txHashFor(1)},
		RetryRequested{h, "admin:1a2b3c4d", "the node is back", Processing, h.At.Add(time.Minute).UTC()},
		JobRetried{h, JobIDFor("0xhash", 1), "admin:1a2b3c4d", "contract fixed"},
	}
}

func TestEveryEventTypeHasADistinctNameAndASample(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range EventPrototypes() {
		n := p.EventType()
		if n == "" || seen[n] {
			t.Errorf("event %T has an empty or repeated EventType %q", p, n)
		}
		seen[n] = true
	}
	if len(seen) != 20 {
		t.Errorf("EventPrototypes has %d event types, the lifecycle has 20", len(seen))
	}
	for _, e := range sampleEvents() {
		if !seen[e.EventType()] {
			t.Errorf("sample %T is not in EventPrototypes", e)
		}
		delete(seen, e.EventType())
	}
	for n := range seen {
		t.Errorf("event type %s has no sample in this test", n)
	}
}

func TestStatusAfterAgreesWithEvolveForEveryEventType(t *testing.T) {
	for _, e := range sampleEvents() {
		for _, from := range Statuses() {
			s := State{JobID: testJob, Kind: UserDecrypt, Status: from, EnteredAt: t0}
			n := Evolve(s, e)
			to, changes := StatusAfter(e)
			want := from
			if changes {
				want = to
			}
			if n.Status != want {
				t.Errorf("Evolve(%s, %s) gives %s, StatusAfter says %s (changes: %v)", from, e.EventType(), n.Status, to, changes)
			}
		}
	}
	for _, p := range EventPrototypes() {
		_, changes := StatusAfter(p)
		quiet := slices.Contains([]string{"ShareReceived", "ReadinessCheckStarted", "TransactionReplaced", "RetryScheduled", "CancelRequested", "RetryRequested", "JobRetried"}, p.EventType())
		if changes == quiet {
			t.Errorf("StatusAfter(%s) changes the status: %v; only ShareReceived, ReadinessCheckStarted, TransactionReplaced, RetryScheduled, CancelRequested, RetryRequested and JobRetried leave it", p.EventType(), changes)
		}
	}
}

// utcEvent returns e with its header time in UTC.
func utcEvent(e Event) Event {
	v := reflect.New(reflect.TypeOf(e)).Elem()
	v.Set(reflect.ValueOf(e))
	at := v.FieldByName("EventHeader").FieldByName("At")
	at.Set(reflect.ValueOf(at.Interface().(time.Time).UTC()))
	return v.Interface().(Event)
}

// noZeroField reports the path of an exported zero-valued field of v, so the samples exercise every field.
func noZeroField(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) || v.Type() == reflect.TypeOf(Kind{}) || v.Type() == reflect.TypeOf(Status{}) {
			if v.IsZero() {
				return path
			}
			return ""
		}
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if p := noZeroField(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
				return p
			}
		}
		return ""
	case reflect.Pointer:
		if v.IsNil() {
			if strings.Contains(path, "Request.") || strings.Contains(path, "Result.") {
				return "" // exactly one payload is set
			}
			return path
		}
		return noZeroField(v.Elem(), path)
	case reflect.Slice:
		if v.Len() == 0 {
			return path
		}
		for i := 0; i < v.Len(); i++ {
			if p := noZeroField(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
		return ""
	default:
		if v.IsZero() {
			return path
		}
		return ""
	}
}

func TestEveryEventSurvivesAJSONRoundTrip(t *testing.T) {
	events := sampleEvents()
	for _, k := range everyKind {
		events = append(events, RequestAccepted{EventHeader{testJob, t0}, k, k.InitialStatus(), "0xh", sampleRequest(k), &RetryOf{JobIDFor("0xh", 0), "admin:1a2b3c4d", "again"}})
	}
	for _, k := range everyKind {
		events = append(events, RequestCompleted{EventHeader{testJob, t0}, sampleResult(k)})
	}
	for _, e := range events {
		if p := noZeroField(reflect.ValueOf(e), e.EventType()); p != "" {
			t.Errorf("sample %s leaves %s zero; fill it so the round trip covers it", e.EventType(), p)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Errorf("marshal %s: %v", e.EventType(), err)
			continue
		}
		back := reflect.New(reflect.TypeOf(e))
		if err := json.Unmarshal(b, back.Interface()); err != nil {
			t.Errorf("unmarshal %s from %s: %v", e.EventType(), b, err)
			continue
		}
		got := back.Elem().Interface().(Event)
		if !reflect.DeepEqual(utcEvent(got), utcEvent(e)) {
			t.Errorf("%s does not survive its stored form:\n json %s\n got  %+v\n want %+v", e.EventType(), b, got, e)
		}
	}
}

func TestKindStatusAndJobIDTextRoundTripAndRejectUnknownNames(t *testing.T) {
	for _, k := range Kinds() {
		b, err := k.MarshalText()
		var back Kind
		if err != nil || back.UnmarshalText(b) != nil || back != k {
			t.Errorf("kind %s: text %q err %v gives back %s", k, b, err, back)
		}
		if k.Ordinal() < 0 || k.Ordinal() >= NumKinds {
			t.Errorf("kind %s ordinal %d", k, k.Ordinal())
		}
	}
	for _, st := range Statuses() {
		b, err := st.MarshalText()
		var back Status
		if err != nil || back.UnmarshalText(b) != nil || back != st {
			t.Errorf("status %s: text %q err %v gives back %s", st, b, err, back)
		}
	}
	for _, id := range []JobID{testJob, NewJobID()} {
		b, err := id.MarshalText()
		var back JobID
		if err != nil || back.UnmarshalText(b) != nil || back != id || len(b) != 36 || string(b) != strings.ToLower(string(b)) {
			t.Errorf("job id %s: text %q err %v gives back %s", id, b, err, back)
		}
		if got, ok := JobIDFromStream(id.Stream()); !ok || got != id {
			t.Errorf("JobIDFromStream(%s) = %s %v", id.Stream(), got, ok)
		}
	}
	for _, bad := range []string{"", "unknown", "Input-Proof", "input_proof", "inputProof", " input-proof"} {
		k := UserDecrypt
		if err := k.UnmarshalText([]byte(bad)); err == nil || k != UserDecrypt {
			t.Errorf("kind %q was accepted (or the failed read changed the value to %s)", bad, k)
		}
	}
	for _, bad := range []string{"", "none", "Queued", "tx-in-flight", "done", "completed "} {
		st := Processing
		if err := st.UnmarshalText([]byte(bad)); err == nil || st != Processing {
			t.Errorf("status %q was accepted (or the failed read changed the value to %s)", bad, st)
		}
	}
	for _, bad := range []string{"", "not-a-uuid", "0b8ad7a42f0e4c4f9d7e5a1d3c0e9f11", "{0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11}",
		"0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9fzz", "urn:uuid:0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"} {
		id := testJob
		if err := id.UnmarshalText([]byte(bad)); err == nil || id != testJob {
			t.Errorf("job id %q was accepted (or the failed read changed the value to %s)", bad, id)
		}
	}
}

func TestTheZeroKindAndStatusRefuseToMarshal(t *testing.T) {
	if b, err := (Kind{}).MarshalText(); err == nil {
		t.Errorf("the zero kind marshals to %q", b)
	}
	if b, err := (Status{}).MarshalText(); err == nil {
		t.Errorf("the zero status marshals to %q", b)
	}
	if b, err := json.Marshal(RequestAccepted{EventHeader: EventHeader{JobID: testJob}, Status: Queued}); err == nil {
		t.Errorf("RequestAccepted with no kind is stored as %s", b)
	}
	if b, err := json.Marshal(RequestAccepted{EventHeader: EventHeader{JobID: testJob}, Kind: InputProof}); err == nil {
		t.Errorf("RequestAccepted with no status is stored as %s", b)
	}
}

// cloneState is a deep copy of s (Shares up to their length).
func cloneState(s State) State {
	c := s
	if r := s.Request.InputProof; r != nil {
		v := *r
		c.Request.InputProof = &v
	}
	if r := s.Request.PublicDecrypt; r != nil {
		v := *r
		v.CiphertextHandles = slices.Clone(r.CiphertextHandles)
		c.Request.PublicDecrypt = &v
	}
	if r := s.Request.UserDecrypt; r != nil {
		v := *r
		v.HandleContractPairs = slices.Clone(r.HandleContractPairs)
		v.ContractAddresses = slices.Clone(r.ContractAddresses)
		c.Request.UserDecrypt = &v
	}
	if s.Result != nil {
		r := *s.Result
		if p := r.InputProof; p != nil {
			v := *p
			v.Handles, v.Signatures = slices.Clone(p.Handles), slices.Clone(p.Signatures)
			r.InputProof = &v
		}
		if p := r.PublicDecrypt; p != nil {
			v := *p
			v.Signatures = slices.Clone(p.Signatures)
			r.PublicDecrypt = &v
		}
		if p := r.UserDecrypt; p != nil {
			v := *p
			v.Result = slices.Clone(p.Result)
			r.UserDecrypt = &v
		}
		c.Result = &r
	}
	c.Shares = slices.Clone(s.Shares)
	return c
}

func TestDecideNeverChangesItsInputState(t *testing.T) {
	at := t0.Add(time.Hour)
	for _, k := range everyKind {
		for _, r := range routes(k) {
			s, _ := drive(t, k, r)
			for _, c := range append([]Command{accept(k, at)}, func() (cs []Command) {
				for _, v := range variants {
					cs = append(cs, v.build(s, at))
				}
				return
			}()...) {
				before := cloneState(s)
				Decide(s, c)
				if !reflect.DeepEqual(s, before) {
					t.Errorf("%s on a %s job (%s) changed the state:\n before %+v\n after  %+v", c.CommandName(), k, r.name, before, s)
				}
			}
		}
	}
}

func TestRecordingAShareNeverWritesIntoTheStatesSharesArray(t *testing.T) {
	s := userDecryptAwaitingShares(t)
	s = apply(s, mustDecide(t, s, RecordShare{At{t0}, share(0), 5}))
	// Give the state spare capacity holding sentinels, as a caller's slice might.
	backing := make([]Share, 4)
	backing[0] = s.Shares[0]
	for i := 1; i < len(backing); i++ {
		backing[i] = Share{Signer: "sentinel"}
	}
	s.Shares = backing[:1]
	want := slices.Clone(backing)
	for _, thr := range []int{2, 5} {
		evs := mustDecide(t, s, RecordShare{At{t0}, share(1), thr})
		if !reflect.DeepEqual(backing, want) {
			t.Fatalf("Decide(RecordShare, threshold %d) wrote into the state's Shares backing array: %+v", thr, backing)
		}
		// Evolving two different shares from the same state must not clobber each other either.
		a := Evolve(s, evs[0])
		b := Evolve(s, ShareReceived{EventHeader{testJob, t0}, share(2)})
		if !reflect.DeepEqual(backing, want) || a.Shares[1] != share(1) || b.Shares[1] != share(2) {
			t.Fatalf("Evolve(ShareReceived) shares the state's backing array: a %+v b %+v backing %+v", a.Shares, b.Shares, backing)
		}
	}
}

// A fee bump replaces the job's latest transaction at the same nonce: the status stays
// tx_in_flight, the replacement is what is sent from then on, and the receipt of any of the
// job's transactions of that nonce is the job's (only one of them can be mined).
func TestAReplacedTransactionKeepsEveryHashOfItsNonceForTheReceipt(t *testing.T) {
	for _, k := range everyKind {
		s, _ := driveTo(t, k, TxInFlight)
		first := s.TxHash
		s1 := apply(s, mustDecide(t, s, ReplaceTransaction{At{t0}, first, txHashFor(50), testRawTx + "01", "2", "1", false}))
		if s1.Status != TxInFlight || s1.TxHash != txHashFor(50) || s1.RawTx != testRawTx+"01" || len(s1.Replaced) != 1 || s1.Replaced[0].TxHash != first {
			t.Fatalf("%s after a replacement: %+v", k, s1)
		}
		// Only the latest can be replaced, and by a transaction the job does not have yet.
		for _, c := range []ReplaceTransaction{
			{At{t0}, first, txHashFor(51), testRawTx, "3", "1", false},
			{At{t0}, txHashFor(50), first, testRawTx, "3", "1", false},
			{At{t0}, txHashFor(50), "", testRawTx, "3", "1", false},
			{At{t0}, txHashFor(50), txHashFor(51), "", "3", "1", false},
		} {
			if evs, err := Decide(s1, c); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
				t.Errorf("%s: replace %s by %s gave %d events and %v, want ErrInvalidCommand", k, c.Replaces, c.TxHash, len(evs), err)
			}
		}
		s2 := apply(s1, mustDecide(t, s1, ReplaceTransaction{At{t0}, txHashFor(50), txHashFor(51), testRawTx + "02", "3", "1", false}))
		if got := s2.Sent(); len(got) != 3 || got[0].TxHash != txHashFor(51) || got[1].TxHash != txHashFor(50) || got[2].TxHash != first {
			t.Fatalf("%s: Sent() = %+v, want the latest first", k, got)
		}
		// The first transaction was the one mined: its receipt is the job's.
		r := apply(s2, mustDecide(t, s2, RecordReceipt{At{t0}, first, 9, "17"}))
		if r.Status != ReceiptReceived || r.GatewayRequestID != "17" {
			t.Fatalf("%s: receipt of the replaced transaction: %+v", k, r)
		}
		if evs, err := Decide(s2, RecordReceipt{At{t0}, txHashFor(999), 9, "17"}); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
			t.Errorf("%s: a receipt for a transaction the job never had gave %d events and %v", k, len(evs), err)
		}
		// A reset forgets them all; the next signing starts a new nonce's list.
		p := apply(s2, mustDecide(t, s2, ResetTransaction{At{t0}, "nonce taken"}))
		if p.Status != Processing || p.TxHash != "" || len(p.Replaced) != 0 || len(p.Sent()) != 0 {
			t.Fatalf("%s after a reset: %+v", k, p)
		}
		if evs, err := Decide(p, ReplaceTransaction{At{t0}, txHashFor(51), txHashFor(52), testRawTx, "4", "1", false}); !errors.Is(err, ErrIllegalTransition) || len(evs) != 0 {
			t.Errorf("%s: a replacement in processing gave %d events and %v, want ErrIllegalTransition", k, len(evs), err)
		}
	}
}

// A processing job whose transaction could not be prepared for a passing reason records when it
// is tried again; it stays processing. A queued decrypt's readiness check can too; no other
// status can, and only with what it needs.
func TestARetryIsScheduledOnlyForAQueuedOrProcessingJob(t *testing.T) {
	for _, k := range decrypts {
		q, _ := driveTo(t, k, Queued)
		s := apply(q, mustDecide(t, q, ScheduleRetry{At{t0}, "readiness", 1, "transport error", t0.Add(time.Second), ""}))
		if s.Status != Queued || s.Retries != 1 {
			t.Fatalf("%s queued after a scheduled retry: %+v", k, s)
		}
	}
	next := t0.Add(time.Minute)
	for _, k := range everyKind {
		p, _ := driveTo(t, k, Processing)
		s := apply(p, mustDecide(t, p, ScheduleRetry{At{t0}, "prepare", 1, "transport error", next, LabelGatewayNotReachable}))
		if s.Status != Processing || s.Events != p.Events+1 || s.Retries != 1 || !s.RetryAt.Equal(next) {
			t.Fatalf("%s after a scheduled retry: %+v", k, s)
		}
		s2 := apply(s, mustDecide(t, s, ScheduleRetry{At{t0}, "prepare", 2, "transport error", next.Add(time.Minute), LabelProtocolPaused}))
		if s2.Retries != 2 || s2.RetryLabel != LabelProtocolPaused {
			t.Fatalf("%s after a second retry: %d retries, label %q", k, s2.Retries, s2.RetryLabel)
		}
		// At its processing deadline the job fails with the label its retries named; only a
		// processing job can expire so, and never one whose transaction is signed.
		x := apply(s2, mustDecide(t, s2, ExpireProcessing{At{t0}, s2.RetryLabel, "paused since"}))
		if x.Status != Failure || x.Label != LabelProtocolPaused {
			t.Fatalf("%s expired: %s %q", k, x.Status, x.Label)
		}
		if evs, err := Decide(s2, ExpireProcessing{At{t0}, "", "x"}); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
			t.Errorf("%s: an expiry without a label gave %d events and %v", k, len(evs), err)
		}
		// Signing the transaction ends the step: the count starts again in the next status.
		if f := apply(s2, mustDecide(t, s2, SignTransaction{At: At{t0}, From: testFrom, Nonce: 1, TxHash: txHashFor(7), RawTx: testRawTx})); f.Retries != 0 || !f.RetryAt.IsZero() {
			t.Fatalf("%s: a signed job keeps %d retries due %v", k, f.Retries, f.RetryAt)
		}
		for _, c := range []ScheduleRetry{{At{t0}, "", 1, "x", next, ""}, {At{t0}, "prepare", 0, "x", next, ""}, {At{t0}, "prepare", 1, "x", time.Time{}, ""}} {
			if evs, err := Decide(p, c); !errors.Is(err, ErrInvalidCommand) || len(evs) != 0 {
				t.Errorf("%s: %+v gave %d events and %v, want ErrInvalidCommand", k, c, len(evs), err)
			}
		}
		f, _ := driveTo(t, k, TxInFlight)
		if evs, err := Decide(f, ExpireProcessing{At{t0}, LabelGatewayNotReachable, "x"}); !errors.Is(err, ErrIllegalTransition) || len(evs) != 0 {
			t.Errorf("%s in tx_in_flight: expiry gave %d events and %v, want ErrIllegalTransition", k, len(evs), err)
		}
		if evs, err := Decide(f, ScheduleRetry{At{t0}, "prepare", 1, "x", next, ""}); !errors.Is(err, ErrIllegalTransition) || len(evs) != 0 {
			t.Errorf("%s in tx_in_flight: %d events and %v, want ErrIllegalTransition", k, len(evs), err)
		}
	}
}
