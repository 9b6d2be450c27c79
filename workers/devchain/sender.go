package devchain

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// txSender sends one key's transactions one at a time with consecutive nonces, so that the
// simulators' concurrent answers from one key never collide.
type txSender struct {
	client  *ethclient.Client
	key     *ecdsa.PrivateKey
	from    common.Address
	chainID *big.Int

	mu     sync.Mutex
	nonce  uint64
	synced bool
}

func newTxSender(client *ethclient.Client, key *ecdsa.PrivateKey, chainID *big.Int) *txSender {
	return &txSender{client: client, key: key, from: crypto.PubkeyToAddress(key.PublicKey), chainID: chainID}
}

// send builds, signs and sends one transaction with build, under the next nonce. When the node
// says the nonce is taken (someone else sent from this key), it re-reads the nonce and tries
// again; any other failure makes the next send re-read it.
func (s *txSender) send(ctx context.Context, build func(*bind.TransactOpts) (*types.Transaction, error)) (*types.Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if !s.synced {
			n, err := s.client.PendingNonceAt(ctx, s.from)
			if err != nil {
				return nil, err
			}
			s.nonce, s.synced = n, true
		}
		opts := bind.NewKeyedTransactor(s.key, s.chainID)
		opts.Context = ctx
		opts.Nonce = new(big.Int).SetUint64(s.nonce)
		tx, err := build(opts)
		if err == nil {
			s.nonce++
			return tx, nil
		}
		s.synced = false
		if !isNonceTaken(err) {
			return nil, err
		}
		lastErr = err
	}
	return nil, lastErr
}

// isNonceTaken recognises the node's answers to a nonce that is already used or pending.
func isNonceTaken(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "nonce too low") || strings.Contains(msg, "replacement transaction underpriced") ||
		strings.Contains(msg, "already known")
}

// transact sends data to the contract at, with a gas limit of twice the estimate plus a margin.
// An answer is estimated before the other nodes' answers land, and the one that reaches the
// threshold costs more than its estimate (it emits the collected signatures): with the bare
// estimate it would run out of gas.
func (s *txSender) transact(ctx context.Context, at *bind.BoundContract, data []byte) (*types.Transaction, error) {
	return s.send(ctx, func(opts *bind.TransactOpts) (*types.Transaction, error) {
		to := at.Address()
		gas, err := s.client.EstimateGas(ctx, ethereum.CallMsg{From: s.from, To: &to, Data: data})
		if err != nil {
			return nil, err
		}
		opts.GasLimit = 2*gas + gasMargin
		return bind.Transact(at, opts, data)
	})
}

const gasMargin = 200_000
