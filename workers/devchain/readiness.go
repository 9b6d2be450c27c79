package devchain

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"relayer/workers/gateway/contracts"
)

// The gateway's readiness, as the development chain simulates it. Before it sends a decryption
// request, the relayer asks Decryption's readiness views (isPublicDecryptionReady,
// isUserDecryptionReady, isDelegatedUserDecryptionReady) about the request's handles, again
// and again until they say ready. A view cannot write, so the contract alone cannot know when a
// handle was first asked about; the chain sees every question through its eth_call gate
// (gate.go) and, before the contract answers:
//
//   - sends Decryption.registerHandles (from the deployer key) for a scenario-04 handle the
//     first time anyone asks about it: the contract then says ready contracts.ReadyDelay (5 s)
//     of chain time later. A 04 handle sent straight to the relayer, with nothing registered
//     beforehand, is therefore not ready at first and ready about 5 s after the relayer first
//     asked, within the development readiness timeout (10 s), as DESIGN section 10 documents.
//     ("About": chain time runs ahead of the wall clock while more than one block a second is
//     sealed, which shortens the wait on a busy chain.)
//   - with a readiness delay (Config.ReadinessDelay, the production profile's 2 s), answers
//     "not ready" itself for a handle until that delay, drawn at its first question, has passed
//     on the wall clock; the contract answers after that. It stands for the time the protocol
//     takes to make a new ciphertext decryptable (R in the Retry-After design).
//
// Every other call goes to the contract untouched. The chain remembers each handle asked about
// while it runs, as it holds everything else, in memory: with a readiness delay, a 32-byte key
// and a time per handle.
type readinessSim struct {
	views map[[4]byte]abi.Method // the readiness views, by selector

	mu      sync.Mutex
	readyAt map[[32]byte]time.Time // with a readiness delay: when each handle asked about is ready
	seen    map[[32]byte]bool      // 04 handles whose registration was sent or is under way
}

func newReadinessSim() (*readinessSim, error) {
	parsed, err := contracts.DecryptionMetaData.ParseABI()
	if err != nil {
		return nil, fmt.Errorf("devchain: the Decryption ABI: %w", err)
	}
	r := &readinessSim{views: map[[4]byte]abi.Method{}, readyAt: map[[32]byte]time.Time{}, seen: map[[32]byte]bool{}}
	for _, name := range []string{"isPublicDecryptionReady", "isUserDecryptionReady", "isDelegatedUserDecryptionReady"} {
		m, ok := parsed.Methods[name]
		if !ok {
			return nil, fmt.Errorf("devchain: the Decryption ABI has no %s", name)
		}
		r.views[[4]byte(m.ID)] = m
	}
	return r, nil
}

// answerCall is the chain's callAnswerer (see callGate): it answers a readiness question itself
// while a handle's readiness delay runs, and registers the 04 handles asked about for the first
// time; it leaves every other call, and the rest of the readiness questions, to the contract.
func (c *Chain) answerCall(_ context.Context, to common.Address, input []byte) ([]byte, bool) {
	if to != c.addrs.Decryption || len(input) < 4 {
		return nil, false
	}
	m, ok := c.readiness.views[[4]byte(input[:4])]
	if !ok {
		return nil, false
	}
	handles, err := viewHandles(m, input[4:])
	if err != nil {
		return nil, false // the contract answers it (or reverts) as it would
	}
	now := time.Now()
	var fresh [][32]byte
	notYet := false
	r := c.readiness
	r.mu.Lock()
	for _, h := range handles {
		if contracts.ScenarioOfHandle(h) == contracts.ScenarioReadyAfterDelay && !r.seen[h] {
			r.seen[h] = true
			fresh = append(fresh, h)
		}
		if c.cfg.ReadinessDelay > 0 {
			at, ok := r.readyAt[h]
			if !ok {
				at = now.Add(c.cfg.readinessDelay())
				r.readyAt[h] = at
			}
			notYet = notYet || now.Before(at)
		}
	}
	r.mu.Unlock()
	if len(fresh) > 0 {
		c.registerAsked(fresh)
	}
	if !notYet {
		return nil, false
	}
	out, err := m.Outputs.Pack(false)
	if err != nil {
		return nil, false
	}
	return out, true
}

// registerAsked registers 04 handles the chain was just asked about, in the background; a
// registration that fails is forgotten, so that the next question tries again.
func (c *Chain) registerAsked(handles [][32]byte) {
	forget := func() {
		c.readiness.mu.Lock()
		for _, h := range handles {
			delete(c.readiness.seen, h)
		}
		c.readiness.mu.Unlock()
	}
	started := c.background(func(ctx context.Context) {
		if err := c.RegisterHandles(ctx, handles...); err != nil {
			forget()
			if ctx.Err() == nil {
				c.log.Warn("register scenario-04 handles asked about", "handles", len(handles), "err", err)
			}
			return
		}
		c.log.Debug("scenario-04 handles registered at their first readiness question", "handles", len(handles))
	})
	if !started {
		forget()
	}
}

// viewHandles returns the handles a readiness view's call data asks about.
func viewHandles(m abi.Method, data []byte) ([][32]byte, error) {
	values, err := m.Inputs.Unpack(data)
	if err != nil {
		return nil, err
	}
	var pairs []contracts.DecryptionCtHandleContractPair
	switch m.Name {
	case "isPublicDecryptionReady":
		var in struct {
			CtHandles [][32]byte
			ExtraData []byte
		}
		if err := m.Inputs.Copy(&in, values); err != nil {
			return nil, err
		}
		return in.CtHandles, nil
	case "isUserDecryptionReady":
		var in struct {
			UserAddress           common.Address
			CtHandleContractPairs []contracts.DecryptionCtHandleContractPair
			ExtraData             []byte
		}
		if err := m.Inputs.Copy(&in, values); err != nil {
			return nil, err
		}
		pairs = in.CtHandleContractPairs
	case "isDelegatedUserDecryptionReady":
		var in struct {
			DelegationAccounts    contracts.DecryptionDelegationAccounts
			CtHandleContractPairs []contracts.DecryptionCtHandleContractPair
			ExtraData             []byte
		}
		if err := m.Inputs.Copy(&in, values); err != nil {
			return nil, err
		}
		pairs = in.CtHandleContractPairs
	default:
		return nil, fmt.Errorf("%s is not a readiness view", m.Name)
	}
	out := make([][32]byte, len(pairs))
	for i, p := range pairs {
		out[i] = p.CtHandle
	}
	return out, nil
}
