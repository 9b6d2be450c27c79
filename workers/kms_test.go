package workers

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"relayer/domain"
	"relayer/projections"
	"relayer/projections/projectionstest"
	"relayer/workers/devchain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
	"relayer/workers/gateway/kmstest"
)

// kmsSigners creates n secp256k1 keys in the emulator e, as an operator would in AWS KMS, and
// funds each key's account on chain (they are no development keys: the chain gave them nothing).
func kmsSigners(t *testing.T, e *kmstest.Emulator, chain *devchain.Chain, n int) []gateway.Signer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []gateway.Signer
	for range n {
		id, _ := e.CreateKey(t)
		s, err := gateway.NewKMSSigner(ctx, e.Client, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := chain.Fund(ctx, s.Address(), new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// sentBy checks that job s's recorded transaction is on chain and was signed by from.
func sentBy(t *testing.T, chain *devchain.Chain, s domain.State, from common.Address) {
	t.Helper()
	tx, _, err := chain.Client().TransactionByHash(context.Background(), common.HexToHash(s.TxHash))
	if err != nil {
		t.Fatalf("job %s: transaction %s: %v", s.JobID, s.TxHash, err)
	}
	signer, err := types.Sender(types.LatestSignerForChainID(chain.ChainID()), tx)
	if err != nil || signer != from {
		t.Fatalf("job %s: transaction %s is signed by %s (%v), want %s", s.JobID, s.TxHash, signer, err, from)
	}
}

// One engine whose key is an AWS KMS key (the local emulator's) drives jobs of every kind, all
// at once, to completion on the development chain: each transaction on chain is the KMS key's.
func TestEngineWithAnAWSKMSKeyDrivesEachKindToCompletion(t *testing.T) {
	e := kmstest.Start(t)
	chain := startTestChain(t, devchain.Config{})
	signer := kmsSigners(t, e, chain, 1)[0]
	env := startEngine(t, engineOpts{chain: chain, signer: signer})
	var ids []domain.JobID
	for range 3 {
		for _, k := range domain.Kinds() {
			ids = append(ids, env.accept(env.request(k, contracts.ScenarioNone)))
		}
	}
	nonces := map[uint64]bool{}
	for _, id := range ids {
		s := env.waitTerminal(id, 30*time.Second)
		if s.Status != domain.Completed {
			t.Fatalf("%s job %s: status %s label %q message %q, want completed", s.Kind, id, s.Status, s.Label, s.Message)
		}
		if common.HexToAddress(s.From) != signer.Address() {
			t.Fatalf("%s job %s: recorded as sent from %s, the KMS key is %s", s.Kind, id, s.From, signer.Address())
		}
		sentBy(t, chain, s, signer.Address())
		nonces[s.Nonce] = true
	}
	if len(nonces) != len(ids) {
		t.Errorf("%d jobs were sent with %d distinct nonces", len(ids), len(nonces))
	}
}

// Several KMS keys at once, as a fleet's chain.signer and chain.extra_signers: each key has its
// own nonce sequence and lease, the jobs are split over them, and every job completes with a
// transaction its key signed.
func TestAFleetOfAWSKMSKeysSplitsTheJobsOverTheKeysAndCompletesThem(t *testing.T) {
	e := kmstest.Start(t)
	chain := startTestChain(t, devchain.Config{})
	signers := kmsSigners(t, e, chain, 2)
	store := projectionstest.OpenStore(t)
	m := startFleetMember(t, "kms", store, chain, signers...)
	eventually(t, func() bool { return len(m.keysHeld()) == len(signers) }, "both KMS keys' leases to be held")

	exec := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	var ids []domain.JobID
	for i := range 16 {
		id, req := fleetJob(t, i)
		acceptOn(t, exec, id, req)
		ids = append(ids, id)
	}
	keys := map[common.Address]bool{}
	for _, s := range signers {
		keys[s.Address()] = true
	}
	used := map[common.Address]int{}
	for _, id := range ids {
		s := endState(t, m.set, exec, id)
		if s.Status != domain.Completed {
			t.Fatalf("job %s (%s): %s %s %s, want completed", id, s.Kind, s.Status, s.Label, s.Message)
		}
		from := common.HexToAddress(s.From)
		if !keys[from] {
			t.Fatalf("job %s was sent from %s, which is none of the KMS keys", id, from)
		}
		sentBy(t, chain, s, from)
		used[from]++
	}
	t.Logf("transactions per KMS key: %v", used)
	if len(used) != len(signers) {
		t.Errorf("the jobs were signed by %d of the %d KMS keys: %v", len(used), len(signers), used)
	}
}

// While KMS cannot be reached the relayer cannot sign, and that is no reason to fail a job: its
// transaction is not prepared, it waits (RetryScheduled, whose reason names the KMS key), and it
// completes, signed by the key, once KMS answers again.
func TestAJobWaitsOutAKMSOutageAndCompletesWhenKMSAnswersAgain(t *testing.T) {
	e, chain, signer, env, id, parked := parkOnAKMSOutage(t)
	if parked.Step != "prepare" || !strings.Contains(parked.Reason, "KMS key") || !strings.Contains(parked.Reason, "signer failed") ||
		parked.Label != domain.LabelSignerUnavailable {
		t.Errorf("the job waits with step %q, reason %q, label %q; want prepare, for the KMS key, signer_unavailable", parked.Step, parked.Reason, parked.Label)
	}
	if j, _ := env.set.Job(id); j.Status != domain.Processing {
		t.Fatalf("during the KMS outage the job is %s, want processing", j.Status)
	}
	t.Logf("during the outage: %s", parked.Reason)

	e.Restart(t)
	s := env.waitTerminal(id, time.Minute)
	if s.Status != domain.Completed {
		t.Fatalf("after the KMS outage: %s %q (%s), want completed", s.Status, s.Label, s.Message)
	}
	sentBy(t, chain, s, signer.Address())
}

// parkOnAKMSOutage starts an engine signing with a KMS key, stops KMS, accepts an input proof and
// waits until the job is parked for want of a signature (its last RetryScheduled, returned).
func parkOnAKMSOutage(t *testing.T) (*kmstest.Emulator, *devchain.Chain, gateway.Signer, *engineEnv, domain.JobID, *domain.RetryScheduled) {
	t.Helper()
	e := kmstest.Start(t)
	chain := startTestChain(t, devchain.Config{})
	signer := kmsSigners(t, e, chain, 1)[0]
	env := startEngine(t, engineOpts{chain: chain, signer: signer, cfg: Config{TxAttempts: 2, TxRetryDelay: 50 * time.Millisecond},
		gateway: func(c *gateway.Config) { c.CallTimeout = 3 * time.Second }})
	e.Stop()
	id := env.accept(env.request(domain.InputProof, contracts.ScenarioNone))
	var parked *domain.RetryScheduled
	eventually(t, func() bool {
		for _, ev := range env.history(id) {
			if r, ok := ev.(domain.RetryScheduled); ok {
				parked = &r
			}
		}
		return parked != nil
	}, "the job to be parked for want of a signature (RetryScheduled)")
	return e, chain, signer, env, id, parked
}
