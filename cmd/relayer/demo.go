package main

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/devchain/devnet"
)

// devHostChainID is the development chain's id, carried by development handles in bytes 22..29.
const devHostChainID = devnet.ChainID

const demoUsage = `Usage: relayer demo [--data-dir DIR | --store URL] [--jobs N] [--seed S] [--workers N]

Writes a simulated history of N jobs, of every kind and outcome, to the event store, for trying
replay, rebuild and watch without a chain.
`

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", demoUsage)
	dataDir, storeURL := storeFlags(fs)
	jobs := fs.Int("jobs", 200, "how many jobs to simulate: `N`, 1 to 1000000")
	seed := fs.Uint64("seed", 1, "random seed `S` (the same seed writes the same histories)")
	workers := fs.Int("workers", 32, "`N` jobs simulated at once, 1 to 1024")
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	switch {
	case *jobs < 1 || *jobs > 1_000_000:
		return usageErrorf("demo: --jobs must be between 1 and 1000000, got %d", *jobs)
	case *workers < 1 || *workers > 1024:
		return usageErrorf("demo: --workers must be between 1 and 1024, got %d", *workers)
	}
	loc, err := locate(fs, *storeURL, *dataDir)
	if err != nil {
		return usageErrorf("demo: --store: %v", err)
	}
	store, unlock, _, err := openWriter(ctx, loc, fmt.Sprintf("relayer demo, pid %d", os.Getpid()), false)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("demo: %w", err)}
	}
	defer unlock()
	defer store.Close()
	path := loc.String()

	// The read models the submission command reads (a content's jobs), following the log.
	set, err := projections.New(projections.DefaultConfig())
	if err != nil {
		return err
	}
	setCtx, stopSet := context.WithCancel(ctx)
	setDone := make(chan error, 1)
	go func() { setDone <- set.Run(setCtx, store) }()
	defer func() {
		stopSet()
		<-setDone
	}()

	start := time.Now()
	x := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	sim := &demoSim{x: x, sub: &projections.Submitter{Executor: x, Set: set}, base: start.UTC().Truncate(time.Second), salt: uint64(start.UnixNano())}
	plans := make(chan demoPlan)
	outcomes := make(map[string]int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, *workers)
	for range *workers {
		wg.Go(func() {
			for p := range plans {
				got, err := sim.drive(ctx, p)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				outcomes[p.kind.String()+" "+got]++
				mu.Unlock()
			}
		})
	}
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	var sendErr error
feed:
	for i := range *jobs {
		select {
		case plans <- newDemoPlan(rng, i):
		case sendErr = <-errs:
			break feed
		case <-ctx.Done():
			sendErr = ctx.Err()
			break feed
		}
	}
	close(plans)
	wg.Wait()
	close(errs)
	if sendErr == nil {
		sendErr = <-errs
	}
	if sendErr != nil {
		return fmt.Errorf("demo: %w", sendErr)
	}
	head, err := store.Head(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Simulated %d jobs through the state machine into %s in %s (log head is now position %d).\n\n",
		*jobs, path, time.Since(start).Round(time.Millisecond), head)
	keys := make([]string, 0, len(outcomes))
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(stdout, "  %-48s %6d\n", k, outcomes[k])
	}
	fmt.Fprintf(stdout, "\nThe first job's events:\n")
	if _, err := printJob(ctx, store, sim.firstJob(), &timelinePrinter{w: stdout, codec: projections.NewCodec()}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nTry:\n  go run ./cmd/relayer replay --data-dir %s --job %s\n  go run ./cmd/relayer rebuild --data-dir %s\n  go run ./cmd/relayer replay --data-dir %s --all --json | head\n",
		*dataDir, sim.firstJob(), *dataDir, *dataDir)
	return nil
}

// demoScenario is what happens to a simulated job, after DESIGN section 10's test handles.
type demoScenario int

const (
	demoSucceeds demoScenario = iota
	demoACLDenied
	demoReadinessTimeout
	demoResponseTimeout
	demoReverts
	demoRejected
	demoRecovered // a crash left it tx_in_flight; recovery reset and re-sent it, then it succeeded
)

var demoScenarioNames = map[demoScenario]string{
	demoSucceeds: "completed", demoACLDenied: "failure (ACL denied)", demoReadinessTimeout: "timed_out (readiness)",
	demoResponseTimeout: "timed_out (response)", demoReverts: "failure (reverted)", demoRejected: "failure (proof rejected)",
	demoRecovered: "completed after recovery",
}

type demoPlan struct {
	n        int
	kind     domain.Kind
	scenario demoScenario
	seed     uint64
}

func newDemoPlan(rng *rand.Rand, n int) demoPlan {
	kinds := domain.Kinds()
	kind := kinds[rng.IntN(len(kinds))]
	sc := demoSucceeds
	switch r := rng.IntN(100); {
	case r < 4 && kind.NeedsReadiness():
		sc = demoACLDenied
	case r < 7 && kind.NeedsReadiness():
		sc = demoReadinessTimeout
	case r < 4 && kind == domain.InputProof:
		sc = demoRejected
	case r < 10:
		sc = demoResponseTimeout
	case r < 13:
		sc = demoReverts
	case r < 16:
		sc = demoRecovered
	}
	return demoPlan{n: n, kind: kind, scenario: sc, seed: rng.Uint64()}
}

type demoSim struct {
	x *projections.Executor
	// sub accepts each job, as the API does (without its chain checks).
	sub  *projections.Submitter
	base time.Time
	// salt goes into every request's content: identical requests are one job (the submission
	// command joins them), so a second run into the same store writes new jobs rather than
	// joining the first run's.
	salt uint64
	mu   sync.Mutex
	// first is the first job's id, for the printed example.
	first domain.JobID
}

func (s *demoSim) firstJob() domain.JobID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}

// drive runs one job through its scenario, command by command, each through Decide and an
// append with the expected version, at simulated times.
func (s *demoSim) drive(ctx context.Context, p demoPlan) (string, error) {
	rng := rand.New(rand.NewPCG(p.seed, uint64(p.n)))
	now := s.base.Add(time.Duration(p.n) * 20 * time.Millisecond)
	step := func(min, max time.Duration) domain.At {
		now = now.Add(min + time.Duration(rng.Int64N(int64(max-min)+1)))
		return domain.At{At: now}
	}
	md := eventstore.Metadata{CorrelationID: "demo-" + uuid.NewString()}
	// The job is accepted at its simulated time: the submission command's clock is the job's.
	sub := *s.sub
	sub.Now = func() time.Time { return now }
	req := demoRequest(rand.New(rand.NewPCG(p.seed^s.salt, uint64(p.n))), p.kind, now)
	res, err := sub.Submit(ctx, projections.SubmitCommand{Request: req, Metadata: md})
	if err != nil {
		return "", err
	}
	if !res.Created {
		return "", fmt.Errorf("job %d: an identical request is job %s already", p.n, res.JobID)
	}
	id := res.JobID
	if p.n == 0 {
		s.mu.Lock()
		s.first = id
		s.mu.Unlock()
	}
	exec := func(c domain.Command) error {
		_, err := s.x.Execute(ctx, id, c, md)
		return err
	}
	var cmds []domain.Command
	if p.kind.NeedsReadiness() {
		cmds = append(cmds, domain.StartReadiness{At: step(5*time.Millisecond, 300*time.Millisecond)})
		switch p.scenario {
		case demoACLDenied:
			cmds = append(cmds, domain.FailReadiness{At: step(20*time.Millisecond, 80*time.Millisecond), Label: domain.LabelNotAllowedOnHostACL, Message: "handle not allowed for the user on the host ACL"})
			return s.finish(p, exec, cmds)
		case demoReadinessTimeout:
			cmds = append(cmds, domain.TimeOutReadiness{At: domain.At{At: now.Add(10 * time.Second)}})
			return s.finish(p, exec, cmds)
		}
		cmds = append(cmds, domain.PassReadiness{At: step(50*time.Millisecond, 2*time.Second)})
	}
	sign := func() domain.SignTransaction {
		txh := randHex(rng, 32)
		return domain.SignTransaction{At: step(10*time.Millisecond, 500*time.Millisecond), From: "0x" + "a1" + randHex(rng, 19)[2:], Nonce: uint64(p.n), TxHash: txh, RawTx: randHex(rng, 120)}
	}
	signed := sign()
	cmds = append(cmds, signed)
	if p.scenario == demoRecovered {
		cmds = append(cmds, domain.ResetTransaction{At: step(time.Second, 3*time.Second), Reason: "recovery: transaction not on chain and never will be (nonce used by another)"})
		signed = sign()
		cmds = append(cmds, signed)
	}
	if p.scenario == demoReverts {
		cmds = append(cmds, domain.FailTransaction{At: step(100*time.Millisecond, time.Second), Label: domain.LabelTransactionReverted, Message: "execution reverted"})
		return s.finish(p, exec, cmds)
	}
	cmds = append(cmds, domain.RecordReceipt{At: step(100*time.Millisecond, 1500*time.Millisecond), TxHash: signed.TxHash, BlockNumber: 1000 + uint64(p.n), GatewayRequestID: fmt.Sprint(p.n + 1)})
	if p.scenario == demoResponseTimeout {
		if p.kind.CollectsShares() {
			cmds = append(cmds, domain.RecordShare{At: step(time.Second, 3*time.Second), Share: demoShare(rng, 0), Threshold: 3})
		}
		cmds = append(cmds, domain.TimeOutResponse{At: domain.At{At: now.Add(20 * time.Second)}})
		return s.finish(p, exec, cmds)
	}
	switch p.kind {
	case domain.InputProof:
		if p.scenario == demoRejected {
			cmds = append(cmds, domain.RejectProof{At: step(time.Second, 3*time.Second), ExtraData: "0x00"})
			break
		}
		cmds = append(cmds, domain.Complete{At: step(time.Second, 3*time.Second), Result: domain.Result{InputProof: &domain.InputProofResult{
			Accepted: true, Handles: []string{demoHandle(rng)}, Signatures: []string{randHex(rng, 65), randHex(rng, 65)}, ExtraData: "0x00"}}})
	case domain.PublicDecrypt:
		cmds = append(cmds, domain.Complete{At: step(time.Second, 4*time.Second), Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{
			DecryptedValue: randHex(rng, 32), Signatures: []string{randHex(rng, 65), randHex(rng, 65), randHex(rng, 65)}, ExtraData: "0x00"}}})
	case domain.UserDecrypt, domain.DelegatedUserDecrypt:
		for i := range 3 {
			cmds = append(cmds, domain.RecordShare{At: step(500*time.Millisecond, 2*time.Second), Share: demoShare(rng, i), Threshold: 3})
		}
	}
	return s.finish(p, exec, cmds)
}

func (s *demoSim) finish(p demoPlan, exec func(domain.Command) error, cmds []domain.Command) (string, error) {
	for _, c := range cmds {
		if err := exec(c); err != nil {
			return "", err
		}
	}
	return demoScenarioNames[p.scenario], nil
}

// demoRequest is a request of kind k drawn from rng; a user decrypt's validity window holds at
// time at.
func demoRequest(rng *rand.Rand, k domain.Kind, at time.Time) domain.Request {
	start := uint64(at.Add(-time.Hour).Unix())
	switch k {
	case domain.InputProof:
		return domain.Request{InputProof: &domain.InputProofRequest{
			ContractChainID: devHostChainID, ContractAddress: randHex(rng, 20), UserAddress: randHex(rng, 20),
			Ciphertext: randHex(rng, 96)[2:], ExtraData: "0x00"}}
	case domain.PublicDecrypt:
		return domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{demoHandle(rng), demoHandle(rng)}, ExtraData: "0x00"}}
	case domain.DelegatedUserDecrypt:
		contract := randHex(rng, 20)
		return domain.Request{DelegatedUserDecrypt: &domain.DelegatedUserDecryptRequest{
			HandleContractPairs: []domain.HandleContractPair{{Handle: demoHandle(rng), ContractAddress: contract}},
			ContractsChainID:    devHostChainID, ContractAddresses: []string{contract},
			DelegatorAddress: randHex(rng, 20), DelegateAddress: randHex(rng, 20),
			StartTimestamp: start, DurationDays: 1,
			Signature: randHex(rng, 65)[2:], PublicKey: randHex(rng, 32)[2:], ExtraData: "0x00"}}
	default:
		contract := randHex(rng, 20)
		return domain.Request{UserDecrypt: &domain.UserDecryptRequest{
			HandleContractPairs: []domain.HandleContractPair{{Handle: demoHandle(rng), ContractAddress: contract}},
			RequestValidity:     domain.RequestValidity{StartTimestamp: start, DurationDays: 1},
			ContractsChainID:    devHostChainID, ContractAddresses: []string{contract}, UserAddress: randHex(rng, 20),
			Signature: randHex(rng, 65)[2:], PublicKey: randHex(rng, 32)[2:], ExtraData: "0x00"}}
	}
}

// demoHandle is a random handle of the development host chain (1337 in bytes 22..29).
func demoHandle(rng *rand.Rand) string {
	var h [32]byte
	for i := range h {
		h[i] = byte(rng.UintN(256))
	}
	binary.BigEndian.PutUint64(h[22:30], devHostChainID)
	return "0x" + hex.EncodeToString(h[:])
}

func demoShare(rng *rand.Rand, node int) domain.Share {
	return domain.Share{Signer: fmt.Sprintf("0x%040x", 0xc0ffee00+node), Payload: randHex(rng, 64), Signature: randHex(rng, 65), ExtraData: "0x00"}
}

// randHex is n random bytes as 0x-prefixed lowercase hex.
func randHex(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return "0x" + hex.EncodeToString(b)
}
