package main

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway"
	"relayer/workers/gateway/kmstest"
)

// externalChainSettings are serve's settings for dev, an external chain, signing with signer and
// extra.
func externalChainSettings(dev *devchain.Chain, signer gateway.SignerConfig, extra ...gateway.SignerConfig) serveSettings {
	a := dev.Addresses()
	return serveSettings{
		Chain: &gateway.Config{
			RPCURL: dev.HTTPEndpoint(), ChainID: dev.ChainID().Uint64(), Signer: signer,
			Contracts: gateway.Contracts{Decryption: a.Decryption, InputVerification: a.InputVerification, ACL: a.ACL},
		},
		ExtraSigners: extra,
	}
}

// One account given twice would be two nonce sequences for it: serve refuses to start, naming the
// second entry and the first, whether the key comes twice from variables or is one KMS key named
// by its id and by an alias. Distinct KMS keys beside a variable's key start, each its own adapter.
// Not parallel: it sets environment variables.
func TestServeRefusesOneKeyGivenTwiceAmongItsSigners(t *testing.T) {
	dev := devchaintest.Start(t, devchain.Config{HTTPAddr: "127.0.0.1:0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key := hex.EncodeToString(crypto.FromECDSA(dev.RelayerKey()))
	t.Setenv("SIGNERS_TEST_KEY_A", key)
	t.Setenv("SIGNERS_TEST_KEY_B", "0x"+key)

	s := externalChainSettings(dev, gateway.SignerConfig{KeyEnv: "SIGNERS_TEST_KEY_A"}, gateway.SignerConfig{KeyEnv: "SIGNERS_TEST_KEY_B"})
	if c, err := startChain(ctx, s, nil, nil); err == nil {
		c.Close()
		t.Fatal("the same key twice (two variables) was accepted")
	} else if !strings.Contains(err.Error(), "chain.extra_signers[0]") || !strings.Contains(err.Error(), "chain.signer's too") {
		t.Fatalf("the same key twice: %v, want chain.extra_signers[0] and chain.signer named", err)
	} else if strings.Contains(err.Error(), key) {
		t.Fatalf("the error shows the key: %v", err)
	}

	e := kmstest.Start(t)
	kmstest.UseCredentials(t)
	id, arn := e.CreateKey(t)
	alias := e.CreateAlias(t, "relayer-twice", id)
	other, _ := e.CreateKey(t)
	kms := func(keyID string) gateway.SignerConfig {
		return gateway.SignerConfig{KMS: gateway.KMSConfig{KeyID: keyID, Region: kmstest.Region, Endpoint: e.Endpoint}}
	}
	s = externalChainSettings(dev, gateway.SignerConfig{KeyEnv: "SIGNERS_TEST_KEY_A"}, kms(arn), kms(other), kms(alias))
	if c, err := startChain(ctx, s, nil, nil); err == nil {
		c.Close()
		t.Fatal("one KMS key by its ARN and by an alias was accepted")
	} else if !strings.Contains(err.Error(), "chain.extra_signers[2]") || !strings.Contains(err.Error(), "chain.extra_signers[0]'s too") {
		t.Fatalf("one KMS key twice: %v, want chain.extra_signers[2] and [0] named", err)
	}

	s = externalChainSettings(dev, gateway.SignerConfig{KeyEnv: "SIGNERS_TEST_KEY_A"}, kms(arn), kms(other))
	c, err := startChain(ctx, s, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.keys) != 2 || c.keys[0].Address() == c.keys[1].Address() || c.keys[0].Address() == c.gw.Address() {
		t.Fatalf("want three distinct keys, got %s and %d more", c.gw.Address(), len(c.keys))
	}
	for _, k := range c.keys {
		if !strings.Contains(c.summary, k.Address().Hex()) {
			t.Errorf("the start summary does not name %s: %s", k.Address(), c.summary)
		}
	}
}
