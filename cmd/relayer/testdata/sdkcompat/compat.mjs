// The public client SDK (@zama-fhe/relayer-sdk, pinned in the repository's package.json), unchanged,
// against a running `relayer serve` on the development chain. Run by TestThePublicSDKWorksAgainstServe
// (cmd/relayer/sdk_compat_test.go), which starts serve and passes its URLs and contract addresses in
// the environment. Each case prints one line, "ok <name>" or "FAIL <name>: <why>"; the exit code is
// the number of failures. CASES (comma-separated names) runs a subset.
import { createInstance } from '@zama-fhe/relayer-sdk/node';
import { Contract, JsonRpcProvider, Wallet, getAddress, keccak256, toUtf8Bytes } from 'ethers';

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set`);
  }
  return v;
};

const relayer = env('RELAYER_URL');
const chainId = Number(env('CHAIN_ID'));
const config = {
  aclContractAddress: getAddress(env('ACL_ADDRESS')),
  kmsContractAddress: getAddress(env('KMS_VERIFIER_ADDRESS')),
  inputVerifierContractAddress: getAddress(env('INPUT_VERIFIER_ADDRESS')),
  verifyingContractAddressDecryption: getAddress(env('DECRYPTION_ADDRESS')),
  verifyingContractAddressInputVerification: getAddress(env('INPUT_VERIFICATION_ADDRESS')),
  chainId,
  gatewayChainId: chainId,
  network: env('RPC_URL'),
};

const user = Wallet.createRandom();
const contract = getAddress(Wallet.createRandom().address);
const state = {};

// scenarioHandle is a handle the development chain treats as scenario s (7e 57 s ...), laid out as
// the protocol has it: 21 bytes of hash, index 0, the host chain id, type euint8 (2), version 0.
const scenarioHandle = (s) =>
  '0x7e57' + s + '11'.repeat(18) + '00' + chainId.toString(16).padStart(16, '0') + '02' + '00';

const cases = [
  ['createInstance (v2): keyurl, the public key and CRS downloads, the host contracts', async () => {
    state.instance = await createInstance({ ...config, relayerUrl: relayer + '/v2' });
  }],
  ['createInstance (v1 routes): /v1/keyurl in snake_case', async () => {
    await createInstance({ ...config, relayerUrl: relayer + '/v1', relayerRouteVersion: 1 });
  }],
  ['encrypt: input proof with the chain id as a hex string, handles and coprocessor signatures verified', async () => {
    const input = state.instance.createEncryptedInput(contract, user.address);
    input.add8(42).addBool(true);
    const { handles, inputProof } = await input.encrypt();
    if (handles.length !== 2 || !(inputProof instanceof Uint8Array) || inputProof.length < 2 + 2 * 32 + 65) {
      throw new Error(`unexpected encrypt() result: ${handles.length} handles, proof of ${inputProof?.length} bytes`);
    }
    state.handles = handles.map((h) => '0x' + Buffer.from(h).toString('hex'));
  }],
  ['publicDecrypt: KMS signatures verified against the host KMSVerifier, values decoded by type', async () => {
    const res = await state.instance.publicDecrypt(state.handles);
    const [u8, b] = state.handles.map((h) => res.clearValues[h]);
    if (typeof u8 !== 'bigint' || u8 < 0n || u8 > 255n) {
      throw new Error(`euint8 clear value ${u8} is not a uint8`);
    }
    if (typeof b !== 'boolean') {
      throw new Error(`ebool clear value ${b} is not a boolean`);
    }
    if (!res.decryptionProof || !res.abiEncodedClearValues) {
      throw new Error('no decryption proof or ABI-encoded values');
    }
    state.clear = res.clearValues;
  }],
  ['userDecrypt: the KMS shares are signcrypted to the user\'s key, verified and opened to the value', async () => {
    const { publicKey, privateKey } = state.instance.generateKeypair();
    const start = Math.floor(Date.now() / 1000) - 60;
    const days = 1;
    const eip712 = state.instance.createEIP712(publicKey, [contract], start, days);
    const signature = await user.signTypedData(eip712.domain,
      { UserDecryptRequestVerification: eip712.types.UserDecryptRequestVerification }, eip712.message);
    const res = await state.instance.userDecrypt([{ handle: state.handles[0], contractAddress: contract }],
      privateKey, publicKey, signature, [contract], user.address, start, days);
    expectSameValue(res, 'userDecrypt');
  }],
  ['delegatedUserDecrypt without a delegation on the host ACL ends in not_allowed_on_host_acl', async () => {
    await expectLabel(() => delegatedUserDecrypt(), 'not_allowed_on_host_acl');
  }],
  ['delegatedUserDecrypt with the delegation: the shares are opened to the value', async () => {
    // The delegator (a funded development account) authorises the delegate on the host ACL.
    const provider = new JsonRpcProvider(config.network, chainId, { staticNetwork: true });
    const acl = new Contract(config.aclContractAddress,
      ['function delegateForUserDecryption(address delegate, address contractAddress, uint64 expirationDate)'],
      delegator.connect(provider));
    const tx = await acl.delegateForUserDecryption(user.address, contract, Math.floor(Date.now() / 1000) + 86400);
    const receipt = await tx.wait();
    if (receipt.status !== 1) {
      throw new Error('the delegation transaction failed');
    }
    expectSameValue(await delegatedUserDecrypt(), 'delegatedUserDecrypt');
  }],
  ['a submission over the rate limit gets 429 rate_limited with Retry-After, and the SDK waits and retries', async () => {
    await admin('rate_limit.write.rolling_window_seconds', 2);
    await admin('rate_limit.write.rolling_limit', 1);
    try {
      // The window's one write, then one too many: the answer the SDK must understand.
      const body = JSON.stringify({ ciphertextHandles: [state.handles[0]], extraData: '0x00' });
      const post = () => fetch(relayer + '/v2/public-decrypt', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      await post();
      const res = await post();
      const json = await res.json();
      if (res.status !== 429 || json.error?.label !== 'rate_limited' || !(Number(res.headers.get('retry-after')) >= 1)) {
        throw new Error(`over the limit: ${res.status} ${JSON.stringify(json)} Retry-After ${res.headers.get('retry-after')}`);
      }
      // The SDK's own POST meets the same 429, waits Retry-After and gets through.
      const t = Date.now();
      const out = await state.instance.publicDecrypt([state.handles[1]]);
      if (out.clearValues[state.handles[1]] === undefined) {
        throw new Error('no clear value after the retry');
      }
      if (Date.now() - t < 900) {
        throw new Error(`the SDK got through in ${Date.now() - t} ms: it met no 429, the case proves nothing`);
      }
    } finally {
      await admin('rate_limit.write.rolling_limit', 0);
    }
  }],
  ['a decryption nobody answers ends in response_timed_out, surfaced by the SDK', async () => {
    await expectLabel(() => state.instance.publicDecrypt([scenarioHandle('03')]), 'response_timed_out');
  }],
  ['a decryption that never gets ready ends in readiness_check_timed_out', async () => {
    await expectLabel(() => state.instance.publicDecrypt([scenarioHandle('02')]), 'readiness_check_timed_out');
  }],
];

// delegator is a funded development account (workers/devchain: keccak256("relayer/devchain/user/0")).
const delegator = new Wallet(keccak256(toUtf8Bytes('relayer/devchain/user/0')));

// delegatedUserDecrypt asks, as the delegate (user), for the delegator's first handle.
async function delegatedUserDecrypt() {
  const { publicKey, privateKey } = state.instance.generateKeypair();
  const start = Math.floor(Date.now() / 1000) - 60;
  const days = 1;
  const eip712 = state.instance.createDelegatedUserDecryptEIP712(publicKey, [contract], delegator.address, start, days);
  const signature = await user.signTypedData(eip712.domain,
    { DelegatedUserDecryptRequestVerification: eip712.types.DelegatedUserDecryptRequestVerification }, eip712.message);
  return state.instance.delegatedUserDecrypt([{ handle: state.handles[0], contractAddress: contract }],
    privateKey, publicKey, signature, [contract], delegator.address, user.address, start, days);
}

// admin sets one runtime parameter through the admin API (ADMIN_TOKEN).
async function admin(param, value) {
  const res = await fetch(relayer + '/admin/config', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + env('ADMIN_TOKEN') },
    body: JSON.stringify({ param, value }),
  });
  if (res.status !== 200) {
    throw new Error(`admin ${param}=${value}: ${res.status} ${await res.text()}`);
  }
}

// expectSameValue wants a user decryption's result to hold, for the first handle, the value the
// public decryption of that handle gave: the simulated KMS nodes answer both from the same
// development plaintext (devchain.Plaintext).
function expectSameValue(res, what) {
  const h = state.handles[0];
  if (res[h] === undefined || res[h] !== state.clear[h]) {
    throw new Error(`${what}: value ${res[h]} for ${h}, want ${state.clear[h]} (publicDecrypt's)`);
  }
}

// expectLabel runs f and wants it to throw the SDK's API error carrying the relayer's label.
async function expectLabel(f, label) {
  try {
    await f();
  } catch (e) {
    for (let c = e; c; c = c.cause) {
      if (c.relayerApiError?.label === label) {
        return;
      }
    }
    throw new Error(`want the SDK's API error labelled ${label}, got: ${describe(e)}`);
  }
  throw new Error(`want an error labelled ${label}, got a result`);
}

function describe(e) {
  const parts = [];
  for (let c = e; c && parts.length < 6; c = c.cause) {
    parts.push(`${c.name}: ${c.message}${c.relayerApiError ? ' ' + JSON.stringify(c.relayerApiError) : ''}`);
  }
  return parts.join(' <- ');
}

const only = process.env.CASES ? process.env.CASES.split(',') : null;
let failures = 0;
for (const [name, run] of cases) {
  if (only && !only.some((o) => name.startsWith(o))) {
    continue;
  }
  const t = Date.now();
  try {
    await run();
    console.log(`ok ${name} (${Date.now() - t} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${describe(e)}`);
  }
}
process.exit(failures);
