package workers

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/gateway/contracts"
	"relayer/workers/pace"
)

// Load test parameters: C readiness checks at once, D transactions started per second and kind.
const (
	loadJobs        = 1000
	loadC           = 10
	loadD           = 50
	loadAcceptors   = 16
	loadTerminalMax = 5 * time.Minute
)

// loadJob is one job of the load test and what it must end as.
type loadJob struct {
	id       domain.JobID
	kind     domain.Kind
	scenario contracts.Scenario
	req      domain.Request
}

// loadScenario mixes a few unhappy paths into the happy one: 1 job in 40 is denied (proof
// rejected for input proofs), 1 in 40 reverts. 40 and 3 are coprime, so every kind gets both.
func loadScenario(i int) contracts.Scenario {
	switch i % 40 {
	case 7:
		return contracts.ScenarioDenied
	case 26:
		return contracts.ScenarioRevert
	}
	return contracts.ScenarioNone
}

// want is the terminal status and label DESIGN section 10 gives the job's kind and scenario.
func (j loadJob) want() (domain.Status, string) {
	switch j.scenario {
	case contracts.ScenarioDenied:
		if j.kind == domain.InputProof {
			return domain.Failure, domain.LabelProofRejected
		}
		return domain.Failure, domain.LabelNotAllowedOnHostACL
	case contracts.ScenarioRevert:
		return domain.Failure, domain.LabelTransactionReverted
	}
	return domain.Completed, ""
}

// TestLoadThousandMixedJobsKeepCAndD loads the engine with a thousand interleaved jobs of the
// three kinds, accepted within a moment, and checks from the event log alone that every job ends
// as its scenario says, that no kind ever started more than D transactions in one second, that
// no more than C readiness checks were ever in progress at once, that readiness workers picked
// decrypts in the order of acceptance (the queue positions the API shows are the real ones), and
// that no job ever had two live transactions or two gateway requests.
func TestLoadThousandMixedJobsKeepCAndD(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: a thousand jobs through the development chain")
	}
	began := time.Now()
	tuning := retryafter.DefaultConfig()
	tuning.ReadinessMaxConcurrency = loadC
	tuning.InputProofTPS, tuning.UserDecryptTPS, tuning.PublicDecryptTPS = loadD, loadD, loadD
	env := startEngine(t, engineOpts{tuning: tuning})
	ctx := context.Background()

	kinds := domain.Kinds()
	jobs := make([]loadJob, loadJobs)
	for i := range jobs {
		k := kinds[i%len(kinds)]
		s := loadScenario(i)
		jobs[i] = loadJob{id: domain.NewJobID(), kind: k, scenario: s, req: env.request(k, s)}
	}
	byID := make(map[domain.JobID]*loadJob, len(jobs))
	for i := range jobs {
		byID[jobs[i].id] = &jobs[i]
	}

	// Accept as the API does, from a few goroutines, so that every queue is loaded at once.
	acceptStart := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(jobs))
	for g := range loadAcceptors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(jobs); i += loadAcceptors {
				j := jobs[i]
				cmd := domain.Accept{At: domain.At{At: time.Now()}, JobID: j.id, Request: j.req, ContentHash: j.id.String()}
				if _, err := env.exec.Execute(ctx, j.id, cmd, eventstore.Metadata{CorrelationID: j.id.Stream()}); err != nil {
					errs <- fmt.Errorf("accept job %d (%s): %w", i, j.kind, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	accepted := time.Since(acceptStart)
	t.Logf("accepted %d jobs in %v", len(jobs), accepted.Round(time.Millisecond))

	// 1. Every job reaches a terminal state.
	waitAllTerminal(t, env, jobs, loadTerminalMax)
	t.Logf("all %d jobs terminal %v after the first acceptance", len(jobs), time.Since(acceptStart).Round(time.Millisecond))

	// Everything below is measured from the log.
	hist := readJobHistories(t, env, byID)

	for _, k := range kinds {
		t.Logf("%s: last events after the first acceptance: %s", k, hist.timeline(k))
	}

	// 2. Every job ends as its scenario says.
	for i, j := range jobs {
		s, err := env.exec.Load(ctx, j.id)
		if err != nil {
			t.Fatal(err)
		}
		if st, label := j.want(); s.Status != st || s.Label != label {
			t.Errorf("job %d (%s, scenario %s): ended %s %q (%s), want %s %q; events %v",
				i, j.kind, j.scenario, s.Status, s.Label, s.Message, st, label, hist.types(j.id))
		}
	}

	// 3. No kind (family: delegated user decrypts share the user decrypts' D) started more than
	// D transactions in any one-second window.
	var families []domain.Kind
	for _, k := range kinds {
		if k.Family() == k {
			families = append(families, k)
		}
	}
	for _, k := range families {
		times := hist.signed[k.Ordinal()]
		most, at := pace.MaxInWindow(times, time.Second)
		span := time.Duration(0)
		if len(times) > 1 {
			span = times[len(times)-1].Sub(times[0])
		}
		t.Logf("%s: %d transactions signed over %v; at most %d in one second (from %s)",
			k, len(times), span.Round(time.Millisecond), most, at.Format("15:04:05.000000"))
		if most > loadD {
			t.Errorf("%s: %d transactions signed in the second from %s, want at most D=%d",
				k, most, at.Format(time.RFC3339Nano), loadD)
		}
	}

	// 4. No more than C readiness checks in progress at once.
	overlap, at := pace.MaxOverlap(hist.readiness)
	t.Logf("readiness: %d checks; at most %d in progress at once (at %s)", len(hist.readiness), overlap, at.Format("15:04:05.000000"))
	if overlap > loadC {
		t.Errorf("readiness: %d checks in progress at %s, want at most C=%d", overlap, at.Format(time.RFC3339Nano), loadC)
	}

	// 5. Readiness workers picked decrypts in the order they were accepted.
	if first, ok := firstDifference(hist.acceptedDecrypts, hist.picked); !ok {
		moved, most := displacement(hist.acceptedDecrypts, hist.picked)
		t.Errorf("readiness picked decrypts out of acceptance order: first difference at index %d of %d accepted / %d picked (accepted %s, picked %s); %d picked at another place than accepted, at most %d places away",
			first, len(hist.acceptedDecrypts), len(hist.picked), idAt(hist.acceptedDecrypts, first), idAt(hist.picked, first), moved, most)
	}

	// 6. At most one live transaction per job; one gateway request per receipt, and no other.
	for _, v := range hist.violations {
		t.Error(v)
	}
	receipts := map[domain.Kind]int{} // jobs that recorded a receipt, by family
	for _, k := range families {
		seen := map[string]domain.JobID{}
		withReceipt := map[domain.JobID]bool{}
		for _, r := range hist.receipts[k.Ordinal()] {
			if other, dup := seen[r.GatewayRequestID]; dup {
				t.Errorf("%s: gateway request %s recorded by jobs %s and %s", k, r.GatewayRequestID, other, r.JobID)
			}
			seen[r.GatewayRequestID] = r.JobID
			withReceipt[r.JobID] = true
		}
		receipts[k] = len(withReceipt)
	}
	onChain := gatewayRequestCounts(t, env)
	for _, k := range families {
		if onChain[k] != receipts[k] {
			t.Errorf("%s: %d gateway requests on chain, %d jobs recorded a receipt: want one request per job", k, onChain[k], receipts[k])
		}
	}
	t.Logf("gateway requests on chain: %v; the test took %v", onChain, time.Since(began).Round(time.Millisecond))
}

// idAt renders ids[i], or "none" past the end.
func idAt(ids []domain.JobID, i int) string {
	if i < len(ids) {
		return ids[i].String()
	}
	return "none"
}

// waitAllTerminal waits until every job is terminal in the projections; past limit it fails,
// saying how many jobs remain in which status.
func waitAllTerminal(t *testing.T, env *engineEnv, jobs []loadJob, limit time.Duration) {
	t.Helper()
	start := time.Now()
	pending := make([]domain.JobID, len(jobs))
	for i, j := range jobs {
		pending[i] = j.id
	}
	for {
		left := pending[:0]
		for _, id := range pending {
			if j, ok := env.set.Job(id); !ok || !j.Status.Terminal() {
				left = append(left, id)
			}
		}
		pending = left
		if len(pending) == 0 {
			return
		}
		if time.Since(start) > limit {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	by := map[string]int{}
	for _, id := range pending {
		status := "unknown to the projections"
		if j, ok := env.set.Job(id); ok {
			status = fmt.Sprintf("%s %s", j.Kind, j.Status)
		}
		by[status]++
	}
	var parts []string
	for s, n := range by {
		parts = append(parts, fmt.Sprintf("%d %s", n, s))
	}
	sort.Strings(parts)
	t.Fatalf("%d of %d jobs not terminal after %v: %s", len(pending), len(jobs), limit, strings.Join(parts, ", "))
}

// loadHistory is what the load test measures from the log.
type loadHistory struct {
	events map[domain.JobID][]domain.Event
	// signed holds each kind family's TransactionSigned times (a delegated user decrypt counts
	// with the user decrypts: they share one queue and one rate D).
	signed [domain.NumKinds][]time.Time
	// readiness holds each readiness check, from its start to its outcome.
	readiness []pace.Interval
	// acceptedDecrypts and picked are decrypts in the global order of their RequestAccepted and
	// ReadinessCheckStarted.
	acceptedDecrypts, picked []domain.JobID
	receipts                 [domain.NumKinds][]domain.ReceiptRecorded // by kind family
	violations               []string
	// first is the first event's time; last holds each kind's last time of each stage.
	first time.Time
	last  [domain.NumKinds]map[string]time.Time
}

// timeline says when, after the first event, kind k's last event of each stage happened.
func (h *loadHistory) timeline(k domain.Kind) string {
	var parts []string
	for _, typ := range []string{"RequestAccepted", "ReadinessCheckStarted", "ReadinessPassed", "TransactionSigned", "ReceiptRecorded", "RequestCompleted"} {
		if at, ok := h.last[k.Ordinal()][typ]; ok {
			parts = append(parts, fmt.Sprintf("%s %v", typ, at.Sub(h.first).Round(time.Millisecond)))
		}
	}
	return strings.Join(parts, ", ")
}

// types lists job id's event types, for failure messages.
func (h *loadHistory) types(id domain.JobID) []string {
	var out []string
	for _, e := range h.events[id] {
		out = append(out, e.EventType())
	}
	return out
}

// readJobHistories reads the whole log in global order and folds the jobs' events.
func readJobHistories(t *testing.T, env *engineEnv, jobs map[domain.JobID]*loadJob) *loadHistory {
	t.Helper()
	codec := projections.NewCodec()
	h := &loadHistory{events: map[domain.JobID][]domain.Event{}}
	for i := range h.last {
		h.last[i] = map[string]time.Time{}
	}
	for rec, err := range env.store.ReadAll(context.Background(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		id, ok := domain.JobIDFromStream(rec.Stream)
		if !ok {
			continue // checkpoints, the gateway cursor
		}
		j, ok := jobs[id]
		if !ok {
			t.Fatalf("event %s at %d on %s: not a job of this test", rec.Type, rec.Position, rec.Stream)
		}
		ev, err := projections.DecodeEvent(codec, rec)
		if err != nil {
			t.Fatalf("decode %s at %d: %v", rec.Type, rec.Position, err)
		}
		h.events[id] = append(h.events[id], ev)
		if h.first.IsZero() {
			h.first = ev.Header().At
		}
		if at := ev.Header().At; at.After(h.last[j.kind.Ordinal()][rec.Type]) {
			h.last[j.kind.Ordinal()][rec.Type] = at
		}
		switch e := ev.(type) {
		case domain.RequestAccepted:
			if e.Kind.NeedsReadiness() {
				h.acceptedDecrypts = append(h.acceptedDecrypts, id)
			}
		case domain.ReadinessCheckStarted:
			h.picked = append(h.picked, id)
		case domain.TransactionSigned:
			h.signed[j.kind.Family().Ordinal()] = append(h.signed[j.kind.Family().Ordinal()], cmp.Or(e.StartedAt, e.At))
		case domain.ReceiptRecorded:
			h.receipts[j.kind.Family().Ordinal()] = append(h.receipts[j.kind.Family().Ordinal()], e)
		}
	}
	for id, evs := range h.events {
		h.fold(id, jobs[id].kind, evs)
	}
	return h
}

// fold checks one job's events in order: readiness checks are paired with their outcomes, and
// a transaction is live from its TransactionSigned until a TransactionReset.
func (h *loadHistory) fold(id domain.JobID, k domain.Kind, evs []domain.Event) {
	bad := func(format string, args ...any) {
		h.violations = append(h.violations, fmt.Sprintf("job %s (%s): ", id, k)+fmt.Sprintf(format, args...))
	}
	var (
		checkFrom time.Time
		checking  bool
		live      string // the hash of the transaction signed and not reset
		receipts  int
	)
	for _, ev := range evs {
		switch e := ev.(type) {
		case domain.ReadinessCheckStarted:
			if checking {
				bad("a second readiness check started at %s while one was in progress", e.At.Format(time.RFC3339Nano))
			}
			checkFrom, checking = e.At, true
		case domain.ReadinessPassed, domain.ReadinessFailed, domain.ReadinessTimedOut:
			if !checking {
				bad("%s without a readiness check in progress", ev.EventType())
				continue
			}
			h.readiness = append(h.readiness, pace.Interval{From: checkFrom, To: ev.Header().At})
			checking = false
		case domain.TransactionSigned:
			if live != "" {
				bad("transaction %s signed while %s was live (no TransactionReset between them)", e.TxHash, live)
			}
			live = e.TxHash
		case domain.TransactionReset:
			live = ""
		case domain.ReceiptRecorded:
			receipts++
			if e.TxHash != live {
				bad("receipt of %s, but the live transaction is %q", e.TxHash, live)
			}
		}
	}
	if checking {
		bad("readiness check started at %s has no outcome", checkFrom.Format(time.RFC3339Nano))
	}
	if receipts > 1 {
		bad("%d receipts recorded", receipts)
	}
}

// firstDifference compares two orders; it returns the first index where they differ, and true
// when they are the same.
func firstDifference(a, b []domain.JobID) (int, bool) {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i, false
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b)), false
	}
	return 0, true
}

// displacement says how many of picked are not at their place in accepted, and the farthest
// any is from it.
func displacement(accepted, picked []domain.JobID) (moved, most int) {
	place := make(map[domain.JobID]int, len(accepted))
	for i, id := range accepted {
		place[id] = i
	}
	for i, id := range picked {
		p, ok := place[id]
		if !ok {
			moved++
			continue
		}
		if d := max(i-p, p-i); d > 0 {
			moved++
			most = max(most, d)
		}
	}
	return moved, most
}

// gatewayRequestCounts reads how many requests of each kind the gateway contracts ever issued:
// the counters' distance from their bases.
func gatewayRequestCounts(t *testing.T, env *engineEnv) map[domain.Kind]int {
	t.Helper()
	a := env.chain.Addresses()
	dec, iv := contracts.NewDecryption(), contracts.NewInputVerification()
	call := func(to common.Address, data []byte, unpack func([]byte) (*big.Int, error)) *big.Int {
		out, err := env.chain.Client().CallContract(context.Background(), ethereum.CallMsg{To: &to, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		v, err := unpack(out)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	publicBase := new(big.Int).Lsh(big.NewInt(1), 248) // PUBLIC_DECRYPT_COUNTER_BASE
	userBase := new(big.Int).Lsh(big.NewInt(2), 248)   // USER_DECRYPT_COUNTER_BASE
	public := call(a.Decryption, dec.PackPublicDecryptionCounter(), dec.UnpackPublicDecryptionCounter)
	user := call(a.Decryption, dec.PackUserDecryptionCounter(), dec.UnpackUserDecryptionCounter)
	proofs := call(a.InputVerification, iv.PackZkProofCounter(), iv.UnpackZkProofCounter)
	return map[domain.Kind]int{
		domain.PublicDecrypt: int(new(big.Int).Sub(public, publicBase).Int64()),
		domain.UserDecrypt:   int(new(big.Int).Sub(user, userBase).Int64()),
		domain.InputProof:    int(proofs.Int64()),
	}
}
