package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"log/slog"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"relayer/workers/devchain/kmssim"
	"relayer/workers/gateway/contracts"
)

// The simulators. One follower goroutine reads the gateway's request events block by block
// (woken by new heads, with a slow poll as a safety net) and hands each request to every
// simulated KMS node or coprocessor, each in its own goroutine: after its component's delay (the
// latency profile's, see latency.go) the node answers from its own key, as the scenarios say:
//
//	scenario  KMS nodes (decryptions)                coprocessors (input proofs)
//	none      answer                                 verify (handles from InputHandles)
//	01        never answer (the request reverts)     reject
//	02        never answer                           verify
//	03        never answer                           never answer
//	04        answer once the readiness view is true verify
//	05        (the request reverts; nothing to do)   (the request reverts)
//
// A request with several handles takes the "most silent" scenario among them.

// followPoll is how often the follower looks for new blocks when no new-head notification came.
const followPoll = 250 * time.Millisecond

// maxLogRange bounds one eth_getLogs query.
const maxLogRange = 1000

// readyPoll is how often a KMS node re-checks readiness of a scenario-04 request.
const readyPoll = 100 * time.Millisecond

type responder struct {
	index   int
	key     *ecdsa.PrivateKey
	addr    common.Address
	sender  *txSender
	dissent bool // coprocessors only: answers the wrong way
}

func (c *Chain) startSimulators(ctx context.Context, from uint64) {
	kms := make([]*responder, len(c.kmsKeys))
	for i, k := range c.kmsKeys {
		kms[i] = &responder{index: i, key: k, addr: c.KMSSigners()[i], sender: newTxSender(c.client, k, c.chainID)}
	}
	cops := make([]*responder, len(c.coprocessorKeys))
	for i, k := range c.coprocessorKeys {
		cops[i] = &responder{
			index: i, key: k, addr: c.Coprocessors()[i],
			sender:  newTxSender(c.client, k, c.chainID),
			dissent: i >= len(c.coprocessorKeys)-c.cfg.DissentingCoprocessors,
		}
	}
	c.wg.Add(1)
	go c.follow(ctx, from, kms, cops)
}

func (c *Chain) follow(ctx context.Context, from uint64, kms, cops []*responder) {
	defer c.wg.Done()
	heads := make(chan *types.Header, 64)
	var subErr <-chan error
	if sub, err := c.client.SubscribeNewHead(ctx, heads); err != nil {
		c.log.Warn("no new-head subscription; polling", "err", err)
	} else {
		defer sub.Unsubscribe()
		subErr = sub.Err()
	}
	poll := time.NewTicker(followPoll)
	defer poll.Stop()

	wait := func() bool {
		select {
		case <-ctx.Done():
			return false
		case <-heads:
		case <-poll.C:
		case err := <-subErr:
			c.log.Warn("new-head subscription ended; polling", "err", err)
			subErr = nil
		}
		return true
	}
	for {
		from = c.dispatchFrom(ctx, from, kms, cops)
		if !wait() {
			return
		}
	}
}

// dispatchFrom hands the requests in blocks from.. (at most maxLogRange of them) to the
// simulators and returns the next block to read.
func (c *Chain) dispatchFrom(ctx context.Context, from uint64, kms, cops []*responder) uint64 {
	publicID, userID, proofID := contracts.TopicPublicDecryptionRequest, contracts.TopicUserDecryptionRequest, contracts.TopicVerifyProofRequest
	unifiedID := contracts.TopicUnifiedUserDecryptionRequest
	head, err := c.client.BlockNumber(ctx)
	if err != nil || head < from {
		return from
	}
	to := min(head, from+maxLogRange-1)
	logs, err := c.client.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from),
		ToBlock:   new(big.Int).SetUint64(to),
		Addresses: []common.Address{c.addrs.Decryption, c.addrs.InputVerification},
		Topics:    [][]common.Hash{{publicID, userID, unifiedID, proofID}},
	})
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("read request events", "from", from, "to", to, "err", err)
		}
		return from
	}
	for i := range logs {
		l := &logs[i]
		switch {
		case l.Address == c.addrs.Decryption && l.Topics[0] == publicID:
			ev, err := c.bound.Decryption.UnpackPublicDecryptionRequestEvent(l)
			if err != nil {
				c.log.Warn("bad PublicDecryptionRequest", "tx", l.TxHash, "err", err)
				continue
			}
			for _, n := range kms {
				c.spawn(func() { c.answerPublic(ctx, n, ev) })
			}
		case l.Address == c.addrs.Decryption && l.Topics[0] == userID:
			ev, err := c.bound.Decryption.UnpackUserDecryptionRequestEvent(l)
			if err != nil {
				c.log.Warn("bad UserDecryptionRequest", "tx", l.TxHash, "err", err)
				continue
			}
			req := userRequest{id: ev.DecryptionId, handles: ev.CtHandles, user: ev.UserAddress, publicKey: ev.PublicKey, extra: ev.ExtraData}
			for _, n := range kms {
				c.spawn(func() { c.answerUser(ctx, n, req) })
			}
		case l.Address == c.addrs.Decryption && l.Topics[0] == unifiedID:
			ev, err := c.bound.Decryption.UnpackUnifiedUserDecryptionRequestEvent(l)
			if err != nil {
				c.log.Warn("bad unified UserDecryptionRequest", "tx", l.TxHash, "err", err)
				continue
			}
			req := userRequest{id: ev.DecryptionId, user: ev.Payload.UserAddress, publicKey: ev.Payload.PublicKey, extra: ev.Payload.ExtraData}
			for _, h := range ev.Handles {
				req.handles = append(req.handles, h.Handle)
			}
			for _, n := range kms {
				c.spawn(func() { c.answerUser(ctx, n, req) })
			}
		case l.Address == c.addrs.InputVerification && l.Topics[0] == proofID:
			ev, err := c.bound.InputVerification.UnpackVerifyProofRequestEvent(l)
			if err != nil {
				c.log.Warn("bad VerifyProofRequest", "tx", l.TxHash, "err", err)
				continue
			}
			for _, n := range cops {
				c.spawn(func() { c.answerProof(ctx, n, ev) })
			}
		}
	}
	return to + 1
}

func (c *Chain) spawn(f func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
}

// kmsSilent says whether KMS nodes stay silent on a decryption of handles, and why.
func kmsSilent(handles [][32]byte) (contracts.Scenario, bool) {
	for _, h := range handles {
		switch s := contracts.ScenarioOfHandle(h); s {
		case contracts.ScenarioDenied, contracts.ScenarioNeverReady, contracts.ScenarioNoResponse, contracts.ScenarioRevert:
			return s, true
		}
	}
	return contracts.ScenarioNone, false
}

func hasDelayed(handles [][32]byte) bool {
	for _, h := range handles {
		if contracts.ScenarioOfHandle(h) == contracts.ScenarioReadyAfterDelay {
			return true
		}
	}
	return false
}

// kmsMayAnswer waits until a KMS node may answer a decryption (what) of handles, and says
// whether it may: not when a handle's scenario leaves the request unanswered (logged to log) or
// ctx ends first. It waits the KMS delay, then, when a handle is ready only after a delay, until
// ready says the request is ready.
func (c *Chain) kmsMayAnswer(ctx context.Context, log *slog.Logger, what string, handles [][32]byte, ready func() (bool, error)) bool {
	if s, silent := kmsSilent(handles); silent {
		log.Debug(what+" left unanswered", "scenario", s)
		return false
	}
	if !c.sleep(ctx, c.cfg.kmsDelay()) {
		return false
	}
	return !hasDelayed(handles) || c.waitReady(ctx, ready)
}

// answerPublic sends KMS node n's answer to a public decryption request: the handles'
// development plaintexts, signed by the node.
func (c *Chain) answerPublic(ctx context.Context, n *responder, ev *contracts.DecryptionPublicDecryptionRequest) {
	log := c.log.With("kms", n.index, "decryption_id", ev.DecryptionId)
	if !c.kmsMayAnswer(ctx, log, "public decryption", ev.CtHandles, func() (bool, error) {
		return bind.Call(c.bound.DecryptionAt, &bind.CallOpts{Context: ctx},
			c.bound.Decryption.PackIsPublicDecryptionReady(ev.CtHandles, ev.ExtraData), c.bound.Decryption.UnpackIsPublicDecryptionReady)
	}) {
		return
	}
	// An empty extraData, signed and sent: the public SDK verifies the signatures with "0x".
	result := PublicDecryptionResult(ev.CtHandles)
	sig, err := contracts.SignDigest(n.key, contracts.PublicDecryptionDigest(c.chainID, c.addrs.Decryption, ev.CtHandles, result, nil))
	if err != nil {
		log.Error("sign public decryption", "err", err)
		return
	}
	c.respond(ctx, n, log, "publicDecryptionResponse", c.bound.DecryptionAt,
		c.bound.Decryption.PackPublicDecryptionResponse(ev.DecryptionId, result, sig, nil))
}

// userRequest is what KMS nodes answer a user decryption from, whichever event announced it
// (the legacy UserDecryptionRequest or the unified one). The unified request's signature is
// not verified here: the relayer verifies it before sending.
type userRequest struct {
	id        *big.Int
	handles   [][32]byte
	user      common.Address
	publicKey []byte
	extra     []byte
}

// answerUser sends KMS node n's answer to a user decryption request: its share (userShare).
func (c *Chain) answerUser(ctx context.Context, n *responder, ev userRequest) {
	log := c.log.With("kms", n.index, "decryption_id", ev.id)
	if !c.kmsMayAnswer(ctx, log, "user decryption", ev.handles, func() (bool, error) {
		pairs := make([]contracts.DecryptionCtHandleContractPair, len(ev.handles))
		for i, h := range ev.handles {
			pairs[i] = contracts.DecryptionCtHandleContractPair{CtHandle: h}
		}
		return bind.Call(c.bound.DecryptionAt, &bind.CallOpts{Context: ctx},
			c.bound.Decryption.PackIsUserDecryptionReady(ev.user, pairs, ev.extra), c.bound.Decryption.UnpackIsUserDecryptionReady)
	}) {
		return
	}
	share, sig, extra, err := c.userShare(n, ev)
	if err != nil {
		log.Error("user decryption share", "err", err)
		return
	}
	c.respond(ctx, n, log, "userDecryptionResponse", c.bound.DecryptionAt,
		c.bound.Decryption.PackUserDecryptionResponse(ev.id, share, sig, extra))
}

// userShare is node n's answer to a user decryption: for a request whose public key is an
// ML-KEM-512 key (as the public SDK makes them), a share signcrypted to it that the SDK opens to
// the handles' Plaintext values (package kmssim); for any other key (a test's placeholder bytes),
// the fixed development share UserDecryptionShare, signed the same way, which no client can open.
func (c *Chain) userShare(n *responder, ev userRequest) (share, sig, extra []byte, err error) {
	plaintexts := make([][32]byte, len(ev.handles))
	for i, h := range ev.handles {
		plaintexts[i] = Plaintext(h)
	}
	resp, err := kmssim.Respond(nil, kmssim.Request{ChainID: c.chainID, Decryption: c.addrs.Decryption, UserAddress: ev.user,
		PublicKey: ev.publicKey, Handles: ev.handles, Plaintexts: plaintexts}, kmssim.Committee{Nodes: len(c.kmsKeys), Seed: c.kmsSeed}, n.index, n.key)
	switch {
	case err == nil:
		return resp.Share, resp.Signature, resp.ExtraData, nil
	case !errors.Is(err, kmssim.ErrPublicKey) && !errors.Is(err, kmssim.ErrType) && !errors.Is(err, kmssim.ErrCommittee):
		return nil, nil, nil, err
	}
	share = UserDecryptionShare(ev.handles, ev.publicKey, n.index)
	sig, err = contracts.SignDigest(n.key, contracts.UserDecryptionDigest(c.chainID, c.addrs.Decryption, ev.publicKey, ev.handles, share, ev.extra))
	return share, sig, ev.extra, err
}

func (c *Chain) answerProof(ctx context.Context, n *responder, ev *contracts.InputVerificationVerifyProofRequest) {
	log := c.log.With("coprocessor", n.index, "zk_proof_id", ev.ZkProofId)
	s := contracts.ScenarioOfCiphertext(ev.CiphertextWithZKProof)
	if s == contracts.ScenarioNoResponse || s == contracts.ScenarioRevert {
		log.Debug("input proof left unanswered", "scenario", s)
		return
	}
	if !c.sleep(ctx, c.cfg.coprocessorDelay()) {
		return
	}
	valid := s != contracts.ScenarioDenied
	if n.dissent {
		valid = !valid
	}
	if !valid {
		c.respond(ctx, n, log, "rejectProofResponse", c.bound.InputVerificationAt,
			c.bound.InputVerification.PackRejectProofResponse(ev.ZkProofId, ev.ExtraData))
		return
	}
	handles := InputHandles(c.addrs.ACL, ev.ContractChainId, ev.ContractAddress, ev.UserAddress, ev.CiphertextWithZKProof)
	// Signed over the request's user, contract, chain and extraData: what the public SDK checks.
	sig, err := contracts.SignDigest(n.key, contracts.VerifyProofDigest(c.chainID, c.addrs.InputVerification, handles,
		ev.UserAddress, ev.ContractAddress, ev.ContractChainId, ev.ExtraData))
	if err != nil {
		log.Error("sign input proof", "err", err)
		return
	}
	c.respond(ctx, n, log, "verifyProofResponse", c.bound.InputVerificationAt,
		c.bound.InputVerification.PackVerifyProofResponse(ev.ZkProofId, handles, sig, ev.ExtraData))
}

// respond sends one answer from n's key. It does not wait for the block: the chain's events
// tell the relayer (and the tests) what happened.
func (c *Chain) respond(ctx context.Context, n *responder, log *slog.Logger, method string, at *bind.BoundContract, data []byte) {
	tx, err := n.sender.transact(ctx, at, data)
	if err != nil {
		if ctx.Err() == nil {
			if re, ok := contracts.DecodeRevert(err); ok {
				err = re
			}
			log.Warn("answer not sent", "method", method, "err", err)
		}
		return
	}
	log.Debug("answer sent", "method", method, "tx", tx.Hash())
}

// sleep waits d, or returns false when ctx ends first.
func (c *Chain) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// waitReady polls ready until it says true (true) or ctx ends (false).
func (c *Chain) waitReady(ctx context.Context, ready func() (bool, error)) bool {
	for {
		ok, err := ready()
		if err != nil && !errors.Is(err, context.Canceled) {
			c.log.Warn("readiness check", "err", err)
		}
		if ok {
			return true
		}
		if !c.sleep(ctx, readyPoll) {
			return false
		}
	}
}
