// memlab's heap parser reads `gcsnap export --to heapsnapshot` of a real recording: its node
// count, edge count and the retainer chain of chosen objects must equal gcsnap's own answers.
//   node memlab_export_test.js GCSNAP RECORDING WORK_DIR
// Run by ctest (tests/browser/CMakeLists.txt) with NODE_PATH at the npm ci'd node_modules.
'use strict';
const assert = require('node:assert/strict');
const {execFileSync, spawnSync} = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [gcsnap, recording, work] = process.argv.slice(2);
if (!gcsnap || !recording || !work) {
  console.error('usage: memlab_export_test.js GCSNAP RECORDING WORK_DIR');
  process.exit(2);
}
fs.mkdirSync(work, {recursive: true});
const gcsnapJson = (...args) => JSON.parse(execFileSync(gcsnap, [...args, '--format', 'json'], {encoding: 'utf8'}));

// The name memlab gives an edge, as gcsnap path names the field ("[3]" for element 3).
function edgeName(e) {
  return e.type === 'element' ? `[${e.name_or_index}]` : String(e.name_or_index);
}

// Whether NODE's retainers follow HOPS backwards (each referrer of the previous hop's type and
// size, through an edge named as gcsnap names the field), ending at the root kind's node.
function chainMatches(node, hops, rootKind) {
  let current = [node];
  for (let h = hops.length - 1; h >= 1; --h) {
    const want = hops[h].field === null ? '(unnamed)' : hops[h].field;
    const next = [];
    for (const n of current)
      for (const e of n.referrers)
        if (e.type !== 'weak' && edgeName(e) === want && e.fromNode.name === hops[h - 1].type &&
            e.fromNode.self_size === hops[h - 1].size) next.push(e.fromNode);
    if (!next.length) return false;
    current = next;
  }
  return current.some(n => n.referrers.some(e => e.fromNode.name === `(${rootKind} roots)` && e.type !== 'weak'));
}

// Hops from the (GC roots) node to every node over non-weak edges, by node id.
function bfsDepths(heap, root) {
  const depth = new Map([[root.id, 0]]);
  let frontier = [root];
  for (let d = 1; frontier.length; ++d) {
    const next = [];
    for (const n of frontier)
      for (const e of n.references)
        if (e.type !== 'weak' && !depth.has(e.toNode.id)) { depth.set(e.toNode.id, d); next.push(e.toNode); }
    frontier = next;
  }
  return depth;
}

async function main() {
  const {utils, config} = require('@memlab/core');
  config.muteConsole = true;
  const file = path.join(work, 'run.heapsnapshot');
  const summary = execFileSync(gcsnap, ['export', recording, '--to', 'heapsnapshot', '-o', file],
                               {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
  assert.equal(summary, '', 'export wrote to stdout although -o was given');
  const heap = await utils.getSnapshotFromFile(file, {buildNodeIdIndex: true});

  // Node count: every object of the GC (gcsnap types counts them all) + the synthetic roots.
  const types = gcsnapJson('types', recording);
  const rows = Array.isArray(types) ? types : types.types;
  const objects = rows.reduce((n, t) => n + t.count, 0);
  assert.ok(objects > 1000, `gcsnap types found only ${objects} objects`);
  const rootKinds = new Set();
  let rootNode = null;
  heap.nodes.forEach(n => {
    if (n.type === 'synthetic' && n.name === '(GC roots)') rootNode = n;
    else if (n.type === 'synthetic') rootKinds.add(n.name);
  });
  assert.ok(rootNode, 'no (GC roots) node');
  assert.equal(heap.nodes.length, objects + 1 + rootKinds.size, 'node count');
  // Objects per type, as memlab sees them, equal gcsnap types' counts.
  const perType = new Map();
  heap.nodes.forEach(n => { if (n.type === 'object') perType.set(n.name, (perType.get(n.name) || 0) + 1); });
  for (const t of rows) assert.equal(perType.get(t.type), t.count, `count of ${t.type}`);

  // Edge count: every reference of the walk (gcsnap info), plus one edge per root that points
  // at an object (gcsnap roots: count less null ones) and one per root kind.
  const info = gcsnapJson('info', recording).gcs.filter(g => g.objects).pop();
  const rootRows = gcsnapJson('roots', recording).summary;
  const resolvedRoots = rootRows.reduce((n, r) => n + r.count - r.null_objects, 0);
  const kinds = new Set(rootRows.filter(r => r.count > r.null_objects).map(r => r.kind));
  assert.deepEqual([...rootKinds].sort(), [...kinds].map(k => `(${k} roots)`).sort(), 'root kind nodes');
  assert.equal(heap.edges.length, info.references + resolvedRoots + kinds.size, 'edge count');

  // Retainer chains: gcsnap path's shortest path to the single Outer+Inner (held by a static)
  // and to the nearest LeakyItem (static List -> array element) must be in memlab's graph,
  // hop by hop with the same types, sizes and field names, and no shorter path may exist there.
  const depth = bfsDepths(heap, rootNode);
  for (const type of ['Gcsnap.Sample.Outer+Inner', 'Gcsnap.Sample.LeakyItem']) {
    const found = gcsnapJson('path', recording, '--type', type, '--limit', '1');
    const hops = found.hops;
    assert.ok(hops.length >= 2, `gcsnap path found no path to ${type}`);
    const rootKind = found.paths[0].root_kind;
    const candidates = [];
    heap.nodes.forEach(n => {
      if (n.name === type && n.self_size === hops[hops.length - 1].size && chainMatches(n, hops, rootKind)) candidates.push(n);
    });
    assert.equal(candidates.length, 1, `memlab nodes of ${type} whose retainers follow gcsnap's path`);
    assert.equal(depth.get(candidates[0].id), hops.length + 1, `${type}: memlab's shortest path length`);
    console.log(`${type}: ${rootKind} root -> ${hops.map(h => (h.field ? `.${h.field} -> ` : '') + h.type).join(' -> ')}`);
  }
  console.log(`memlab: ${heap.nodes.length} nodes, ${heap.edges.length} edges; root kinds: ${[...rootKinds].join(', ')}`);
  ++passed;

  // --to dot: the same path as a digraph, edges labelled with the field names.
  const leaky = gcsnapJson('path', recording, '--type', 'Gcsnap.Sample.LeakyItem', '--limit', '1').hops;
  const dot = execFileSync(gcsnap, ['export', recording, '--to', 'dot', '--object', leaky[leaky.length - 1].address],
                           {encoding: 'utf8'});
  assert.match(dot, /^digraph retention \{$/m);
  assert.match(dot, /"handle roots" -> "0x[0-9a-f]+";/);
  for (let h = 1; h < leaky.length; ++h) {
    const label = leaky[h].field_kind === 'static' ? `${leaky[h].field} (static)` : leaky[h].field;
    assert.ok(dot.includes(`"${leaky[h - 1].address}" -> "${leaky[h].address}" [label="${label}"];`),
              `dot has no edge ${leaky[h - 1].address} -> ${leaky[h].address} labelled ${label}:\n${dot}`);
  }
  ++passed;

  // Bad input: one line naming the file, non-zero exit, no output file left behind.
  const bad = path.join(work, 'not-a-recording.snap');
  fs.writeFileSync(bad, 'not a recording');
  const out = path.join(work, 'bad.heapsnapshot');
  const run = spawnSync(gcsnap, ['export', bad, '--to', 'heapsnapshot', '-o', out], {encoding: 'utf8'});
  assert.equal(run.status, 3);
  assert.match(run.stderr, /^gcsnap: error: .*not-a-recording\.snap: not-a-gcsnap-file.*\n$/);
  assert.ok(!fs.existsSync(out), 'a failed export left a file');
  ++passed;
}

let passed = 0;
main().then(() => console.log(`${passed} passed, 0 failed`), e => {
  console.error(e && e.stack || e);
  console.log(`${passed} passed, 1 failed`);
  process.exit(1);
});
