#!/usr/bin/env node
// Compiles the development gateway contracts in src/ with the solc pinned in the repository's
// package.json (run `npm ci` at the repository root first) and writes, for each deployable
// contract, build/<Name>.abi (compact JSON) and build/<Name>.bin (hex, no 0x, no newline).
//
//   node workers/gateway/contracts/compile.js [--out DIR]
//
// Settings are fixed so the output is byte-for-byte reproducible: standard JSON input, the
// optimizer on (200 runs), EVM version cancun. `go generate ./workers/gateway/...` runs this and
// then abigen; the drift test in this directory checks the committed files against both.
'use strict';

const fs = require('fs');
const path = require('path');

const SOLC_VERSION = '0.8.30';
const EVM_VERSION = 'cancun';
const CONTRACTS = ['ACL', 'Decryption', 'InputVerification', 'InputVerifier', 'KMSVerifier', 'DevWallet'];
const SRC = path.join(__dirname, 'src');

function main(argv) {
  let out = path.join(__dirname, 'build');
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && i + 1 < argv.length) {
      out = path.resolve(argv[++i]);
    } else {
      fail(`unexpected argument ${JSON.stringify(argv[i])} (usage: compile.js [--out DIR])`);
    }
  }

  let solc;
  try {
    solc = require('solc');
  } catch (err) {
    fail(`cannot load solc (${err.code || err.message}): run \`npm ci\` in the repository root first`);
  }
  if (!solc.version().startsWith(SOLC_VERSION + '+')) {
    fail(`solc ${solc.version()} is installed, ${SOLC_VERSION} is pinned: run \`npm ci\` in the repository root`);
  }

  const sources = {};
  for (const file of fs.readdirSync(SRC).filter((f) => f.endsWith('.sol')).sort()) {
    sources[file] = { content: fs.readFileSync(path.join(SRC, file), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: EVM_VERSION,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: noImports }));

  let failed = false;
  for (const e of output.errors || []) {
    process.stderr.write(e.formattedMessage || e.message);
    if (e.severity === 'error') {
      failed = true;
    }
  }
  if (failed) {
    fail('compilation failed');
  }

  fs.mkdirSync(out, { recursive: true });
  for (const name of CONTRACTS) {
    const unit = output.contracts[`${name}.sol`];
    const c = unit && unit[name];
    if (!c) {
      fail(`contract ${name} not found in src/${name}.sol`);
    }
    fs.writeFileSync(path.join(out, `${name}.abi`), JSON.stringify(c.abi));
    fs.writeFileSync(path.join(out, `${name}.bin`), c.evm.bytecode.object);
  }
}

// Every import is relative to src/ and already among the sources; anything else is a mistake.
function noImports(p) {
  return { error: `import ${p} not found: only files in src/ can be imported` };
}

function fail(msg) {
  process.stderr.write(`compile.js: ${msg}\n`);
  process.exit(1);
}

main(process.argv.slice(2));
