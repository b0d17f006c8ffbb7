// Verdict for one conformance-suite client run; used by run.sh.
//
//   node verdict.mjs --scenario S --revision R --result-dir DIR --log FILE --rc N [--baseline FILE] [--summary FILE.ndjson]
//
// Prints one line:  VERDICT  S@R  passed/failed/warnings (info, skipped)  [why]
// and exits 0 for PASS / XFAIL, 1 for FAIL / STALE.
//
// Rules (stricter than the suite, which passes a scenario that produced no checks):
//   - a scenario passes only with >= 1 scored check (SUCCESS or FAILURE), no FAILURE, no WARNING,
//     no client timeout and no client error exit (unless the scenario allows one — the suite then
//     does not print "CLIENT EXITED WITH ERROR");
//   - baseline entries for revision R: "S" expects the whole run to fail (passing => STALE);
//     "S:check-id" excuses that check's FAILURE/WARNING (passing => STALE).

import { readFileSync, existsSync, appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
const { scenario, revision } = args;
const rc = Number(args.rc ?? 1);

const log = args.log && existsSync(args.log) ? readFileSync(args.log, 'utf8') : '';
const checksFile = args['result-dir'] ? join(args['result-dir'], 'checks.json') : '';
let checks = null;
if (checksFile && existsSync(checksFile)) {
  try {
    checks = JSON.parse(readFileSync(checksFile, 'utf8'));
  } catch {
    checks = null;
  }
}

function loadBaseline() {
  if (!args.baseline || !existsSync(args.baseline)) return [];
  const here = dirname(fileURLToPath(import.meta.url));
  const peers = process.env.MCPSCOPE_PEERS_DIR || resolve(here, '..', '..', '.peers');
  const require = createRequire(join(peers, 'peers', 'node_modules', '_'));
  const { parse } = require('yaml');
  const doc = parse(readFileSync(args.baseline, 'utf8')) ?? {};
  const list = doc[revision] ?? [];
  if (!Array.isArray(list)) throw new Error(`${args.baseline}: "${revision}" must be a list`);
  return list
    .map((e) => {
      if (typeof e !== 'string') throw new Error(`${args.baseline}: entry ${JSON.stringify(e)} is not "scenario" or "scenario:check-id"`);
      const i = e.indexOf(':');
      return i === -1 ? { scenario: e } : { scenario: e.slice(0, i), checkId: e.slice(i + 1) };
    })
    .filter((e) => e.scenario === scenario);
}

const baseline = loadBaseline();
const wholeExpected = baseline.some((e) => !e.checkId);
const excused = new Set(baseline.filter((e) => e.checkId).map((e) => e.checkId));

const count = (s) => (checks ?? []).filter((c) => c.status === s).length;
const n = { passed: count('SUCCESS'), failed: count('FAILURE'), warnings: count('WARNING'), info: count('INFO'), skipped: count('SKIPPED') };
const scored = n.passed + n.failed;
const timedOut = /CLIENT TIMED OUT|Client timed out after/.test(log);
const exitError = /CLIENT EXITED WITH ERROR/.test(log);
const exitCode = (log.match(/Client exited with code (-?\d+)/) ?? [])[1];

const problems = [];
const skippedBySuite = (log.match(/^SKIPPED: .*$/m) ?? [])[0];
if (checks === null && args.killed !== '1') problems.push(skippedBySuite ? `suite skipped it (${skippedBySuite.replace(/^SKIPPED: /, '').replace(/ Use --force.*$/, '')})` : 'no checks.json (suite error? see log)');
else if (scored === 0 && !(checks === null && args.killed === '1')) problems.push('zero scored checks');
const bad = (checks ?? []).filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
const unexcused = bad.filter((c) => !excused.has(c.id));
for (const c of unexcused) problems.push(`${c.status} ${c.id}${c.name && c.name !== c.id ? ` (${c.name})` : ''}`);
if (args.killed === '1') problems.push('hung: run.sh killed the scenario (client never exited)');
if (timedOut) problems.push('client timed out');
if (exitError) problems.push(`client exited with code ${exitCode ?? '?'}`);
if (problems.length === 0 && rc !== 0 && baseline.length === 0) problems.push(`suite exited ${rc}`);

const stale = [];
for (const id of excused) {
  const same = (checks ?? []).filter((c) => c.id === id && c.status !== 'INFO' && c.status !== 'SKIPPED');
  if (same.length > 0 && same.every((c) => c.status === 'SUCCESS')) stale.push(id);
}

let verdict;
let why;
if (wholeExpected) {
  verdict = problems.length > 0 || bad.length > 0 ? 'XFAIL' : 'STALE';
  why = verdict === 'STALE' ? 'listed in expected-failures but passes: remove the entry' : `expected: ${problems.join('; ') || 'baselined'}`;
} else if (problems.length > 0) {
  verdict = 'FAIL';
  why = problems.join('; ');
} else if (stale.length > 0) {
  verdict = 'STALE';
  why = `baselined check(s) now pass: ${stale.join(', ')}`;
} else {
  verdict = bad.length > 0 ? 'XFAIL' : 'PASS';
  why = bad.length > 0 ? `baselined: ${bad.map((c) => c.id).join(', ')}` : '';
}

const counts = `${n.passed} passed, ${n.failed} failed, ${n.warnings} warnings (${n.info} info, ${n.skipped} skipped)`;
if (args.summary) {
  appendFileSync(args.summary, `${JSON.stringify({ scenario, revision, verdict, ...n, why, resultDir: args['result-dir'] ?? null })}\n`);
}
console.log(`${verdict.padEnd(5)}  ${`${scenario}@${revision}`.padEnd(46)} ${counts}${why ? `  -- ${why}` : ''}`);
process.exit(verdict === 'PASS' || verdict === 'XFAIL' ? 0 : 1);
