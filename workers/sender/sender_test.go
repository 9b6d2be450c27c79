package sender

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/workers/gateway"
	"relayer/workers/upstream"
)

// The sender's policy, without a chain: a node that answers from a script, and a journal that
// keeps what was recorded. The sender with the real adapter and chain is tested in package
// workers (feebump_test.go, recovery_test.go).

// scriptNode answers each Broadcast of a transaction with the next answer scripted for its hash
// (the last one repeats), and logs every call in order.
type scriptNode struct {
	answers  map[common.Hash][]error
	receipts map[common.Hash]error // ReceiptByHash's answer per hash (nil: mined)
	noBump   error                 // Replacement's error, when set
	calls    []string
	bumps    int
}

func (n *scriptNode) Broadcast(_ context.Context, p *gateway.Prepared) (*gateway.Receipt, error) {
	n.calls = append(n.calls, "broadcast "+short(p.Hash))
	as := n.answers[p.Hash]
	if len(as) == 0 {
		return &gateway.Receipt{TxHash: p.Hash}, nil
	}
	err := as[0]
	if len(as) > 1 {
		n.answers[p.Hash] = as[1:]
	}
	if err == nil {
		return &gateway.Receipt{TxHash: p.Hash}, nil
	}
	return nil, err
}

func (n *scriptNode) Replacement(_ context.Context, p *gateway.Prepared) (*gateway.Prepared, error) {
	if n.noBump != nil {
		return nil, n.noBump
	}
	n.bumps++
	np := tx(p.Nonce, fmt.Sprintf("%s+%d", short(p.Hash), n.bumps))
	np.GasFeeCap = new(big.Int).Add(p.GasFeeCap, big.NewInt(1))
	n.calls = append(n.calls, "replacement "+short(np.Hash))
	return np, nil
}

func (n *scriptNode) ReceiptByHash(_ context.Context, h common.Hash) (*gateway.Receipt, error) {
	n.calls = append(n.calls, "lookup "+short(h))
	if err, ok := n.receipts[h]; ok && err != nil {
		return nil, err
	}
	return &gateway.Receipt{TxHash: h}, nil
}

func (n *scriptNode) Release(p *gateway.Prepared) {
	n.calls = append(n.calls, "release "+short(p.Hash))
}

// journal records replacements and says the job settled when told to.
type journal struct {
	node     *scriptNode
	sent     []common.Hash // latest last
	refuse   bool          // Replace fails
	settled  bool
	replaced []string
}

func (j *journal) Replace(_ context.Context, p, np *gateway.Prepared, _ error) bool {
	if j.refuse {
		return false
	}
	j.node.calls = append(j.node.calls, "record "+short(np.Hash))
	j.sent = append(j.sent, np.Hash)
	j.replaced = append(j.replaced, short(p.Hash)+">"+short(np.Hash))
	return true
}

func (j *journal) Earlier() []common.Hash {
	out := slices.Clone(j.sent[:len(j.sent)-1])
	slices.Reverse(out)
	return out
}

func (j *journal) Settled(*gateway.Prepared) bool { return j.settled }

var names = map[common.Hash]string{}

func tx(nonce uint64, name string) *gateway.Prepared {
	h := common.BytesToHash([]byte(name))
	names[h] = name
	return &gateway.Prepared{Hash: h, Nonce: nonce, GasFeeCap: big.NewInt(100), GasTipCap: big.NewInt(1)}
}

func short(h common.Hash) string {
	if n, ok := names[h]; ok {
		return n
	}
	return h.Hex()[:10]
}

func txErr(kind error) error { return &gateway.TxError{Kind: kind, Op: "test"} }

func quick(attempts int) Config {
	return Config{Attempts: attempts, Backoff: upstream.Backoff{Base: time.Millisecond}, Releasable: true}
}

func run(t *testing.T, node *scriptNode, p *gateway.Prepared, cfg Config, mod ...func(*journal)) (Result, *journal) {
	t.Helper()
	if node.answers == nil {
		node.answers = map[common.Hash][]error{}
	}
	j := &journal{node: node, sent: []common.Hash{p.Hash}}
	for _, m := range mod {
		m(j)
	}
	return Send(context.Background(), node, j, p, cfg), j
}

func wantCalls(t *testing.T, node *scriptNode, want ...string) {
	t.Helper()
	if !slices.Equal(node.calls, want) {
		t.Fatalf("calls:\n  %s\nwant:\n  %s", strings.Join(node.calls, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestPassingFailuresSendTheSameBytesAgainUntilMined(t *testing.T) {
	p := tx(7, "a")
	node := &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrTransport), txErr(gateway.ErrReceiptTimeout), nil}}}
	r, _ := run(t, node, p, quick(5))
	if r.Outcome != Mined || r.Receipt.TxHash != p.Hash || r.Attempts != 3 {
		t.Fatalf("%+v", r)
	}
	wantCalls(t, node, "broadcast a", "broadcast a", "broadcast a")
}

func TestAStalledTransactionIsReplacedAndTheReplacementRecordedBeforeItIsSent(t *testing.T) {
	p := tx(7, "a")
	node := &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled)}}, receipts: map[common.Hash]error{}}
	r, j := run(t, node, p, quick(2))
	if r.Outcome != Mined || r.Replacements != 1 || r.Tx.Hash == p.Hash || r.Receipt.TxHash != r.Tx.Hash {
		t.Fatalf("%+v", r)
	}
	wantCalls(t, node, "broadcast a", "replacement a+1", "record a+1", "broadcast a+1")
	if !slices.Equal(j.replaced, []string{"a>a+1"}) {
		t.Fatalf("recorded %v", j.replaced)
	}
}

func TestAReplacementTheNodeFindsTooCheapIsReplacedAgain(t *testing.T) {
	p := tx(7, "a")
	node := &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled)}}}
	names[common.BytesToHash([]byte("a+1"))] = "a+1"
	node.answers[common.BytesToHash([]byte("a+1"))] = []error{txErr(gateway.ErrUnderpriced)}
	r, _ := run(t, node, p, quick(3))
	if r.Outcome != Mined || r.Replacements != 2 {
		t.Fatalf("%+v", r)
	}
	wantCalls(t, node, "broadcast a", "replacement a+1", "record a+1", "broadcast a+1", "replacement a+1+2", "record a+1+2", "broadcast a+1+2")
}

func TestAStalledTransactionAtItsFeeCapIsWaitedOnAsItIs(t *testing.T) {
	p := tx(7, "a")
	node := &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled), txErr(gateway.ErrStalled), nil}}, noBump: txErr(gateway.ErrFeeCapExceeded)}
	r, _ := run(t, node, p, quick(5))
	if r.Outcome != Mined || r.Replacements != 0 || r.Tx != p {
		t.Fatalf("%+v", r)
	}
	// Attempts spent without a replacement: left pending for the timeouts worker.
	node = &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled)}}, noBump: txErr(gateway.ErrFeeCapExceeded)}
	if r, _ := run(t, node, p, quick(2)); r.Outcome != Pending || r.Attempts != 2 {
		t.Fatalf("%+v", r)
	}
	// A replacement the log would not take is never sent.
	node = &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled)}}}
	r, _ = run(t, node, p, quick(1), func(j *journal) { j.refuse = true })
	if r.Outcome != Pending || r.Tx != p {
		t.Fatalf("%+v", r)
	}
	wantCalls(t, node, "broadcast a", "replacement a+1")
}

// "Nonce too low" for the latest transaction: the earlier one mined is adopted; none mined is
// another's transaction; a lookup that fails is no verdict.
func TestANonceUsedByAnEarlierTransactionOfTheJobIsAdopted(t *testing.T) {
	p := tx(7, "a")
	b := common.BytesToHash([]byte("a+1"))
	names[b] = "a+1"
	node := &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled)}, b: {txErr(gateway.ErrNonceTooLow)}}}
	r, _ := run(t, node, p, quick(3))
	if r.Outcome != Mined || r.Receipt.TxHash != p.Hash {
		t.Fatalf("%+v", r)
	}
	wantCalls(t, node, "broadcast a", "replacement a+1", "record a+1", "broadcast a+1", "lookup a")

	node = &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled)}, b: {txErr(gateway.ErrNonceTooLow)}},
		receipts: map[common.Hash]error{p.Hash: txErr(gateway.ErrTxNotFound)}}
	if r, _ := run(t, node, p, quick(3)); r.Outcome != NonceTaken {
		t.Fatalf("none of the job's mined: %+v", r)
	}
	node = &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled)}, b: {txErr(gateway.ErrNonceTooLow)}},
		receipts: map[common.Hash]error{p.Hash: txErr(gateway.ErrTransport)}}
	if r, _ := run(t, node, p, quick(3)); r.Outcome != Pending {
		t.Fatalf("a lookup that failed: %+v, want pending (never a new transaction while one may be mined)", r)
	}
	node = &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrStalled)}, b: {txErr(gateway.ErrNonceTooLow)}},
		receipts: map[common.Hash]error{p.Hash: txErr(gateway.ErrReverted)}}
	if r, _ := run(t, node, p, quick(3)); r.Outcome != Failed || !errors.Is(r.Err, gateway.ErrReverted) {
		t.Fatalf("the earlier one reverted: %+v", r)
	}
}

func TestRefusedBytesGiveTheirNonceBackOnlyWhenNothingElseCanBeMined(t *testing.T) {
	p := tx(7, "a")
	node := &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrInsufficientFunds)}}}
	r, _ := run(t, node, p, quick(2))
	if r.Outcome != Failed || !r.Released || !errors.Is(r.Err, gateway.ErrInsufficientFunds) {
		t.Fatalf("%+v", r)
	}
	wantCalls(t, node, "broadcast a", "broadcast a", "release a")
	// Bytes sent before (recovery, a deadline): not this process's nonce to give back.
	node = &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrInsufficientFunds)}}}
	cfg := quick(2)
	cfg.Releasable = false
	if r, _ := run(t, node, p, cfg); r.Outcome != Pending || r.Released {
		t.Fatalf("re-sent bytes: %+v", r)
	}
	// A job with an earlier transaction of the nonce: that one may still be mined.
	node = &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrInsufficientFunds)}}}
	if r, _ := run(t, node, p, quick(2), func(j *journal) { j.sent = []common.Hash{{1}, p.Hash} }); r.Outcome != Pending || r.Released {
		t.Fatalf("with an earlier transaction: %+v", r)
	}
}

func TestAMinedFailureEndsTheSendAndASettledJobStopsIt(t *testing.T) {
	p := tx(7, "a")
	for _, kind := range []error{gateway.ErrReverted, gateway.ErrPaused, gateway.ErrNoRequestID} {
		node := &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(kind)}}}
		if r, _ := run(t, node, p, quick(5)); r.Outcome != Failed || r.Attempts != 1 || r.Released {
			t.Fatalf("%v: %+v", kind, r)
		}
	}
	node := &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrTransport)}}}
	if r, _ := run(t, node, p, quick(5), func(j *journal) { j.settled = true }); r.Outcome != Pending || r.Attempts != 1 {
		t.Fatalf("settled meanwhile: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	node = &scriptNode{answers: map[common.Hash][]error{p.Hash: {txErr(gateway.ErrCanceled)}}}
	if r := Send(ctx, node, &journal{node: node, sent: []common.Hash{p.Hash}}, p, quick(5)); r.Outcome != Stopped {
		t.Fatalf("cancelled: %+v", r)
	}
}
