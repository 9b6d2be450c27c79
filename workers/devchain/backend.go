package devchain

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// backend is go-ethereum's simulated backend, assembled from the same parts and in the same way
// as ethclient/simulated.NewBackend (an in-memory node with every fork active from genesis and
// chain id 1337, the filter API, and a catalyst.SimulatedBeacon that seals a block on Commit).
// simulated.Backend hides its node, so it offers neither an *rpc.Client (raw calls such as
// eth_sendRawTransactionSync, and the newPendingTransactions subscription that drives block
// production) nor the real address of a JSON-RPC server started on port 0; assembling the parts
// here gives both, and an *ethclient.Client: the very type the gateway adapter uses against a
// real node.
type backend struct {
	node   *node.Node
	beacon *catalyst.SimulatedBeacon
	gate   *callGate // the node's eth_call (see gate.go)
	rpc    *rpc.Client
	client *ethclient.Client
}

// poolSlots is how many transactions of one account the development chain's pool holds,
// executable or waiting for an earlier nonce (see newBackend).
const poolSlots = 1 << 14

// newBackend starts the node; httpAddr and wsAddr ("" for none) are loopback host:port pairs.
func newBackend(alloc types.GenesisAlloc, httpAddr, wsAddr string) (*backend, error) {
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true}
	modules := []string{"eth", "net", "web3"}
	if httpAddr != "" {
		host, port, err := splitHostPort(httpAddr)
		if err != nil {
			return nil, fmt.Errorf("devchain: HTTP address: %w", err)
		}
		nodeConf.HTTPHost, nodeConf.HTTPPort, nodeConf.HTTPModules = host, port, modules
		nodeConf.HTTPVirtualHosts = []string{"localhost"} // and any IP address, which geth always accepts
	}
	if wsAddr != "" {
		host, port, err := splitHostPort(wsAddr)
		if err != nil {
			return nil, fmt.Errorf("devchain: WS address: %w", err)
		}
		nodeConf.WSHost, nodeConf.WSPort, nodeConf.WSModules = host, port, modules
	}

	genesisAlloc := core.SystemContractAllocs()
	maps.Copy(genesisAlloc, alloc)
	ethConf := ethconfig.Defaults
	ethConf.Genesis = &core.Genesis{
		Config:   params.AllDevChainProtocolChanges, // chain id 1337
		GasLimit: ethconfig.Defaults.Miner.GasCeil,
		Alloc:    genesisAlloc,
	}
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	// A pool that holds what one relayer's keys send at their busiest. With geth's defaults (64
	// transactions of an account waiting behind a missing nonce), the transactions of a key that
	// arrive out of nonce order, as concurrent sends do under load, were taken and then dropped
	// in runs, silently, and the key's later ones waited until the relayer noticed and sent them
	// again (the slow rounds of the serve benchmark).
	ethConf.TxPool.AccountSlots, ethConf.TxPool.GlobalSlots = poolSlots, 4*poolSlots
	ethConf.TxPool.AccountQueue, ethConf.TxPool.GlobalQueue = poolSlots, 4*poolSlots
	ethConf.LogNoHistory = true // no log index to build: eth_getLogs scans blocks

	stack, err := node.New(&nodeConf)
	if err != nil {
		return nil, fmt.Errorf("devchain: new node: %w", err)
	}
	fail := func(what string, err error) (*backend, error) {
		return nil, errors.Join(fmt.Errorf("devchain: %s: %w", what, err), stack.Close())
	}
	ethService, err := eth.New(stack, &ethConf)
	if err != nil {
		return fail("new eth service", err)
	}
	filterSystem := filters.NewFilterSystem(ethService.APIBackend, filters.Config{})
	gate, err := newCallGate(ethService)
	if err != nil {
		return fail("eth_call gate", err)
	}
	// The gate after the eth service's APIs: its eth_call replaces theirs.
	stack.RegisterAPIs([]rpc.API{
		{Namespace: "eth", Service: filters.NewFilterAPI(filterSystem)},
		{Namespace: "eth", Service: gate},
	})
	if err := stack.Start(); err != nil {
		gate.close()
		return fail("start node", err)
	}
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, ethService)
	if err != nil {
		gate.close()
		return fail("new simulated beacon", err)
	}
	if err := beacon.Fork(ethService.BlockChain().GetCanonicalHash(0)); err != nil {
		gate.close()
		return fail("reset to genesis", errors.Join(err, beacon.Stop()))
	}
	rpcClient := stack.Attach()
	return &backend{node: stack, beacon: beacon, gate: gate, rpc: rpcClient, client: ethclient.NewClient(rpcClient)}, nil
}

func (b *backend) close() error {
	b.client.Close()
	err := errors.Join(b.beacon.Stop(), b.node.Close())
	b.gate.close()
	return err
}

func splitHostPort(addr string) (string, int, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return "", 0, err
	}
	return host, port, nil
}
