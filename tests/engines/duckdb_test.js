// DuckDB reads `gcsnap export --to parquet` of real e2e recordings, and its SQL answers equal
// gcsnap's own: the type histogram of every walked GC (from the types table and from the objects
// table grouped), roots by kind, the top retained objects, counts per GC, a type's growth
// across two recordings, and the leak suspects. A recording that fails verify exports nothing.
//   node duckdb_test.js GCSNAP WORK_DIR RUN.snap LEAKS.snap LEAKS_SECOND.snap
// Run by ctest (tests/engines/CMakeLists.txt) with NODE_PATH at the npm ci'd node_modules.
'use strict';
const assert = require('node:assert/strict');
const {execFileSync, spawnSync} = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [gcsnap, work, ...recordings] = process.argv.slice(2);
if (!gcsnap || !work || recordings.length !== 3) {
  console.error('usage: duckdb_test.js GCSNAP WORK_DIR RUN.snap LEAKS.snap LEAKS_SECOND.snap');
  process.exit(2);
}
const {DuckDBInstance} = require('@duckdb/node-api');
const {gcsnapJsonOf, Checks} = require('./engine_check.js');
const gcsnapJson = gcsnapJsonOf(gcsnap);
const stem = file => path.basename(file).replace(/\.[^.]*$/, '');
const checks = new Checks();
const check = (name, fn) => checks.check(name, fn);

async function main() {
  fs.rmSync(work, {recursive: true, force: true});
  fs.mkdirSync(work, {recursive: true});
  const out = path.join(work, 'export');
  // Small row groups: the files of the leaks run have several, as a large heap's do.
  execFileSync(gcsnap, ['export', ...recordings, '--to', 'parquet', '--suspects', '-o', out, '--host', 'ci', '--row-group-rows', '4096'], {stdio: 'inherit'});

  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  for (const t of ['gcs', 'objects', 'references', 'roots', 'types', 'suspects'])
    await con.run(`create view "${t}" as select * from read_parquet('${out}/table=${t}/**/*.parquet',
                   hive_partitioning = true, union_by_name = true)`);
  const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
  const num = v => Number(v);

  for (const file of recordings.slice(0, 2)) {
    const r = stem(file);
    const info = gcsnapJson('info', file);
    const walked = info.gcs.filter(g => g.trigger !== 'none').map(g => g.gc);
    assert.ok(walked.length >= 2, `${file}: expected several walked GCs`);

    await check(`${r}: counts per GC equal gcsnap info`, async () => {
      const got = await rows(`select gc, objects, "references", roots, walked from gcs where recording = '${r}' order by gc`);
      assert.deepEqual(got.map(g => [num(g.gc), num(g.objects), num(g.references), num(g.roots), g.walked]),
                       info.gcs.map(g => [g.gc, g.objects, g.references, g.roots, g.trigger !== 'none']));
      const counted = await rows(`select gc, count(*) n from objects where recording = '${r}' group by gc order by gc`);
      assert.deepEqual(counted.map(g => [num(g.gc), num(g.n)]),
                       info.gcs.filter(g => g.trigger !== 'none').map(g => [g.gc, g.objects]));
    });

    for (const gc of walked) {
      await check(`${r} GC ${gc}: types equal gcsnap types (types table and objects grouped)`, async () => {
        const want = gcsnapJson('types', `${file}:${gc}`, '--no-cache', '--top', '0')
                         .map(t => [t.type, t.count, t.bytes, t.retained_bytes, t.unreachable]).sort();
        assert.ok(want.length > 10);
        const fromTypes = (await rows(`select type, count, shallow_bytes, retained_bytes, unreachable_count from types
                                       where recording = '${r}' and gc = ${gc}`))
                              .map(t => [t.type, num(t.count), num(t.shallow_bytes), num(t.retained_bytes),
                                         num(t.unreachable_count)]).sort();
        assert.deepEqual(fromTypes, want);
        const grouped = (await rows(`select type, count(*) n, sum(size) b, count(*) filter (not reachable) u
                                     from objects where recording = '${r}' and gc = ${gc} group by type`))
                            .map(t => [t.type, num(t.n), num(t.b), num(t.u)]).sort();
        assert.deepEqual(grouped, want.map(t => [t[0], t[1], t[2], t[4]]));
      });

      await check(`${r} GC ${gc}: roots by kind equal gcsnap roots`, async () => {
        const want = {};
        for (const s of gcsnapJson('roots', `${file}:${gc}`).summary) want[s.kind] = (want[s.kind] || 0) + s.count;
        const got = {};
        for (const k of await rows(`select kind, count(*) n from roots where recording = '${r}' and gc = ${gc} group by kind`))
          got[k.kind] = num(k.n);
        assert.deepEqual(got, want);
      });

      await check(`${r} GC ${gc}: top retained objects equal gcsnap dominators`, async () => {
        const want = gcsnapJson('dominators', `${file}:${gc}`, '--no-cache', '--top', '5');
        const top = await rows(`select address, retained_bytes from objects where recording = '${r}' and gc = ${gc}
                                order by retained_bytes desc limit 1`);
        assert.equal(num(top[0].retained_bytes), want[0].retained_bytes);
        for (const d of want) {
          const got = await rows(`select retained_bytes, dominator from objects
                                  where recording = '${r}' and gc = ${gc} and address = ${BigInt(d.address)}`);
          assert.equal(got.length, 1, `object ${d.address}`);
          assert.equal(num(got[0].retained_bytes), d.retained_bytes, `retained bytes of ${d.address}`);
          assert.equal(BigInt(got[0].dominator), d.dominator === null ? 0n : BigInt(d.dominator));
        }
      });
    }
  }

  await check('growth of the leaked type across two recordings equals gcsnap types', async () => {
    const type = 'Gcsnap.Sample.LeakedSession';
    const countIn = file => gcsnapJson('types', file, '--no-cache', '--top', '0').find(t => t.type === type).count;
    const want = countIn(recordings[1]) - countIn(recordings[2]);
    assert.ok(want > 0);
    const got = await rows(`with last as (select recording, max(gc) gc from gcs where walked group by recording)
      select sum(case when t.recording = '${stem(recordings[1])}' then count else -count end) growth
      from types t join last using (recording, gc)
      where t.type = '${type}' and t.recording in ('${stem(recordings[1])}', '${stem(recordings[2])}')`);
    assert.equal(num(got[0].growth), want);
  });

  await check('suspects equal gcsnap leaks, with their series and object identity', async () => {
    const file = recordings[1], r = stem(file);
    const want = gcsnapJson('leaks', file, '--top', '0').suspects;
    assert.ok(want.length > 0, 'the leaks run has suspects');
    const last = await rows(`select rank, type, count, retained_bytes, count_growth, retained_growth, accumulated_count
      from suspects where recording = '${r}' and gc = (select max(gc) from gcs where recording = '${r}' and walked)
      order by rank`);
    assert.deepEqual(last.map(s => [num(s.rank), s.type, num(s.count), num(s.retained_bytes), num(s.count_growth),
                                    num(s.retained_growth), num(s.accumulated_count)]),
                     want.map(s => [s.rank, s.type, s.count, s.retained_bytes, s.count_growth, s.retained_growth,
                                    s.accumulated]));
    // Object identity across walks (first_gc, first_address): the leaked members born after the
    // first walk and alive at the last are the suspect's accumulated count.
    const born = await rows(`select count(*) n from objects where recording = '${r}' and type = '${want[0].type}'
      and gc = (select max(gc) from gcs where recording = '${r}' and walked)
      and first_gc > (select min(gc) from gcs where recording = '${r}' and walked)`);
    assert.equal(num(born[0].n), want[0].accumulated);
    const once = await rows(`select count(*) n from (select gc, first_gc, first_address from objects
      where recording = '${r}' group by all having count(*) > 1)`);
    assert.equal(num(once[0].n), 0, 'an identity names one object per GC');
    const series = await rows(`select count(distinct gc) n from suspects where recording = '${r}'`);
    const walks = await rows(`select count(*) n from gcs where recording = '${r}' and walked`);
    assert.equal(num(series[0].n), num(walks[0].n));
  });

  await check('references carry field names and reach only exported objects', async () => {
    const r = stem(recordings[0]);
    const named = await rows(`select count(*) filter (where field <> '') named, count(*) n from "references" where recording = '${r}'`);
    assert.ok(num(named[0].named) > 0 && num(named[0].n) > 0);
    const dangling = await rows(`select count(*) n from "references" x where recording = '${r}' and not exists
      (select 1 from objects o where o.recording = x.recording and o.gc = x.gc and o.address = x."to")`);
    assert.equal(num(dangling[0].n), 0);
  });

  await check('the schema version is in every file', async () => {
    const files = await rows(`select count(*) n, count(*) filter (where decode(value) = '1') v from
      parquet_kv_metadata('${out}/**/*.parquet') where decode(key) = 'gcsnap.schema_version'`);
    // Six tables per recording, plus alloc_samples where a recording has sampled allocations.
    const samples = fs.readdirSync(out).includes('table=alloc_samples')
      ? fs.readdirSync(path.join(out, 'table=alloc_samples'), {recursive: true}).filter(f => f.endsWith('.parquet')).length : 0;
    assert.ok(samples <= recordings.length);
    assert.equal(num(files[0].n), 6 * recordings.length + samples);
    assert.equal(num(files[0].v), num(files[0].n));
  });

  await check('a recording that fails verify exports nothing and says why', async () => {
    const bytes = fs.readFileSync(recordings[0]);
    const bad = path.join(work, 'damaged.snap');
    fs.writeFileSync(bad, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const dest = path.join(work, 'bad-export');
    const res = spawnSync(gcsnap, ['export', recordings[1], bad, '--to', 'parquet', '-o', dest], {encoding: 'utf8'});
    assert.equal(res.status, 3, res.stderr);
    assert.match(res.stderr, /damaged\.snap: .*nothing exported/);
    assert.equal(res.stderr.trim().split('\n').length, 1);
    assert.ok(!fs.existsSync(dest), 'nothing may be written, not even for the sound recording');
  });

  checks.finish();
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
