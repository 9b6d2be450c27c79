package devchain

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/rpc"
)

// callGate is the node's eth_call, in process and over HTTP and WebSocket alike. It hands every
// call to the node's own eth_call, unchanged, except that a question the development chain
// simulates an answer to (the gateway's readiness views, see readiness.go) is shown to the chain
// first, which may answer it itself.
//
// go-ethereum gives no hook into eth_call, so the gate takes its place: registered in the "eth"
// namespace after the eth service's own APIs, its Call replaces theirs (a later registration of
// a method wins). The node's own eth_call stays reachable through a server of the gate's own
// holding the eth service's "eth" APIs (a second instance of them: the one goroutine that makes,
// the downloader API's, ends with the node).
type callGate struct {
	server *rpc.Server
	inner  *rpc.Client
	// answer, once set (after the contracts are deployed), sees every call first.
	answer atomic.Pointer[callAnswerer]
}

// callAnswerer answers a call itself (answered true) or lets the node answer it.
type callAnswerer func(ctx context.Context, to common.Address, input []byte) (out []byte, answered bool)

// newCallGate builds the gate over ethService's own eth API. It must be registered with the node
// after eth.New (which registers that API) and before the node starts.
func newCallGate(ethService *eth.Ethereum) (*callGate, error) {
	server := rpc.NewServer()
	for _, api := range ethService.APIs() {
		if api.Namespace != "eth" {
			continue
		}
		if err := server.RegisterName("eth", api.Service); err != nil {
			server.Stop()
			return nil, fmt.Errorf("devchain: the eth_call gate: %w", err)
		}
	}
	return &callGate{server: server, inner: rpc.DialInProc(server)}, nil
}

func (g *callGate) close() {
	g.inner.Close()
	g.server.Stop()
}

// callArgs are the members of eth_call's first parameter the gate reads.
type callArgs struct {
	To    *common.Address `json:"to"`
	Input *hexutil.Bytes  `json:"input"`
	Data  *hexutil.Bytes  `json:"data"`
}

// Call is eth_call(args, block, stateOverrides, blockOverrides): the three last parameters are
// optional and passed on as they came.
func (g *callGate) Call(ctx context.Context, args json.RawMessage, block, overrides, blockOverrides *json.RawMessage) (hexutil.Bytes, error) {
	if answer := g.answer.Load(); answer != nil {
		var a callArgs
		if err := json.Unmarshal(args, &a); err == nil && a.To != nil {
			input := a.Input
			if input == nil {
				input = a.Data
			}
			if input != nil {
				if out, answered := (*answer)(ctx, *a.To, *input); answered {
					return out, nil
				}
			}
		}
	}
	params := []any{args}
	rest := []*json.RawMessage{block, overrides, blockOverrides}
	last := -1
	for i, p := range rest {
		if p != nil {
			last = i
		}
	}
	for _, p := range rest[:last+1] {
		if p == nil {
			params = append(params, nil)
		} else {
			params = append(params, *p)
		}
	}
	// The node's error goes back as it came: it carries its code and data (a revert's reason),
	// which the server answering the caller reads from it.
	var out hexutil.Bytes
	if err := g.inner.CallContext(ctx, &out, "eth_call", params...); err != nil {
		return nil, err
	}
	return out, nil
}
