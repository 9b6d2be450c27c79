package devchain_test

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/devchain/nodetest"
	"relayer/workers/gateway/contracts"
)

// sdkChecks runs, in Node, the public client SDK's own code (@zama-fhe/relayer-sdk, pinned in the
// repository's package.json) on what the development chain says and signs, without a relayer:
// the host-chain reads of createInstance, and the signature checks of encrypt() and
// publicDecrypt(). It reads its input from DEVCHAIN_SDK_INPUT (JSON) and prints "ok <name>" or
// "FAIL <name>: <why>" per check; the exit code is the number of failures.
const sdkChecks = `
import { FhevmHostChainConfig, CoprocessorSignersVerifier, KmsSignersVerifier, FhevmHandle, ACL } from '@zama-fhe/relayer-sdk/node';

const input = JSON.parse(process.env.DEVCHAIN_SDK_INPUT);
const a = input.addresses;
let failures = 0;
const check = async (name, f) => {
  try {
    await f();
    console.log('ok ' + name);
  } catch (e) {
    failures++;
    console.log('FAIL ' + name + ': ' + (e && e.stack ? e.stack : e));
  }
};
const refused = async (what, f) => {
  try {
    await f();
  } catch (e) {
    return;
  }
  throw new Error(what + ' was accepted');
};
const same = (what, got, want) => {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(what + ' = ' + JSON.stringify(got) + ', want ' + JSON.stringify(want));
  }
};

let host;
await check('createInstance host-chain reads: eth_chainId, InputVerifier and KMSVerifier', async () => {
  host = await FhevmHostChainConfig.fromUserConfig({
    network: input.rpc,
    chainId: input.chainId,
    gatewayChainId: input.chainId,
    aclContractAddress: a.ACL,
    kmsContractAddress: a.KMSVerifier,
    inputVerifierContractAddress: a.InputVerifier,
    verifyingContractAddressDecryption: a.Decryption,
    verifyingContractAddressInputVerification: a.InputVerification,
  }).loadFromChain();
  same('coprocessorSigners', host.coprocessorSigners, input.coprocessors);
  same('coprocessorSignerThreshold', Number(host.coprocessorSignerThreshold), input.majority);
  same('kmsSigners', host.kmsSigners, input.kmsSigners);
  same('kmsSignerThreshold', Number(host.kmsSignerThreshold), input.threshold);
  same('gatewayChainId', Number(host.gatewayChainId), input.chainId);
});

const coprocessors = () => CoprocessorSignersVerifier.fromAddresses({
  coprocessorSigners: host.coprocessorSigners,
  coprocessorSignerThreshold: host.coprocessorSignerThreshold,
  gatewayChainId: BigInt(host.gatewayChainId),
  verifyingContractAddressInputVerification: host.verifyingContractAddressInputVerification,
});
const proof = (user, extraData) => ({
  handles: input.proof.handles.map((h) => FhevmHandle.fromBytes32Hex(h)),
  zkProof: { userAddress: user, contractAddress: input.proof.contract, chainId: BigInt(input.chainId) },
  signatures: input.proof.signatures,
  extraData,
});
await check('the coprocessors sign what encrypt() verifies (CiphertextVerification, extraData 0x00)', async () => {
  coprocessors().verifyZKProof(proof(input.proof.user, '0x00'));
});
await check('their signatures do not verify for another user or another extraData', async () => {
  await refused('another user', () => coprocessors().verifyZKProof(proof(input.proof.contract, '0x00')));
  await refused('extraData 0x', () => coprocessors().verifyZKProof(proof(input.proof.user, '0x')));
});

const kms = () => KmsSignersVerifier.fromAddresses({
  kmsSigners: host.kmsSigners,
  threshold: host.kmsSignerThreshold,
  chainId: BigInt(host.gatewayChainId),
  verifyingContractAddressDecryption: host.verifyingContractAddressDecryption,
});
const decryption = (extraData) => ({
  orderedHandles: input.public.handles.map((h) => FhevmHandle.fromBytes32Hex(h)),
  orderedDecryptedResult: input.public.result,
  signatures: input.public.signatures,
  extraData,
});
await check('the KMS nodes sign what publicDecrypt() verifies (PublicDecryptVerification, extraData 0x)', async () => {
  kms().verifyPublicDecrypt(decryption('0x'));
});
await check('their signatures do not verify with the request extraData 0x00', async () => {
  await refused('extraData 0x00', () => kms().verifyPublicDecrypt(decryption('0x00')));
});

await check('the ACL answers the SDK: isAllowedForDecryption, persistAllowed for user and contract', async () => {
  const acl = new ACL({ aclContractAddress: a.ACL, provider: host.ethersProvider });
  await acl.checkAllowedForDecryption(input.public.handles);
  await acl.checkUserAllowedForDecryption({
    userAddress: input.proof.user,
    handleContractPairs: input.public.handles.map((handle) => ({ handle, contractAddress: input.proof.contract })),
  });
  await refused('a scenario-01 handle', () => acl.checkAllowedForDecryption([input.deniedHandle]));
  await refused('a scenario-01 handle for the user', () => acl.checkUserAllowedForDecryption({
    userAddress: input.proof.user,
    handleContractPairs: [{ handle: input.deniedHandle, contractAddress: input.proof.contract }],
  }));
});
process.exit(failures);
`

// sdkCheckCount is how many checks sdkChecks runs.
const sdkCheckCount = 6

func TestThePublicSDKAcceptsTheHostContractsAndTheSimulatorsSignatures(t *testing.T) {
	t.Parallel()
	nodeBin, root := nodetest.SDK(t)

	cfg := testConfig()
	cfg.HTTPAddr = "127.0.0.1:0"
	c := devchaintest.Start(t, cfg, testLogger())
	ctx := testContext(t)
	g := bindings(c)
	relayer := newSender(c, c.RelayerKey())
	a := c.Addresses()

	// An input proof and a public decryption, each requested with the SDK's extraData 0x00.
	ct := contracts.TestCiphertext(contracts.ScenarioNone, seed(t), 64)
	r := relayer.mustSucceed(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofRequest(big.NewInt(devchain.ChainID), testContract, testUser, ct, []byte{0x00}))
	logs := waitLogs(t, ctx, c, a.InputVerification, contracts.TopicVerifyProofResponse, requestID(t, r, a.InputVerification, contracts.TopicVerifyProofRequest), 1)
	verified, err := g.InputVerification.UnpackVerifyProofResponseEvent(&logs[0])
	if err != nil {
		t.Fatal(err)
	}
	handles := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed(t)), contracts.TestHandle(contracts.ScenarioNone, seed(t))}
	r = relayer.mustSucceed(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionRequest(handles, []byte{0x00}))
	logs = waitLogs(t, ctx, c, a.Decryption, contracts.TopicPublicDecryptionResponse, requestID(t, r, a.Decryption, contracts.TopicPublicDecryptionRequest), 1)
	decrypted, err := g.Decryption.UnpackPublicDecryptionResponseEvent(&logs[0])
	if err != nil {
		t.Fatal(err)
	}

	type sigs struct {
		Handles    []string `json:"handles"`
		Signatures []string `json:"signatures"`
		Result     string   `json:"result,omitempty"`
		User       string   `json:"user,omitempty"`
		Contract   string   `json:"contract,omitempty"`
	}
	denied := contracts.TestHandle(contracts.ScenarioDenied, seed(t))
	input, err := json.Marshal(map[string]any{
		"rpc":     c.HTTPEndpoint(),
		"chainId": devchain.ChainID,
		"addresses": map[string]string{
			"ACL": a.ACL.Hex(), "Decryption": a.Decryption.Hex(), "InputVerification": a.InputVerification.Hex(),
			"InputVerifier": a.InputVerifier.Hex(), "KMSVerifier": a.KMSVerifier.Hex(),
		},
		"coprocessors": hexAddrs(c.Coprocessors()),
		"majority":     c.Majority(),
		"kmsSigners":   hexAddrs(c.KMSSigners()),
		"threshold":    c.Threshold(),
		"proof": sigs{Handles: hexHandles(verified.CtHandles), Signatures: hexAll(verified.Signatures),
			User: testUser.Hex(), Contract: testContract.Hex()},
		"public":       sigs{Handles: hexHandles(handles), Signatures: hexAll(decrypted.Signatures), Result: hexutil.Encode(decrypted.DecryptedResult)},
		"deniedHandle": hexutil.Encode(denied[:]),
	})
	if err != nil {
		t.Fatal(err)
	}

	nodeCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(nodeCtx, nodeBin, "--input-type=module", "-e", sdkChecks)
	cmd.Dir = root // where node_modules is
	cmd.Env = append(os.Environ(), "DEVCHAIN_SDK_INPUT="+string(input))
	out, err := cmd.CombinedOutput()
	t.Logf("the SDK's checks:\n%s", out)
	if err != nil {
		t.Errorf("the SDK's checks failed (%v):\n%s", err, out)
	}
	if n := strings.Count("\n"+string(out), "\nok "); n != sdkCheckCount {
		t.Errorf("%d of the SDK's %d checks passed:\n%s", n, sdkCheckCount, out)
	}
}

func hexAddrs(as []common.Address) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Hex()
	}
	return out
}

func hexHandles(hs [][32]byte) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = hexutil.Encode(h[:])
	}
	return out
}

func hexAll(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = hexutil.Encode(b)
	}
	return out
}
