// A webhook receiver that checks every delivery with the Standard Webhooks reference library
// (the npm package standardwebhooks, pinned in package.json), not with the relayer's own code:
// the independent check of workers/delivery's signatures (standardwebhooks_test.go).
//
// It listens on 127.0.0.1 (a free port), prints "listening <port>", then one JSON line per
// request: {"id", "timestamp", "verified": [one boolean per secret], "body"}. The secrets are
// read from the file SECRETS_FILE (one per line) at each request, so the test can write them
// once the endpoint is registered, and again after a rotation. A request is answered 204 when
// at least one secret verifies it, 400 otherwise.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.env.NODE_MODULES_ROOT + '/package.json');
const { Webhook } = require('standardwebhooks');

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const secrets = readFileSync(process.env.SECRETS_FILE, 'utf8').split('\n').map((s) => s.trim()).filter(Boolean);
    const verified = secrets.map((secret) => {
      try {
        new Webhook(secret).verify(body, req.headers);
        return true;
      } catch {
        return false;
      }
    });
    console.log(JSON.stringify({ id: req.headers['webhook-id'] ?? '', timestamp: req.headers['webhook-timestamp'] ?? '', verified, body }));
    res.writeHead(verified.some(Boolean) ? 204 : 400);
    res.end();
  });
});

server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
