package kmssim_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
	"relayer/workers/devchain/kmssim"
	"relayer/workers/devchain/nodetest"
	"relayer/workers/gateway/contracts"
)

var (
	gatewayChainID = big.NewInt(1337)
	decryptionAddr = common.HexToAddress("0x7978B7077F80E7e76599957B10C9b124D66685a1")
	allTypes       = []byte{0, 2, 3, 4, 5, 6, 7, 8}
	typeBits       = map[byte]int{0: 1, 2: 8, 3: 16, 4: 32, 5: 64, 6: 128, 7: 160, 8: 256}
)

// sdkCase is one input of testdata/sdk_user_decrypt.mjs.
type sdkCase struct {
	Name        string     `json:"name"`
	ChainID     uint64     `json:"chainId"`
	Decryption  string     `json:"decryption"`
	Signers     []string   `json:"signers"`
	UserAddress string     `json:"userAddress"`
	PublicKey   string     `json:"publicKey"`
	PrivateKey  string     `json:"privateKey"`
	Signature   string     `json:"signature"`
	Handles     []string   `json:"handles"`
	Result      []sdkShare `json:"result"`
	want        []string   // the SDK's values; nil when it must refuse
	wantErr     string     // part of the SDK's error when it must refuse
}

// sdkShare is one share as the relayer returns it (domain.UserDecryptShare).
type sdkShare struct {
	Payload   string `json:"payload"`
	Signature string `json:"signature"`
	ExtraData string `json:"extraData"`
}

type sdkOutcome struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
	Error  string   `json:"error"`
}

// runSDK runs the judge script with input and decodes what it prints into out.
func runSDK(t *testing.T, node string, input, out any) {
	t.Helper()
	in, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	script, err := filepath.Abs(filepath.Join("testdata", "sdk_user_decrypt.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstderr: %s\nstdout: %s", filepath.Base(script), err, stderr.String(), stdout.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("node output: %v\n%s", err, stdout.String())
	}
}

// sdkValue is how the SDK's userDecrypt returns the cleartext v of a handle of type fheType.
func sdkValue(v [32]byte, fheType byte) string {
	switch fheType {
	case 0:
		if v[31]&1 == 1 {
			return "true"
		}
		return "false"
	case 7:
		return common.BytesToAddress(v[12:]).Hex()
	default:
		return new(big.Int).SetBytes(v[:]).String()
	}
}

// cut keeps the bits of v a handle of type fheType holds.
func cut(v [32]byte, fheType byte) [32]byte {
	bits := typeBits[fheType]
	for k := bits; k < 256; k++ {
		v[31-k/8] &^= 1 << (k % 8)
	}
	return v
}

func mustKeys(t *testing.T, n int) []*ecdsa.PrivateKey {
	t.Helper()
	keys := make([]*ecdsa.PrivateKey, n)
	for i := range keys {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = k
	}
	return keys
}

func signerAddrs(keys []*ecdsa.PrivateKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = crypto.PubkeyToAddress(k.PublicKey).Hex()
	}
	return out
}

// testRequest is a request for handles of the given types (one each), under publicKey for user,
// with the development chain's cleartexts.
func testRequest(t *testing.T, seed string, types []byte, publicKey []byte, user common.Address) kmssim.Request {
	t.Helper()
	req := kmssim.Request{ChainID: gatewayChainID, Decryption: decryptionAddr, UserAddress: user, PublicKey: publicKey}
	for i, ty := range types {
		h := contracts.NewHandle(crypto.Keccak256Hash([]byte("kmssim-test/"+seed)), uint8(i), 31337, ty)
		req.Handles = append(req.Handles, h)
		req.Plaintexts = append(req.Plaintexts, devchain.Plaintext(h))
	}
	return req
}

// answers are the responses of the nodes at indexes (in that order) of committee, as the relayer
// returns them.
func answers(t *testing.T, req kmssim.Request, c kmssim.Committee, keys []*ecdsa.PrivateKey, indexes ...int) []sdkShare {
	t.Helper()
	out := make([]sdkShare, 0, len(indexes))
	for _, i := range indexes {
		r, err := kmssim.Respond(nil, req, c, i, keys[i])
		if err != nil {
			t.Fatalf("Respond(node %d): %v", i, err)
		}
		// What the Decryption contract checks before it accepts the share.
		digest := contracts.UserDecryptionDigest(req.ChainID, req.Decryption, req.PublicKey, req.Handles, r.Share, r.ExtraData)
		if got, err := contracts.RecoverSigner(digest, r.Signature); err != nil || got != crypto.PubkeyToAddress(keys[i].PublicKey) {
			t.Fatalf("node %d: the share's signature recovers %s (%v)", i, got, err)
		}
		out = append(out, sdkShare{Payload: hex.EncodeToString(r.Share), Signature: hex.EncodeToString(r.Signature), ExtraData: "0x" + hex.EncodeToString(r.ExtraData)})
	}
	return out
}

func wantValues(req kmssim.Request) []string {
	out := make([]string, len(req.Handles))
	for i, h := range req.Handles {
		out[i] = sdkValue(cut(req.Plaintexts[i], h[30]), h[30])
	}
	return out
}

// TestSDKOpensResponses has the public SDK's KMS wasm verify and open what kmssim makes, for the
// development chain's layout (4 nodes, any 3 shares), other committees (1 node, 7 nodes), a
// delegate, every FHE type and edge values, and checks that it refuses what it must.
func TestSDKOpensResponses(t *testing.T) {
	node, _ := nodetest.SDK(t)

	var kp struct{ PublicKey, PrivateKey string }
	runSDK(t, node, map[string]string{"op": "keygen"}, &kp)
	publicKey, err := hex.DecodeString(kp.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	users := mustKeys(t, 2)
	user, delegate := crypto.PubkeyToAddress(users[0].PublicKey), crypto.PubkeyToAddress(users[1].PublicKey)
	userSig, err := crypto.Sign(crypto.Keccak256(publicKey), users[0])
	if err != nil {
		t.Fatal(err)
	}
	userSig[64] += 27

	four, seven, one := mustKeys(t, 4), mustKeys(t, 7), mustKeys(t, 1)
	c4, c7, c1 := kmssim.Committee{Nodes: 4, Seed: []byte("dev committee")}, kmssim.Committee{Nodes: 7}, kmssim.Committee{Nodes: 1}

	newCase := func(name string, req kmssim.Request, signers []*ecdsa.PrivateKey, result []sdkShare) sdkCase {
		c := sdkCase{
			Name: name, ChainID: gatewayChainID.Uint64(), Decryption: decryptionAddr.Hex(), Signers: signerAddrs(signers),
			UserAddress: req.UserAddress.Hex(), PublicKey: kp.PublicKey, PrivateKey: kp.PrivateKey,
			Signature: hex.EncodeToString(userSig), Result: result, want: wantValues(req),
		}
		for _, h := range req.Handles {
			c.Handles = append(c.Handles, "0x"+hex.EncodeToString(h[:]))
		}
		return c
	}
	refused := func(c sdkCase, why string) sdkCase {
		c.want, c.wantErr = nil, why
		return c
	}

	all := testRequest(t, "all", allTypes, publicKey, user)
	edge := testRequest(t, "edge", append(allTypes, allTypes...), publicKey, user)
	for i := range edge.Plaintexts {
		if i < len(allTypes) {
			edge.Plaintexts[i] = [32]byte{}
		} else {
			edge.Plaintexts[i] = cut([32]byte(bytes.Repeat([]byte{0xff}, 32)), edge.Handles[i][30])
		}
	}
	delegated := testRequest(t, "delegated", []byte{5, 0}, publicKey, delegate)
	small := testRequest(t, "small", []byte{2}, publicKey, user)

	cases := []sdkCase{
		newCase("4 nodes, shares of nodes 0 1 2", all, four, answers(t, all, c4, four, 0, 1, 2)),
		newCase("4 nodes, shares of nodes 3 1 2", all, four, answers(t, all, c4, four, 3, 1, 2)),
		newCase("4 nodes, shares of nodes 3 2 0", all, four, answers(t, all, c4, four, 3, 2, 0)),
		newCase("4 nodes, shares of nodes 0 1 3", all, four, answers(t, all, c4, four, 0, 1, 3)),
		newCase("4 nodes, all shares", all, four, answers(t, all, c4, four, 0, 1, 2, 3)),
		newCase("4 nodes, zeros and maxima", edge, four, answers(t, edge, c4, four, 1, 2, 3)),
		newCase("4 nodes, delegate", delegated, four, answers(t, delegated, c4, four, 0, 2, 3)),
		newCase("7 nodes, 5 shares", all, seven, answers(t, all, c7, seven, 6, 0, 2, 4, 5)),
		newCase("1 node (centralized)", all, one, answers(t, all, c1, one, 0)),
		newCase("1 node, zeros and maxima", edge, one, answers(t, edge, c1, one, 0)),
	}

	// What the SDK must refuse.
	impostor := mustKeys(t, 1)[0]
	forged, err := kmssim.Respond(nil, small, c4, 2, impostor)
	if err != nil {
		t.Fatal(err)
	}
	withForged := answers(t, small, c4, four, 0, 1)
	withForged = append(withForged, sdkShare{Payload: hex.EncodeToString(forged.Share), Signature: hex.EncodeToString(forged.Signature), ExtraData: "0x"})
	tampered := answers(t, small, c4, four, 0, 1, 2)
	tampered[1].Payload = tampered[1].Payload[:len(tampered[1].Payload)-2] + "02" // the degree
	otherUser := newCase("another user", small, four, answers(t, small, c4, four, 0, 1, 2))
	otherUser.UserAddress = delegate.Hex()
	cases = append(cases,
		refused(newCase("4 nodes, 2 shares", small, four, answers(t, small, c4, four, 0, 1)), "Underflow"),
		// The SDK drops the bad share, and two are not enough.
		refused(newCase("4 nodes, a share by a key KMSVerifier does not list", small, four, withForged), "num_bots (2)"),
		refused(newCase("4 nodes, a share altered after signing", small, four, tampered), "num_bots (2)"),
		refused(otherUser, "Could not validate request"),
	)

	var got []sdkOutcome
	runSDK(t, node, map[string]any{"op": "decrypt", "cases": cases}, &got)
	if len(got) != len(cases) {
		t.Fatalf("%d outcomes for %d cases", len(got), len(cases))
	}
	for i, c := range cases {
		o := got[i]
		switch {
		case c.want != nil && o.Error != "":
			t.Errorf("%s: the SDK refused: %s", c.Name, o.Error)
		case c.want != nil && strings.Join(o.Values, ",") != strings.Join(c.want, ","):
			t.Errorf("%s: the SDK decrypted %v, want %v", c.Name, o.Values, c.want)
		case c.want == nil && o.Error == "":
			t.Errorf("%s: the SDK accepted it and decrypted %v", c.Name, o.Values)
		case c.want == nil && !strings.Contains(o.Error, c.wantErr):
			t.Errorf("%s: the SDK refused with %q, want it to mention %q", c.Name, o.Error, c.wantErr)
		default:
			t.Logf("%s: %v%s", c.Name, o.Values, o.Error)
		}
	}
}

func TestCommitteeLayouts(t *testing.T) {
	for nodes, want := range map[int]int{1: 0, 4: 1, 7: 2, 10: 3} {
		if got, err := (kmssim.Committee{Nodes: nodes}).Degree(); err != nil || got != want {
			t.Errorf("Degree(%d nodes) = %d, %v; want %d", nodes, got, err, want)
		}
	}
	for _, nodes := range []int{0, 2, 3, 5, 6} {
		if _, err := (kmssim.Committee{Nodes: nodes}).Degree(); !errors.Is(err, kmssim.ErrCommittee) {
			t.Errorf("Degree(%d nodes): %v, want ErrCommittee", nodes, err)
		}
	}
}

func TestRespondRefusesBadRequests(t *testing.T) {
	key := mustKeys(t, 1)[0]
	good := kmssim.Request{ChainID: gatewayChainID, Decryption: decryptionAddr, Handles: [][32]byte{{30: 5}}, Plaintexts: [][32]byte{{}}}
	for name, tc := range map[string]struct {
		mutate func(*kmssim.Request)
		want   error
	}{
		"not a key":        {func(r *kmssim.Request) { r.PublicKey = []byte("0123456789") }, kmssim.ErrPublicKey},
		"no handles":       {func(r *kmssim.Request) { r.Handles, r.Plaintexts = nil, nil }, kmssim.ErrRequest},
		"missing values":   {func(r *kmssim.Request) { r.Plaintexts = nil }, kmssim.ErrRequest},
		"unsupported type": {func(r *kmssim.Request) { r.Handles = [][32]byte{{30: 9}} }, kmssim.ErrType},
	} {
		r := good
		tc.mutate(&r)
		if _, err := kmssim.Respond(nil, r, kmssim.Committee{Nodes: 4}, 0, key); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	if _, err := kmssim.Respond(nil, good, kmssim.Committee{Nodes: 4}, 4, key); !errors.Is(err, kmssim.ErrCommittee) {
		t.Errorf("node 4 of 4: %v, want ErrCommittee", err)
	}
}
