package devchain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// burnInit is contract-creation code that loops until its gas runs out, reading the balance of a
// new (cold, 2,600 gas) address each time round: a transaction carrying it uses all the gas it is
// given, so a few of them fill a block, in a few thousand cheap steps rather than millions.
//
//	PUSH1 0; JUMPDEST; PUSH1 1; ADD; DUP1; BALANCE; POP; PUSH1 2; JUMP
var burnInit = []byte{0x60, 0x00, 0x5b, 0x60, 0x01, 0x01, 0x80, 0x31, 0x50, 0x60, 0x02, 0x56}

// fillGas is the gas of each transaction FillBlocks sends: small enough that its fee stays under
// the node's 1 ether cap (go-ethereum's RPCTxFeeCap) while the fee cap is under 250 gwei.
const fillGas = 4_000_000

// FillBlocks makes a fee spike, as a busy chain has: from key (a funded development key: UserKey)
// it keeps three blocks' worth of gas-burning transactions waiting in the pool, paying tip per gas
// (far above what the relayer under test tips, so that they go first) and a fee cap of twice the
// base fee plus the tip, topped up at each new head, until ctx ends. Every block is then full
// whenever it is sealed (the chain seals a block BlockDebounce after a transaction arrives, which
// may be before a head's transactions are all in), so every block raises the base fee by an eighth
// and a transaction tipping less waits: it stalls, and falls under the base fee. The spike ends
// three blocks after the sending does. client is any client of the chain (Chain.Client, or
// ethclient.Dial of its JSON-RPC); chainID is the chain's. Each top-up is one JSON-RPC batch.
//
// The spike levels off where the node refuses its transactions' fees (fillGas times the fee cap,
// above its 1 ether cap): a base fee near 125 gwei with a 2 gwei tip, below the relayer's default
// max_fee_per_gas (500 gwei), so that a spike stalls the relayer's transactions without making it
// refuse to sign.
//
// It returns how many transactions the node took, and nil when ctx ended; an error when it could
// not read the head or the key's nonces. A transaction the node refuses ends that top-up. It is
// for tests: it spends key's funds.
func FillBlocks(ctx context.Context, client *ethclient.Client, chainID *big.Int, key *ecdsa.PrivateKey, tip *big.Int) (sent int, err error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	signer := types.LatestSignerForChainID(chainID)
	var last uint64
	for ctx.Err() == nil {
		head, err := client.HeaderByNumber(ctx, nil)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return sent, fmt.Errorf("fill blocks: the head: %w", err)
		}
		if head.Number.Uint64() == last {
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		last = head.Number.Uint64()
		// The pool's next nonce, and the chain's: what lies between is waiting.
		next, err := client.PendingNonceAt(ctx, from)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return sent, fmt.Errorf("fill blocks: the pending nonce of %s: %w", from, err)
		}
		mined, err := client.NonceAt(ctx, from, nil)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return sent, fmt.Errorf("fill blocks: the nonce of %s: %w", from, err)
		}
		want, waiting := 3*head.GasLimit/fillGas, next-mined
		if waiting >= want {
			continue
		}
		want -= waiting
		feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
		batch := make([]rpc.BatchElem, want)
		for i := range batch {
			tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{
				ChainID: chainID, Nonce: next + uint64(i), GasTipCap: tip, GasFeeCap: feeCap, Gas: fillGas, Data: burnInit,
			})
			if err != nil {
				return sent, fmt.Errorf("fill blocks: sign: %w", err)
			}
			raw, err := tx.MarshalBinary()
			if err != nil {
				return sent, fmt.Errorf("fill blocks: encode: %w", err)
			}
			batch[i] = rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Encode(raw)}, Result: new(common.Hash)}
		}
		if err := client.Client().BatchCallContext(ctx, batch); err != nil {
			continue // the next head tries again, from the pool's nonce
		}
		for _, b := range batch {
			if b.Error != nil {
				break
			}
			sent++
		}
	}
	return sent, nil
}
