// `go tool pprof` (Debian's golang-go) reads `gcsnap export --to pprof` of real e2e recordings:
// its totals equal gcsnap's own (objects and bytes of the GC, as `types` counts them), the
// profile names itself a retention profile with the gc label, and -diff_base between the first
// and the last snapshot of the leaks run shows the leaked type's growth as gcsnap types does.
//   node pprof_test.js GCSNAP WORK_DIR RUN.snap LEAKS.snap
// Without `go` the test fails: it never skips.
'use strict';
const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [gcsnap, work, ...recordings] = process.argv.slice(2);
if (!gcsnap || !work || recordings.length !== 2) {
  console.error('usage: pprof_test.js GCSNAP WORK_DIR RUN.snap LEAKS.snap');
  process.exit(2);
}
const gcsnapJson = (...args) => JSON.parse(execFileSync(gcsnap, [...args, '--format', 'json'], {encoding: 'utf8'}));
const pprof = (...args) =>
  execFileSync('go', ['tool', 'pprof', ...args], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
                                                  env: {...process.env, HOME: work, GOCACHE: path.join(work, 'gocache')}});
const leaked = 'Gcsnap.Sample.LeakedSession';

let passed = 0, failed = 0;
function check(name, fn) {
  try {
    fn();
    ++passed;
    console.log(`ok - ${name}`);
  } catch (e) {
    ++failed;
    console.log(`not ok - ${name}\n${e.stack || e}`);
  }
}

// "Showing nodes accounting for X, P% of TOTAL total": pprof's own total of the sample type.
function total(top) {
  const m = top.match(/ of (\d+)B? total/);
  assert.ok(m, `no total in:\n${top}`);
  return Number(m[1]);
}

// The flat value of the frame named NAME in a -top listing (0 when absent).
function flat(top, name) {
  for (const line of top.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length >= 6 && cols.slice(5).join(' ') === name) return Number(cols[0].replace(/B$/, ''));
  }
  return 0;
}

fs.rmSync(work, {recursive: true, force: true});
fs.mkdirSync(work, {recursive: true});
try {
  execFileSync('go', ['version'], {stdio: 'ignore'});
} catch (e) {
  console.error("pprof test: 'go' is not on PATH (Debian's golang-go has go tool pprof; scripts/setup.sh installs it)");
  process.exit(1);
}

const profiles = {};
for (const file of recordings) {
  const walked = gcsnapJson('info', file).gcs.filter(g => g.trigger !== 'none').map(g => g.gc);
  for (const gc of [walked[0], walked[walked.length - 1]]) {
    const out = path.join(work, `${path.basename(file, '.snap')}.${gc}.retention.pb.gz`);
    execFileSync(gcsnap, ['export', `${file}:${gc}`, '--to', 'pprof', '-o', out], {stdio: 'inherit'});
    const types = gcsnapJson('types', `${file}:${gc}`, '--no-cache', '--top', '0');
    profiles[`${file}:${gc}`] = {out, gc, types};

    check(`${path.basename(file)} GC ${gc}: pprof totals equal gcsnap types`, () => {
      const objects = pprof('-top', '-sample_index=objects', out);
      assert.equal(total(objects), types.reduce((s, t) => s + t.count, 0));
      const bytes = pprof('-top', '-sample_index=bytes', '-unit=byte', out);
      assert.equal(total(bytes), types.reduce((s, t) => s + t.bytes, 0));
    });

    check(`${path.basename(file)} GC ${gc}: a retention profile labelled with its GC`, () => {
      const raw = pprof('-raw', out);
      assert.match(raw, /objects\/count bytes\/bytes(\[dflt\])? retained_bytes\/bytes/);
      assert.match(raw, /retention profile .* not allocation sites/);
      assert.match(raw, new RegExp(`gc:\\[${gc}\\]`));
      assert.match(pprof('-top', '-sample_index=objects', out), /\((stack|handle|finalizer|other) roots\)/);
    });
  }
}

check('-diff_base between the first and last snapshot of the leaks run shows the leak', () => {
  const walked = Object.values(profiles).filter(p => p.out.includes(path.basename(recordings[1], '.snap')));
  const [first, last] = walked;
  const count = p => (p.types.find(t => t.type === leaked) || {count: 0}).count;
  const want = count(last) - count(first);
  assert.ok(want > 0, 'the leaks run grows');
  const diff = pprof('-top', '-sample_index=objects', `-diff_base=${first.out}`, last.out);
  assert.equal(flat(diff, leaked), want);
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
