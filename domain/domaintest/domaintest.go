// Package domaintest is what tests of several packages need of the domain: signing a request
// the way a client does. Only tests import it.
package domaintest

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
)

// SignUnified signs the POST /v3/user-decrypt envelope m (its "signature" member is replaced)
// with key, over the unified EIP-712 typed data for the Decryption contract decryption, as a
// client does: the body is read as the relayer reads it (cfg), and the signature's v is 27 or 28.
func SignUnified(tb testing.TB, m map[string]any, key *ecdsa.PrivateKey, decryption string, cfg domain.ValidationConfig) {
	tb.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	u, err := domain.ParseUnifiedUserDecrypt(raw, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	sr, _, err := domain.SignedPart(domain.Request{UnifiedUserDecrypt: &u}, decryption)
	if err != nil {
		tb.Fatal(err)
	}
	sig, err := crypto.Sign(sr.Digest[:], key)
	if err != nil {
		tb.Fatal(err)
	}
	sig[64] += 27
	m["signature"] = "0x" + hex.EncodeToString(sig)
}
