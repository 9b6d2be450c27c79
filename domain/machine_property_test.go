package domain

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Random command sequences against the invariants of DESIGN section 3. Deterministic per seed:
// the seed is logged, and -domain.seed=N or DOMAIN_PROPERTY_SEED=N replays a run (sequence i uses
// the PCG stream (seed, i), so a failure names the one sequence to replay).

var (
	propertySeed      = flag.Uint64("domain.seed", 0, "seed for the domain property tests (0: from DOMAIN_PROPERTY_SEED, else random)")
	propertySequences = flag.Int("domain.sequences", 0, "random sequences for the domain property tests (0: from DOMAIN_PROPERTY_SEQUENCES, else 20000)")
)

const maxSequenceLength = 30

func propertyConfig(t *testing.T) (seed uint64, sequences int) {
	seed, sequences = *propertySeed, *propertySequences
	if seed == 0 {
		if v := os.Getenv("DOMAIN_PROPERTY_SEED"); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatalf("DOMAIN_PROPERTY_SEED=%q: %v", v, err)
			}
			seed = n
		} else {
			seed = rand.Uint64()
		}
	}
	if sequences == 0 {
		sequences = 20000
		if v := os.Getenv("DOMAIN_PROPERTY_SEQUENCES"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("DOMAIN_PROPERTY_SEQUENCES=%q: %v", v, err)
			}
			sequences = n
		}
		if testing.Short() {
			sequences /= 10
		}
	}
	t.Logf("seed %d, %d sequences (replay with -domain.seed=%d or DOMAIN_PROPERTY_SEED=%d)", seed, sequences, seed, seed)
	return seed, sequences
}

// gen makes random commands for one job: random kinds and arguments, duplicates, wrong kinds and
// missing fields, biased towards commands that move the job on so that deep statuses are visited.
type gen struct {
	r    *rand.Rand
	job  JobID
	kind Kind
	at   time.Time
	n    int
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func (g *gen) label() string {
	if g.r.IntN(10) == 0 {
		return ""
	}
	return pick(g.r, LabelNotAllowedOnHostACL, LabelReadinessCheckFailed, LabelTransactionReverted, LabelTxInFlightTimedOut, LabelInternalServerError)
}

func (g *gen) orEmpty(s string) string {
	if g.r.IntN(12) == 0 {
		return ""
	}
	return s
}

func (g *gen) request() Request {
	switch g.r.IntN(25) {
	case 0:
		return Request{}
	case 1:
		r := sampleRequest(g.kind)
		r.InputProof, r.PublicDecrypt = sampleRequest(InputProof).InputProof, sampleRequest(PublicDecrypt).PublicDecrypt
		return r
	}
	return sampleRequest(g.kind)
}

func (g *gen) result() Result {
	var r Result
	switch g.r.IntN(12) {
	case 0:
		r = Result{}
	case 1:
		r = sampleResult(InputProof)
		r.UserDecrypt = sampleResult(UserDecrypt).UserDecrypt
	case 2, 3:
		r = sampleResult(pick(g.r, everyKind...))
	default:
		r = sampleResult(g.kind)
	}
	if r.InputProof != nil && g.r.IntN(4) == 0 {
		r.InputProof.Accepted = false
	}
	return r
}

// commandMakers builds each of the 20 commands with random arguments.
var commandMakers = []func(g *gen, s State) Command{
	func(g *gen, s State) Command {
		id := g.job
		if g.r.IntN(25) == 0 {
			id = JobID{}
		}
		return Accept{At{g.at}, id, g.request(), g.orEmpty("0xcontent"), nil}
	},
	func(g *gen, s State) Command { return StartReadiness{At{g.at}} },
	func(g *gen, s State) Command { return PassReadiness{At{g.at}} },
	func(g *gen, s State) Command { return TimeOutReadiness{At{g.at}} },
	func(g *gen, s State) Command { return FailReadiness{At{g.at}, g.label(), "readiness"} },
	func(g *gen, s State) Command {
		return SignTransaction{At{g.at}, g.orEmpty(testFrom), uint64(g.r.IntN(4)), g.orEmpty(txHashFor(g.r.IntN(3))), g.orEmpty(testRawTx), time.Time{}}
	},
	func(g *gen, s State) Command { return ResetTransaction{At{g.at}, pick(g.r, "", "dropped")} },
	func(g *gen, s State) Command {
		h := s.TxHash
		if h == "" || g.r.IntN(5) == 0 {
			h = pick(g.r, "", txHashFor(0), txHashFor(1), txHashFor(2))
		}
		return RecordReceipt{At{g.at}, h, uint64(g.r.IntN(100)), g.orEmpty("gw-" + strconv.Itoa(g.r.IntN(3)))}
	},
	func(g *gen, s State) Command { return FailTransaction{At{g.at}, g.label(), "tx"} },
	func(g *gen, s State) Command {
		sh := Share{Signer: pick(g.r, "kms-0", "kms-1", "kms-2", "kms-3", "kms-4"), Signature: "sig", ExtraData: "0x00"}
		if g.r.IntN(15) == 0 {
			sh.Signer = ""
		}
		sh.Payload = fmt.Sprintf("payload-%s-%d", sh.Signer, g.n)
		threshold := 1 + g.r.IntN(4)
		if g.r.IntN(15) == 0 {
			threshold = pick(g.r, 0, -1)
		}
		return RecordShare{At{g.at}, sh, threshold}
	},
	func(g *gen, s State) Command { return Complete{At{g.at}, g.result()} },
	func(g *gen, s State) Command { return RejectProof{At{g.at}, pick(g.r, "", "0x01")} },
	func(g *gen, s State) Command { return TimeOutResponse{At{g.at}} },
	func(g *gen, s State) Command { return Fail{At{g.at}, g.label(), "internal"} },
	// The operator's actions (indexes 14 to 18), and the retries they act on (19).
	func(g *gen, s State) Command { return Cancel{At{g.at}, g.orEmpty("admin:0a1b2c3d"), "stuck", nil} },
	func(g *gen, s State) Command {
		return ReplaceTransaction{At{g.at}, s.TxHash, txHashFor(10 + g.n), testRawTx, "3", "2", g.r.IntN(2) == 0}
	},
	func(g *gen, s State) Command {
		h := s.CancelTx
		if h == "" || g.r.IntN(5) == 0 {
			h = pick(g.r, "", s.TxHash, txHashFor(0))
		}
		return ConfirmCancel{At{g.at}, h, uint64(g.r.IntN(100))}
	},
	func(g *gen, s State) Command { return Retry{At{g.at}, g.orEmpty("admin:0a1b2c3d"), "again"} },
	func(g *gen, s State) Command {
		return LinkRetry{At{g.at}, "admin:0a1b2c3d", "again", pick(g.r, JobID{}, s.JobID, JobIDFor("0xnext", uint32(g.n)))}
	},
	func(g *gen, s State) Command {
		return ScheduleRetry{At{g.at}, pick(g.r, "", "prepare"), g.r.IntN(3), "down", g.at.Add(time.Duration(g.r.IntN(3)) * time.Minute), LabelGatewayNotReachable}
	},
}

// useful lists, per status, the commands (indexes into commandMakers) that may move the job on.
var useful = map[Status][]int{
	{}:              {0},
	Queued:          {1, 1, 2, 2, 2, 3, 4, 17, 19},
	Processing:      {5, 5, 5, 8, 17, 19},
	TxInFlight:      {6, 7, 7, 7, 8, 14, 15, 16},
	ReceiptReceived: {9, 9, 9, 9, 10, 10, 11, 12},
}

func (g *gen) command(s State) Command {
	g.n++
	g.at = g.at.Add(time.Duration(g.r.IntN(3)) * time.Minute) // equal times happen too
	i := g.r.IntN(len(commandMakers))
	if u := useful[s.Status]; len(u) > 0 && g.r.IntN(10) < 6 {
		i = pick(g.r, u...)
	}
	if s.Status.IsZero() && g.r.IntN(10) == 0 {
		i = g.r.IntN(len(commandMakers)) // commands on an empty stream
	}
	return commandMakers[i](g, s)
}

// expectation is what DESIGN section 3 (through the hand-written tables of machine_test.go) says
// a command does to a state: no errors and the status it leads to with the events it produces,
// or the errors any of which may reject it (when several rules are broken, the order in which the
// code checks them is not specified).
type expectation struct {
	errs   []error
	to     Status
	events []string
}

func expect(s State, c Command) expectation {
	if a, ok := c.(Accept); ok {
		switch {
		case !s.Status.IsZero():
			return expectation{errs: []error{ErrAlreadyAccepted}}
		case a.JobID.IsZero() || a.Request.Kind().IsZero() || a.ContentHash == "":
			return expectation{errs: []error{ErrInvalidCommand}}
		}
		return expectation{to: designInitial[a.Request.Kind()], events: []string{"RequestAccepted"}}
	}
	if s.Status.IsZero() {
		return expectation{errs: []error{ErrNoRequest}}
	}
	// The operator's actions, each written from its rule (see Retry, LinkRetry, Cancel).
	actionError := func(c interface{ Time() time.Time }, who, reason string) []error {
		if who == "" || strings.TrimSpace(reason) == "" || len(reason) > MaxCancelReason {
			return []error{ErrInvalidCommand}
		}
		return nil
	}
	stay := func(events ...string) expectation { return expectation{to: s.Status, events: events} }
	switch c := c.(type) {
	case Retry:
		if errs := actionError(c, c.Who, c.Reason); errs != nil {
			return expectation{errs: errs}
		}
		switch s.Status {
		case Queued, Processing:
			if s.RetryAt.After(c.At.At) {
				return stay("RetryRequested")
			}
			return expectation{errs: []error{ErrNotWaiting}}
		case TxInFlight, ReceiptReceived:
			return expectation{errs: []error{ErrAlreadySent}}
		case Completed:
			return expectation{errs: []error{ErrCompleted}}
		}
		if !s.RetriedAs.IsZero() {
			return expectation{errs: []error{ErrAlreadyRetried}}
		}
		return expectation{errs: []error{ErrEnded}}
	case LinkRetry:
		switch {
		case c.Who == "" || c.NewJob.IsZero() || c.NewJob == s.JobID:
			return expectation{errs: []error{ErrInvalidCommand}}
		case s.Status != Failure && s.Status != TimedOut:
			return expectation{errs: []error{ErrIllegalTransition}}
		case !s.RetriedAs.IsZero():
			return expectation{errs: []error{ErrAlreadyRetried}}
		}
		return stay("JobRetried")
	}
	if s.Status.Terminal() {
		return expectation{errs: []error{ErrTerminal}}
	}
	switch c := c.(type) {
	case Cancel:
		if errs := actionError(c, c.Who, c.Reason); errs != nil {
			return expectation{errs: errs}
		}
		switch {
		case s.Status == ReceiptReceived:
			return expectation{errs: []error{ErrAlreadySent}}
		case s.Status == TxInFlight && s.Cancelling != nil:
			return expectation{errs: []error{ErrCancelPending}}
		case s.Status == TxInFlight:
			return stay("CancelRequested")
		}
		return expectation{to: Failure, events: []string{"JobCancelled"}}
	case ReplaceTransaction:
		var errs []error
		if c.TxHash == "" || c.RawTx == "" || c.Replaces == "" || c.Replaces != s.TxHash || s.sent(c.TxHash) ||
			(c.Cancel && s.Cancelling == nil) || (!c.Cancel && s.Cancelling != nil) {
			errs = append(errs, ErrInvalidCommand)
		}
		if s.Status != TxInFlight {
			errs = append(errs, ErrIllegalTransition)
		}
		if errs != nil {
			return expectation{errs: errs}
		}
		return stay("TransactionReplaced")
	case ConfirmCancel:
		var errs []error
		if c.TxHash == "" || s.Cancelling == nil || !s.isNoOp(c.TxHash) {
			errs = append(errs, ErrInvalidCommand)
		}
		if s.Status != TxInFlight {
			errs = append(errs, ErrIllegalTransition)
		}
		if errs != nil {
			return expectation{errs: errs}
		}
		return expectation{to: Failure, events: []string{"JobCancelled"}}
	case ScheduleRetry:
		var errs []error
		if c.Step == "" || c.Attempt < 1 || c.NextAt.IsZero() {
			errs = append(errs, ErrInvalidCommand)
		}
		if s.Status != Queued && s.Status != Processing {
			errs = append(errs, ErrIllegalTransition)
		}
		if errs != nil {
			return expectation{errs: errs}
		}
		return stay("RetryScheduled")
	case ResetTransaction:
		if s.Status == TxInFlight && s.Cancelling != nil {
			return expectation{to: Failure, events: []string{"JobCancelled"}} // nothing of the job's can be mined
		}
	}
	var v variant
	invalid := false
	duplicate := false
	switch c := c.(type) {
	case StartReadiness:
		v = variantNamed("start readiness")
	case PassReadiness:
		v = variantNamed("pass readiness")
	case TimeOutReadiness:
		v = variantNamed("time out readiness")
	case FailReadiness:
		v, invalid = variantNamed("fail readiness"), c.Label == ""
	case SignTransaction:
		v, invalid = variantNamed("sign transaction"), c.From == "" || c.TxHash == "" || c.RawTx == ""
	case ResetTransaction:
		v = variantNamed("reset transaction")
	case RecordReceipt:
		v, invalid = variantNamed("record receipt"), c.TxHash == "" || c.GatewayRequestID == "" || !s.sent(c.TxHash) || s.isNoOp(c.TxHash)
	case FailTransaction:
		v, invalid = variantNamed("fail transaction"), c.Label == ""
	case RecordShare:
		v = variantNamed("record share below the threshold")
		if len(s.Shares)+1 >= c.Threshold {
			v = variantNamed("record share reaching the threshold")
		}
		invalid = c.Share.Signer == "" || c.Threshold < 1
		duplicate = slices.ContainsFunc(s.Shares, func(h Share) bool { return h.Signer == c.Share.Signer })
	case Complete:
		v = variantNamed("complete")
		invalid = c.Result.Kind() != s.Kind || (c.Result.InputProof != nil && !c.Result.InputProof.Accepted)
	case RejectProof:
		v = variantNamed("reject proof")
	case TimeOutResponse:
		v = variantNamed("time out response")
	case Fail:
		v, invalid = variantNamed("fail"), c.Label == ""
	default:
		return expectation{errs: []error{ErrInvalidCommand}}
	}
	var e expectation
	if !slices.Contains(v.kinds, s.Kind) {
		e.errs = append(e.errs, ErrWrongKind)
	}
	if invalid {
		e.errs = append(e.errs, ErrInvalidCommand)
	}
	if duplicate {
		e.errs = append(e.errs, ErrDuplicateShare)
	}
	to, ok := v.moves[s.Status]
	if !ok {
		e.errs = append(e.errs, ErrIllegalTransition)
	}
	if e.errs == nil {
		e.to, e.events = to, v.events
	}
	return e
}

func describe(c Command) string {
	return strings.TrimPrefix(fmt.Sprintf("%T%+v", c, c), "domain.")
}

// sequence runs one random sequence and checks every invariant after every step.
type sequence struct {
	t       *testing.T
	seed    uint64
	index   int
	history []step
	failed  bool
	cov     *coverage
	// deep also compares states with reflect.DeepEqual (slow under -race, so on some sequences
	// only), as a cross-check of statesEqual.
	deep bool
}

func (q *sequence) equal(a, b State) bool {
	if q.deep && !reflect.DeepEqual(a, b) {
		return false
	}
	return statesEqual(a, b)
}

// statesEqual compares every field of two states, pointees and slice elements included (nil and
// empty slices are equal). TestStatesEqualKnowsEveryField keeps it in step with State.
func statesEqual(a, b State) bool {
	return a.JobID == b.JobID && a.Kind == b.Kind && a.Status == b.Status && a.ContentHash == b.ContentHash &&
		requestsEqual(a.Request, b.Request) && a.Events == b.Events && a.EnteredAt == b.EnteredAt &&
		a.Retries == b.Retries && a.RetryAt.Equal(b.RetryAt) && a.RetryLabel == b.RetryLabel &&
		a.ReadinessStarted == b.ReadinessStarted && a.From == b.From && a.Nonce == b.Nonce &&
		a.TxHash == b.TxHash && a.RawTx == b.RawTx && slices.Equal(a.Replaced, b.Replaced) && a.GatewayRequestID == b.GatewayRequestID &&
		slices.Equal(a.Shares, b.Shares) && resultsEqual(a.Result, b.Result) &&
		a.Label == b.Label && a.Message == b.Message &&
		ptrsEqual(a.Cancelling, b.Cancelling, func(x, y *CancelRequested) bool { return *x == *y }) && a.CancelTx == b.CancelTx &&
		slices.Equal(a.noOps, b.noOps) && ptrsEqual(a.RetryOf, b.RetryOf, func(x, y *RetryOf) bool { return *x == *y }) && a.RetriedAs == b.RetriedAs &&
		a.CorrelationID == b.CorrelationID
}

func ptrsEqual[T any](a, b *T, eq func(a, b *T) bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return eq(a, b)
}

func requestsEqual(a, b Request) bool {
	return ptrsEqual(a.InputProof, b.InputProof, func(x, y *InputProofRequest) bool { return *x == *y }) &&
		ptrsEqual(a.PublicDecrypt, b.PublicDecrypt, func(x, y *PublicDecryptRequest) bool {
			return slices.Equal(x.CiphertextHandles, y.CiphertextHandles) && x.ExtraData == y.ExtraData
		}) &&
		ptrsEqual(a.UserDecrypt, b.UserDecrypt, func(x, y *UserDecryptRequest) bool {
			return slices.Equal(x.HandleContractPairs, y.HandleContractPairs) && x.RequestValidity == y.RequestValidity &&
				x.ContractsChainID == y.ContractsChainID && slices.Equal(x.ContractAddresses, y.ContractAddresses) &&
				x.UserAddress == y.UserAddress && x.Signature == y.Signature && x.PublicKey == y.PublicKey && x.ExtraData == y.ExtraData
		}) &&
		ptrsEqual(a.DelegatedUserDecrypt, b.DelegatedUserDecrypt, func(x, y *DelegatedUserDecryptRequest) bool {
			return slices.Equal(x.HandleContractPairs, y.HandleContractPairs) && x.ContractsChainID == y.ContractsChainID &&
				slices.Equal(x.ContractAddresses, y.ContractAddresses) && x.DelegatorAddress == y.DelegatorAddress &&
				x.DelegateAddress == y.DelegateAddress && x.StartTimestamp == y.StartTimestamp && x.DurationDays == y.DurationDays &&
				x.Signature == y.Signature && x.PublicKey == y.PublicKey && x.ExtraData == y.ExtraData
		}) &&
		ptrsEqual(a.UnifiedUserDecrypt, b.UnifiedUserDecrypt, func(x, y *UnifiedUserDecryptRequest) bool {
			return slices.Equal(x.Handles, y.Handles) && x.UserAddress == y.UserAddress &&
				slices.Equal(x.AllowedContracts, y.AllowedContracts) && x.StartTimestamp == y.StartTimestamp &&
				x.DurationSeconds == y.DurationSeconds && x.PublicKey == y.PublicKey && x.ExtraData == y.ExtraData &&
				x.Signature == y.Signature
		})
}

func resultsEqual(a, b *Result) bool {
	return ptrsEqual(a, b, func(a, b *Result) bool {
		return ptrsEqual(a.InputProof, b.InputProof, func(x, y *InputProofResult) bool {
			return x.Accepted == y.Accepted && slices.Equal(x.Handles, y.Handles) && slices.Equal(x.Signatures, y.Signatures) && x.ExtraData == y.ExtraData
		}) &&
			ptrsEqual(a.PublicDecrypt, b.PublicDecrypt, func(x, y *PublicDecryptResult) bool {
				return x.DecryptedValue == y.DecryptedValue && slices.Equal(x.Signatures, y.Signatures) && x.ExtraData == y.ExtraData
			}) &&
			ptrsEqual(a.UserDecrypt, b.UserDecrypt, func(x, y *UserDecryptResult) bool { return slices.Equal(x.Result, y.Result) })
	})
}

// TestStatesEqualKnowsEveryField fails when a struct statesEqual compares by hand gains a field,
// so that the property test's equality never silently ignores part of the state.
func TestStatesEqualKnowsEveryField(t *testing.T) {
	for typ, n := range map[reflect.Type]int{
		reflect.TypeFor[State]():                       27,
		reflect.TypeFor[Request]():                     5,
		reflect.TypeFor[UnifiedUserDecryptRequest]():   8,
		reflect.TypeFor[HandleEntry]():                 3,
		reflect.TypeFor[DelegatedUserDecryptRequest](): 10,
		reflect.TypeFor[PublicDecryptRequest]():        2,
		reflect.TypeFor[UserDecryptRequest]():          8,
		reflect.TypeFor[Result]():                      3,
		reflect.TypeFor[InputProofResult]():            4,
		reflect.TypeFor[PublicDecryptResult]():         3,
		reflect.TypeFor[UserDecryptResult]():           1,
	} {
		if typ.NumField() != n {
			t.Errorf("%s has %d fields, statesEqual compares %d: update statesEqual", typ, typ.NumField(), n)
		}
	}
	// Every field of a fully populated state matters.
	s, _ := drive(t, UserDecrypt, route{"completed", Completed, []string{"start readiness", "pass readiness", "sign transaction", "record receipt", "record share reaching the threshold"}})
	s.Label, s.Message = "l", "m"
	base := cloneState(s)
	mutations := []func(*State){
		func(s *State) { s.JobID[3]++ }, func(s *State) { s.Kind = PublicDecrypt }, func(s *State) { s.Status = Failure },
		func(s *State) { s.ContentHash += "x" }, func(s *State) { s.Request.UserDecrypt.ContractAddresses[0] += "x" },
		func(s *State) { s.Request.UserDecrypt.HandleContractPairs[0].Handle += "x" }, func(s *State) { s.Request.UserDecrypt.PublicKey += "x" },
		func(s *State) { s.Request.InputProof = &InputProofRequest{} }, func(s *State) { s.Events++ },
		func(s *State) { s.EnteredAt = s.EnteredAt.Add(1) }, func(s *State) { s.ReadinessStarted = !s.ReadinessStarted },
		func(s *State) { s.From += "x" }, func(s *State) { s.Nonce++ }, func(s *State) { s.TxHash += "x" }, func(s *State) { s.RawTx += "x" },
		func(s *State) { s.GatewayRequestID += "x" }, func(s *State) { s.Shares[0].Payload += "x" }, func(s *State) { s.Shares = nil },
		func(s *State) { s.Result.UserDecrypt.Result[0].Signature += "x" }, func(s *State) { s.Result = nil },
		func(s *State) { s.Result.PublicDecrypt = &PublicDecryptResult{} }, func(s *State) { s.Label += "x" }, func(s *State) { s.Message += "x" },
		func(s *State) { s.Cancelling = &CancelRequested{Who: "w"} }, func(s *State) { s.CancelTx += "x" },
		func(s *State) { s.noOps = append(s.noOps, "x") }, func(s *State) { s.RetryOf = &RetryOf{Who: "w"} },
		func(s *State) { s.RetriedAs[1]++ }, func(s *State) { s.CorrelationID += "x" },
	}
	for i, m := range mutations {
		c := cloneState(base)
		m(&c)
		if statesEqual(c, base) || statesEqual(base, c) {
			t.Errorf("statesEqual misses mutation %d", i)
		}
	}
	if !statesEqual(cloneState(base), base) {
		t.Errorf("statesEqual: a state differs from its deep copy")
	}
}

// step is one command of a sequence, formatted only when a failure reports it.
type step struct {
	from   Status
	c      Command
	events []Event
	err    error
}

func (q *sequence) fail(format string, args ...any) {
	q.t.Helper()
	q.failed = true
	lines := make([]string, len(q.history))
	for i, h := range q.history {
		lines[i] = fmt.Sprintf("%s in %s -> %v %v", describe(h.c), h.from, eventTypes(h.events), h.err)
	}
	q.t.Errorf("seed %d, sequence %d, step %d: %s\nsteps so far:\n  %s", q.seed, q.index, len(q.history),
		fmt.Sprintf(format, args...), strings.Join(lines, "\n  "))
}

func (q *sequence) run(r *rand.Rand) {
	g := &gen{r: r, job: JobID(jobIDFromRand(r)), kind: pick(r, everyKind...), at: t0}
	var (
		s        State
		all      []Event
		inFlight bool // a TransactionSigned not yet followed by a TransactionReset
	)
	steps := 1 + r.IntN(maxSequenceLength)
	for i := 0; i < steps && !q.failed; i++ {
		c := g.command(s)
		before := cloneState(s)
		evs, err := Decide(s, c)
		q.history = append(q.history, step{s.Status, c, evs, err})
		if !q.equal(s, before) {
			q.fail("Decide changed its input state")
			return
		}
		want := expect(s, c)

		if err != nil {
			q.cov.rejected[c.CommandName()]++
			if len(evs) != 0 {
				q.fail("a rejected command produced %d events", len(evs))
			}
			if want.errs == nil {
				q.fail("rejected with %v, but DESIGN section 3 allows it (%s -> %s)", err, s.Status, want.to)
			} else if !slices.ContainsFunc(want.errs, func(w error) bool { return errors.Is(err, w) }) {
				q.fail("rejected with %v, want an error matching one of %v", err, want.errs)
			}
			_, isAccept := c.(Accept)
			_, isLink := c.(LinkRetry) // the one command an ended job may take: its own rules
			_, isRetry := c.(Retry)    // which checks its arguments first
			if s.Status.Terminal() && !isAccept && !isLink && !isRetry && !(errors.Is(err, ErrTerminal) && errors.Is(err, ErrIllegalTransition)) {
				q.fail("a terminal job rejected a command with %v, which does not match ErrTerminal and ErrIllegalTransition", err)
			}
			continue // the state is the one we had: nothing is folded
		}

		q.cov.accepted[c.CommandName()]++
		if _, isLink := c.(LinkRetry); s.Status.Terminal() && !isLink {
			q.fail("a %s job in terminal %s produced %v", s.Kind, s.Status, eventTypes(evs))
		}
		if want.errs != nil {
			q.fail("accepted, but DESIGN section 3 and the kind rules reject it with one of %v", want.errs)
		}
		if got := eventTypes(evs); !slices.Equal(got, want.events) {
			q.fail("produced %v, want %v", got, want.events)
		}
		next := s
		for _, e := range evs {
			h := e.Header()
			wantID := s.JobID
			if a, ok := c.(Accept); ok {
				wantID = a.JobID
			}
			if h.JobID != wantID || !h.At.Equal(c.Time()) {
				q.fail("%s has header %s/%v, want %s/%v", e.EventType(), h.JobID, h.At, wantID, c.Time())
			}
			switch e.(type) {
			case TransactionSigned:
				if inFlight {
					q.fail("a second TransactionSigned without a TransactionReset: two gateway requests for one job")
				}
				inFlight = true
			case TransactionReset:
				inFlight = false
			}
			prev, prevEntered := next.Status, next.EnteredAt
			next = Evolve(next, e)
			if next.Status != prev && !next.EnteredAt.Equal(h.At) {
				q.fail("%s moved the job to %s but EnteredAt is %v, want the event's time %v", e.EventType(), next.Status, next.EnteredAt, h.At)
			} else if next.Status == prev && !next.EnteredAt.Equal(prevEntered) {
				q.fail("%s left the status %s but moved EnteredAt to %v", e.EventType(), prev, next.EnteredAt)
			}
			if to, ok := StatusAfter(e); ok && next.Status != to {
				q.fail("Evolve(%s) gave %s, StatusAfter says %s", e.EventType(), next.Status, to)
			} else if !ok && next.Status != prev {
				q.fail("Evolve(%s) moved %s -> %s, StatusAfter says it does not change the status", e.EventType(), prev, next.Status)
			}
		}
		all = append(all, evs...)

		switch {
		case s.Status.IsZero():
			if next.Status != designInitial[next.Kind] {
				q.fail("a %s started in %s, DESIGN says %s", next.Kind, next.Status, designInitial[next.Kind])
			}
		case next.Status != s.Status:
			if !CanTransition(s.Kind, s.Status, next.Status) || !designAllows(s.Kind, s.Status, next.Status) {
				q.fail("a %s job moved %s -> %s: CanTransition %v, DESIGN section 3 %v", s.Kind, s.Status, next.Status,
					CanTransition(s.Kind, s.Status, next.Status), designAllows(s.Kind, s.Status, next.Status))
			}
		}
		if next.Status != want.to {
			q.fail("the job is in %s, want %s", next.Status, want.to)
		}
		if next.Events != len(all) {
			q.fail("State.Events is %d after %d events", next.Events, len(all))
		}
		if folded := Fold(all); !q.equal(folded, next) {
			q.fail("folding every event from scratch differs from the evolved state:\n fold   %+v\n evolve %+v", folded, next)
		}
		signers := map[string]bool{}
		for _, sh := range next.Shares {
			if signers[sh.Signer] {
				q.fail("signer %s recorded twice", sh.Signer)
			}
			signers[sh.Signer] = true
		}
		if next.Kind.CollectsShares() && next.Status == Completed && s.Status != Completed {
			rs, ok := c.(RecordShare)
			if !ok {
				q.fail("a user decrypt completed by %s, not by its shares", c.CommandName())
			} else if len(signers) < rs.Threshold {
				q.fail("a user decrypt completed with %d distinct signers, threshold %d", len(signers), rs.Threshold)
			}
			if next.Result == nil || next.Result.UserDecrypt == nil || len(next.Result.UserDecrypt.Result) != len(next.Shares) {
				q.fail("the completed user decrypt's result %+v does not hold its %d shares", next.Result, len(next.Shares))
			} else {
				for i, sh := range next.Shares {
					if next.Result.UserDecrypt.Result[i].Payload != sh.Payload {
						q.fail("result share %d is %q, want %q (arrival order)", i, next.Result.UserDecrypt.Result[i].Payload, sh.Payload)
					}
				}
			}
		}
		s = next
		q.cov.reached[s.Kind][s.Status]++
	}
}

// jobIDFromRand is a job id drawn from r, so that sequences are deterministic per seed.
func jobIDFromRand(r *rand.Rand) JobID {
	var id JobID
	for i := range id {
		id[i] = byte(r.UintN(256))
	}
	id[0] |= 1 // never the zero id
	return id
}

func TestRandomCommandSequencesKeepEveryInvariantOfTheLifecycle(t *testing.T) {
	seed, sequences := propertyConfig(t)
	cov := &coverage{reached: map[Kind]map[Status]int{}, accepted: map[string]int{}, rejected: map[string]int{}}
	for _, k := range everyKind {
		cov.reached[k] = map[Status]int{}
	}
	for i := 0; i < sequences; i++ {
		q := &sequence{t: t, seed: seed, index: i, cov: cov, deep: i%8 == 0}
		q.run(rand.New(rand.NewPCG(seed, uint64(i))))
		if q.failed {
			return // one counterexample is enough; replay it with the seed
		}
	}
	// The generator must actually explore: every reachable status of every kind, and every
	// command both accepted and rejected.
	if sequences < 2000 {
		return
	}
	for _, k := range everyKind {
		for _, st := range Statuses() {
			if k == InputProof && st == Queued {
				continue
			}
			if cov.reached[k][st] == 0 {
				t.Errorf("no random sequence brought a %s job to %s: the generator does not explore enough", k, st)
			}
		}
	}
	for _, m := range commandMakers {
		name := m(&gen{r: rand.New(rand.NewPCG(1, 1)), kind: InputProof}, State{}).CommandName()
		if cov.accepted[name] == 0 || cov.rejected[name] == 0 {
			t.Errorf("%s was accepted %d and rejected %d times: the generator does not explore enough", name, cov.accepted[name], cov.rejected[name])
		}
	}
	t.Logf("statuses reached: %v; commands accepted: %v", cov.reached, cov.accepted)
}

// coverage counts what the random sequences exercised.
type coverage struct {
	reached            map[Kind]map[Status]int
	accepted, rejected map[string]int
}
