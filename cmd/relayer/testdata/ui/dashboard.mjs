// The dashboard in a real browser: headless Chromium driven by playwright-core, against a running
// `relayer serve`. Run by TestTheDashboardWorksInARealBrowser, which passes RELAYER_URL,
// OPERATOR_TOKEN, ADMIN_TOKEN and CHROMIUM. Each case prints "ok <name>" or "FAIL <name>: why";
// the exit code is the number of failures.
import { chromium } from 'playwright-core';

const url = process.env.RELAYER_URL;
const operatorToken = process.env.OPERATOR_TOKEN;
const adminToken = process.env.ADMIN_TOKEN;
const param = 'input_proof_throttler_tps';
let failures = 0;

async function check(name, f) {
  try {
    await f();
    console.log('ok ' + name);
  } catch (err) {
    failures++;
    console.log(`FAIL ${name}: ${err.message.split('\n')[0]}`);
  }
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

async function adminConfig() {
  const res = await fetch(url + '/admin/config', { headers: { Authorization: 'Bearer ' + adminToken } });
  assert(res.ok, `GET /admin/config: ${res.status}`);
  const body = await res.json();
  return body.result;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run'],
});
const page = await browser.newPage();
const consoleErrors = [];
page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
page.on('pageerror', (err) => consoleErrors.push('uncaught: ' + err.message));
page.setDefaultTimeout(30000);

await check('the page loads and connects with the tokens', async () => {
  await page.goto(url + '/ui');
  await page.fill('#operator-token', operatorToken);
  await page.fill('#admin-token', adminToken);
  await page.click('#connect');
  await page.waitForFunction(() => document.querySelector('#state').textContent === 'connected: live');
  await page.waitForSelector('#counts tbody tr[data-kind="input-proof"]');
  await page.waitForSelector('#tuning tbody tr[data-param]');
});

let jobId = '';
await check('a job submitted through the API appears and reaches completed', async () => {
  const body = JSON.stringify({
    contractChainId: 1337, contractAddress: '0x00000000000000000000000000000000000000c0',
    userAddress: '0x00000000000000000000000000000000000000a1',
    ciphertextWithInputVerification: 'ab' + Date.now().toString(16).padStart(12, '0'), extraData: '0x00',
  });
  const res = await fetch(url + '/v2/input-proof', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  const text = await res.text();
  assert(res.status === 202, `POST /v2/input-proof: ${res.status} ${text}`);
  jobId = JSON.parse(text).result.jobId;
  await page.waitForSelector(`#jobs tr[data-job-id="${jobId}"]`);
  await page.waitForSelector(`#jobs tr[data-job-id="${jobId}"] td[data-status="completed"]`);
  // Its counts and its hint sample follow at the next refresh of the overview.
  await page.waitForFunction((id) => document.querySelector(`#hints circle[data-job-id="${id}"]`) !== null, jobId);
  const completed = await page.textContent('#counts tr[data-kind="input-proof"] td[data-status="completed"]');
  assert(Number(completed) >= 1, `the counts show ${completed} completed input proofs`);
});

await check("the job's timeline opens from its row", async () => {
  await page.click(`#jobs tr[data-job-id="${jobId}"] a.job`);
  await page.waitForFunction(() => document.querySelectorAll('#timeline tbody tr').length >= 2);
  const text = await page.textContent('#timeline tbody');
  assert(text.includes('RequestAccepted') && text.includes('RequestCompleted'), `the timeline reads: ${text.slice(0, 200)}`);
});

await check('a change of D made on the page shows in /admin/config, with who, old and new', async () => {
  const before = (await adminConfig()).params.find((p) => p.name === param).value;
  const want = before + 3;
  await page.fill(`#tuning input[data-param="${param}"]`, String(want));
  await page.click(`#tuning button[data-apply="${param}"]`);
  await page.waitForFunction(() => document.querySelector('#tuning-message').textContent.includes('changed from'));
  const after = (await adminConfig()).params.find((p) => p.name === param).value;
  assert(after === want, `/admin/config says ${param} = ${after}, want ${want}`);
  const row = await page.textContent('#changes tbody tr:first-child');
  assert(row.includes(param) && row.includes(String(before)) && row.includes(String(want)), `the changes table's first row reads: ${row}`);
});

await check('no console error while the page worked', async () => {
  assert(consoleErrors.length === 0, consoleErrors.join(' | '));
});

await check('a wrong admin token is refused with a clear message', async () => {
  await page.fill('#admin-token', 'not-the-admin-token-0000000000000000');
  await page.click('#connect');
  await page.waitForFunction(() => document.querySelector('#tuning-message').textContent.includes('admin token was refused'));
  assert(await page.locator('#tuning tbody tr').count() === 0, 'the parameters are still shown');
});

await check('a wrong operator token is refused with a clear message', async () => {
  await page.fill('#operator-token', 'not-the-operator-token-000000000000');
  await page.click('#connect');
  await page.waitForFunction(() => document.querySelector('#error').textContent.includes('operator token was refused'));
  const state = await page.textContent('#state');
  assert(state === 'not connected', `the state reads ${state}`);
});

await browser.close();
process.exit(failures);
