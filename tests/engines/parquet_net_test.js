// A second, independent Parquet reader: Parquet.Net (NuGet, managed code, no Arrow) reads every
// file of `gcsnap export --to parquet` of the e2e run and leaks recordings, exported with small
// row groups; what it reads (rows, row groups, column sums, the schema version) equals gcsnap's
// own answers (info, types).
//   node parquet_net_test.js GCSNAP READER_DLL WORK_DIR RUN.snap LEAKS.snap
'use strict';
const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [gcsnap, reader, work, ...recordings] = process.argv.slice(2);
if (!gcsnap || !reader || !work || recordings.length !== 2) {
  console.error('usage: parquet_net_test.js GCSNAP READER_DLL WORK_DIR RUN.snap LEAKS.snap');
  process.exit(2);
}
const {gcsnapJsonOf, Checks} = require('./engine_check.js');
const gcsnapJson = gcsnapJsonOf(gcsnap);
const sum = (xs, f) => xs.reduce((s, x) => s + f(x), 0);
const rowGroupRows = 1000;
const checks = new Checks();
const check = (name, fn) => checks.check(name, fn);

fs.rmSync(work, {recursive: true, force: true});
fs.mkdirSync(work, {recursive: true});
const out = path.join(work, 'export');
execFileSync(gcsnap, ['export', ...recordings, '--to', 'parquet', '--suspects', '-o', out, '--row-group-rows', String(rowGroupRows)],
             {stdio: 'inherit'});
const read = execFileSync('dotnet', [reader, out], {encoding: 'utf8'}).trim().split('\n').map(l => JSON.parse(l));
const byFile = Object.fromEntries(read.map(f => [f.file, f]));

check('Parquet.Net reads every file, each with its schema version', () => {
  const written = [];
  const walk = d => fs.readdirSync(d, {withFileTypes: true}).forEach(e => e.isDirectory() ? walk(path.join(d, e.name))
                                                                                        : written.push(path.join(d, e.name)));
  walk(out);
  // Six tables per recording, and alloc_samples for each recording with sampled allocations
  // (the e2e recordings have them: the shim samples by default).
  const core = written.filter(f => !f.includes(`${path.sep}table=alloc_samples${path.sep}`));
  assert.equal(core.length, 6 * recordings.length);
  assert.ok(written.length - core.length <= recordings.length);
  assert.deepEqual(read.map(f => f.file).sort(), written.map(f => path.relative(out, f)).sort());
  for (const f of read) {
    assert.equal(f.version, '1', f.file);
    assert.equal(f.row_groups, Math.ceil(f.rows / rowGroupRows), `${f.file}: row groups`);
  }
});

for (const file of recordings) {
  const r = path.basename(file, '.snap');
  const info = gcsnapJson('info', file);
  const walked = info.gcs.filter(g => g.trigger !== 'none');
  const types = walked.map(g => gcsnapJson('types', `${file}:${g.gc}`, '--no-cache', '--top', '0'));
  const table = t => {
    const f = byFile[`table=${t}/host=unknown/process=${r}/recording=${r}/part-0.parquet`];
    assert.ok(f, `${r}: no ${t} file read`);
    return f;
  };

  check(`${r}: gcs rows and sums equal gcsnap info`, () => {
    const gcs = table('gcs');
    assert.equal(gcs.rows, info.gcs.length);
    assert.equal(Number(gcs.sums.gc), sum(info.gcs, g => g.gc));
    assert.equal(Number(gcs.sums.objects), sum(info.gcs, g => g.objects));
    assert.equal(Number(gcs.sums.references), sum(info.gcs, g => g.references));
    assert.equal(Number(gcs.sums.walked), walked.length);
  });

  check(`${r}: objects, references and roots rows equal gcsnap info`, () => {
    assert.equal(table('objects').rows, sum(walked, g => g.objects));
    assert.equal(table('references').rows, sum(walked, g => g.references));
    assert.equal(table('roots').rows, sum(walked, g => g.roots));
  });

  check(`${r}: object sizes and the types table equal gcsnap types`, () => {
    assert.equal(Number(table('objects').sums.size), sum(types, t => sum(t, x => x.bytes)));
    const tt = table('types');
    assert.equal(tt.rows, sum(types, t => t.length));
    assert.equal(Number(tt.sums.count), sum(types, t => sum(t, x => x.count)));
    assert.equal(Number(tt.sums.retained_bytes), sum(types, t => sum(t, x => x.retained_bytes)));
    assert.equal(Number(tt.sums.type), sum(types, t => sum(t, x => Buffer.byteLength(x.type))));
  });
}

checks.finish();
