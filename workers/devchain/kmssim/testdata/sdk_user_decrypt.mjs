// The judge of kmssim: the public client SDK (@zama-fhe/relayer-sdk, pinned in the repository's
// package.json) opening simulated KMS responses the way its userDecrypt and
// delegatedUserDecrypt do once the relayer has answered.
//
// Input (JSON on stdin) is one of:
//   {"op": "keygen"}
//     prints {"publicKey", "privateKey"}, the SDK's own ML-KEM key pair (TKMSPkeKeypair), hex
//     without 0x.
//   {"op": "decrypt", "cases": [case, ...]}
//     prints [{"name", "values"} | {"name", "error"}, ...], one per case. A case is:
//       name, chainId (the gateway chain), decryption (the Decryption contract), signers (the
//       KMSVerifier signers, in order), userAddress (the user, or the delegate), publicKey and
//       privateKey (hex without 0x), signature (the user's request signature, hex without 0x),
//       handles (0x hex), result (the relayer's answer: [{payload, signature, extraData}]).
//     values are the SDK's results, one per handle, as strings: "true"/"false" for ebool, the
//     checksummed address for eaddress, the decimal value otherwise.
//
// It calls the KMS wasm the SDK loads (node-tkms, resolved from the SDK's own location) with the
// arguments the SDK builds: the signers indexed from 1, the client for the user, the 'default'
// parameters, the Decryption EIP-712 domain with a big-endian chain id, the request to check the
// responses against, and verification on. Then it turns the plaintexts into values, as the SDK
// does.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { getAddress } from 'ethers';
import { TKMSPkeKeypair } from '@zama-fhe/relayer-sdk/node';

const sdkEntry = fileURLToPath(import.meta.resolve('@zama-fhe/relayer-sdk/node'));
const tkms = createRequire(sdkEntry)('node-tkms');

const hexToBytes = (hex) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));

const bytesToBigInt = (bytes) => {
  let v = 0n;
  for (const b of bytes) {
    v = (v << 8n) | BigInt(b);
  }
  return v;
};

const format = (value, handle) => {
  const type = parseInt(handle.slice(-4, -2), 16);
  if (type === 0) {
    return String(value === 1n);
  }
  if (type === 7) {
    return getAddress('0x' + value.toString(16).padStart(40, '0'));
  }
  return value.toString();
};

const decrypt = (c) => {
  const signers = c.signers.map((s, i) => tkms.new_server_id_addr(i + 1, s));
  const client = tkms.new_client(signers, c.userAddress, 'default');
  const chainId = new Uint8Array(32);
  new DataView(chainId.buffer).setUint32(28, c.chainId, false);
  const domain = { name: 'Decryption', version: '1', chain_id: chainId, verifying_contract: c.decryption, salt: null };
  const request = {
    signature: c.signature,
    client_address: c.userAddress,
    enc_key: c.publicKey,
    ciphertext_handles: c.handles.map((h) => h.replace(/^0x/, '')),
    eip712_verifying_contract: c.decryption,
  };
  const pubKey = tkms.u8vec_to_ml_kem_pke_pk(hexToBytes(c.publicKey));
  const privKey = tkms.u8vec_to_ml_kem_pke_sk(hexToBytes(c.privateKey));
  const plaintexts = tkms.process_user_decryption_resp_from_js(client, request, domain, c.result, pubKey, privKey, true);
  return plaintexts.map((p, i) => format(bytesToBigInt(p.bytes), c.handles[i]));
};

let input = '';
for await (const chunk of process.stdin) {
  input += chunk;
}
const req = JSON.parse(input);
if (req.op === 'keygen') {
  console.log(JSON.stringify(TKMSPkeKeypair.generate().toBytesHexNo0x()));
} else if (req.op === 'decrypt') {
  const out = req.cases.map((c) => {
    try {
      return { name: c.name, values: decrypt(c) };
    } catch (e) {
      return { name: c.name, error: String(e && e.message ? e.message : e) };
    }
  });
  console.log(JSON.stringify(out));
} else {
  console.error('unknown op ' + req.op);
  process.exit(2);
}
