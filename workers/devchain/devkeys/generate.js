#!/usr/bin/env node
// Generates the development TFHE key material the relayer serves on the development stack
// (GET /v2/keyurl points at it): the compact public key and the CRS for 2048 bits, with the
// parameters the public SDK's createTfheKeypair() uses, and the client key that opens what is
// encrypted under that public key. DEVELOPMENT ONLY: the client key is public by construction.
//
//   npm ci && node workers/devchain/devkeys/generate.js [--out DIR]
//
// The client key (and so the public key) comes from a fixed public seed and is the same on every
// run. The CRS cannot be seeded through node-tfhe's API (CompactPkeCrs.from_config draws its own
// randomness), so a regenerated crs2048.bin differs byte for byte from the committed one while
// being equally valid; the committed files are what the relayer embeds.
'use strict';

const fs = require('fs');
const path = require('path');

// The SDK's own parameters (createTfheKeypair in @zama-fhe/relayer-sdk).
const BLOCK_PARAMS = 'PARAM_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128';
const PKE_PARAMS = 'V1_0_PARAM_PKE_MESSAGE_2_CARRY_2_KS_PBS_TUNIFORM_2M128';
const CRS_BITS = 2048;
const SEED = 0x72656c617965722f646576636861696en; // "relayer/devchain" as a 128-bit number
const LIMIT = BigInt(512 * 1024 * 1024);

function main(argv) {
  let out = __dirname;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && i + 1 < argv.length) {
      out = path.resolve(argv[++i]);
    } else {
      throw new Error(`unexpected argument ${JSON.stringify(argv[i])} (usage: generate.js [--out DIR])`);
    }
  }
  const tfhe = require('node-tfhe');
  const config = tfhe.TfheConfigBuilder.default()
    .use_custom_parameters(new tfhe.ShortintParameters(tfhe.ShortintParametersName[BLOCK_PARAMS]))
    .use_dedicated_compact_public_key_parameters(
      new tfhe.ShortintCompactPublicKeyEncryptionParameters(tfhe.ShortintCompactPublicKeyEncryptionParametersName[PKE_PARAMS]))
    .build();
  const clientKey = tfhe.TfheClientKey.generate_with_seed(config, SEED);
  const publicKey = tfhe.TfheCompactPublicKey.new(clientKey);
  const crs = tfhe.CompactPkeCrs.from_config(config, CRS_BITS);
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'client_key.bin'), clientKey.safe_serialize(LIMIT));
  fs.writeFileSync(path.join(out, 'public_key.bin'), publicKey.safe_serialize(LIMIT));
  fs.writeFileSync(path.join(out, 'crs2048.bin'), crs.safe_serialize(LIMIT));
  process.stdout.write(`wrote client_key.bin, public_key.bin, crs2048.bin to ${out}\n`);
}

main(process.argv.slice(2));
