//go:build nodevchain

// This file stands in for devchain_on.go in the build without the development chain
// (go build -tags nodevchain, make build-production): a production binary that links no
// go-ethereum node. serve then needs an external chain (its configuration check says which
// settings: loadServeConfig), and `relayer devchain` refuses to run; everything else is the same.

package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"relayer/api"
)

// devChainBuilt says that this build has no development chain.
const devChainBuilt = false

// devChainConfig has no settings: the devchain section of serve's configuration has only
// rpc_listen, which is refused.
type devChainConfig struct{}

// errNoDevChain is what the development chain's seam answers in this build. serve's
// configuration check refuses a configuration without an external chain first, so that serve
// never gets this far.
var errNoDevChain = errors.New(noDevChain)

func validateDevChain(devChainSection) error { return errNoDevChain }

// devChainDefaults: this build's development chain has no settings.
func devChainDefaults(c devChainConfig) devChainConfig { return c }

func devKeys() api.KeysConfig { return api.KeysConfig{} }

func startDevChain(context.Context, serveSettings, *slog.Logger) (*chainSide, error) {
	return nil, errNoDevChain
}

// runDevchain is `relayer devchain`, which this build cannot run.
func runDevchain(_ context.Context, _ []string, _, _ io.Writer) error {
	return &exitError{code: 2, err: errors.New("devchain: " + noDevChain + "; build the relayer without the tag " +
		"(make build) to run the development chain, or give serve an external chain: chain.rpc_url, chain.chain_id, " +
		"chain.contracts, chain.signer and chain.user_decrypt_threshold")}
}
