// Prints how often the answer checker agrees with Math-Verify's own test-suite verdicts (per upstream test file
// and overall) and how often it is right on the labelled answer rewrites (per category and overall).
//   npx tsx scripts/verifier/agreement.ts [--verbose]     (--verbose lists every disagreement)
import {
  KNOWN_DIFFERENCES,
  caseKey,
  loadMathVerifyCases,
  loadRewrites,
  runMathVerifyCase,
  runRewrite,
  tally,
  type Tally,
} from './measure.ts';

const verbose = process.argv.includes('--verbose');
const pct = (t: Tally): string => `${t.agree}/${t.n} (${((100 * t.agree) / t.n).toFixed(1)}%)`;

const mv = loadMathVerifyCases();
const mvOut = mv.cases.map(runMathVerifyCase);
console.log(`Math-Verify test suite (commit ${mv.commit.slice(0, 12)}): agreement with its expected verdicts`);
for (const [k, t] of tally(mvOut, (c) => c.file)) console.log(`  ${k.padEnd(24)} ${pct(t)}`);
for (const o of mvOut.filter((x) => !x.agrees)) {
  const known = KNOWN_DIFFERENCES[caseKey(o.case)];
  if (verbose || !known)
    console.log(
      `  ${known ? 'known' : 'DIFF '} ${caseKey(o.case)} ${o.case.test} expected ${o.case.expected} ours ${o.ours} (${o.reason}) gold ${JSON.stringify(o.case.gold).slice(0, 80)} pred ${JSON.stringify(o.case.pred).slice(0, 80)}${known ? ` -- ${known}` : ''}`,
    );
}

const rw = loadRewrites();
const rwOut = rw.map(runRewrite);
console.log(`\nAnswer rewrites of MATH500 / GSM8K answers: verdicts right`);
for (const [k, t] of [...tally(rwOut, (c) => c.category)].toSorted((a, b) => a[0].localeCompare(b[0])))
  console.log(`  ${k.padEnd(24)} ${pct(t)}`);
for (const [k, t] of tally(rwOut, (c) => c.source)) if (k !== 'all') console.log(`  source ${k.padEnd(17)} ${pct(t)}`);
for (const o of rwOut.filter((x) => !x.agrees).slice(0, verbose ? Infinity : 40))
  console.log(
    `  WRONG ${o.case.id} [${o.case.category}] label ${o.case.label} ours ${o.ours} (${o.reason}) gold ${JSON.stringify(o.case.gold)} pred ${JSON.stringify(o.case.pred).slice(0, 120)}`,
  );
