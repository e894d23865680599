// The HTML report of real recordings, opened in headless Chromium (the system's, driven by
// playwright-core): what the page shows must equal what the gcsnap commands print.
//   node report_test.js GCSNAP RUN_RECORDING RUN_FACTS CHURN_RECORDING LEAKS_RECORDING WORK_DIR
// Fails on any console error, page error or network request; screenshots go to WORK_DIR.
'use strict';
const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [gcsnap, runSnap, runFacts, churnSnap, leaksSnap, work] = process.argv.slice(2);
if (!work) {
  console.error('usage: report_test.js GCSNAP RUN_RECORDING RUN_FACTS CHURN_RECORDING LEAKS_RECORDING WORK_DIR');
  process.exit(2);
}
const chromiumPath = process.env.GCSNAP_CHROMIUM || '/usr/bin/chromium';
fs.mkdirSync(work, {recursive: true});
const cli = (...args) => execFileSync(gcsnap, args, {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
const cliJson = (...args) => JSON.parse(cli(...args, '--format', 'json'));
const fact = key => {
  const m = fs.readFileSync(runFacts, 'utf8').match(new RegExp(`\\b${key}=(\\d+)`));
  assert.ok(m, `no ${key}= in ${runFacts}`);
  return Number(m[1]);
};
let passed = 0;
const check = (name, fn) => fn().then(() => { ++passed; console.log(`ok: ${name}`); });

async function main() {
  const {chromium} = require('playwright-core');
  assert.ok(fs.existsSync(chromiumPath), `${chromiumPath} is missing: scripts/setup.sh installs Debian's chromium`);
  const report = path.join(work, 'report.html');
  cli('report', runSnap, churnSnap, leaksSnap, '-o', report);
  const html = fs.readFileSync(report, 'utf8');
  // Self-contained: no external script, style, image or font.
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|@import|url\(\s*['"]?(https?:|\/\/)/i,
                      'the report references an outside resource');

  const browser = await chromium.launch({executablePath: chromiumPath, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync']});
  const problems = [];
  try {
    const page = await browser.newPage({viewport: {width: 1280, height: 900}});
    page.on('console', m => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
    page.on('pageerror', e => problems.push(`page error: ${e.message}`));
    await page.route('**/*', route => {
      if (route.request().url().startsWith('file:')) return route.continue();
      problems.push(`network request: ${route.request().url()}`);
      return route.abort();
    });
    const started = Date.now();
    await page.goto('file://' + report);
    await page.waitForSelector('body[data-ready="1"]', {timeout: 10000});
    console.log(`render: ${Date.now() - started} ms to ready (${(html.length / 1024).toFixed(0)} KiB page)`);

    const info = cliJson('info', runSnap);
    const gcs = info.gcs;
    await check('timeline: one point per GC, rings on the snapshots', async () => {
      assert.equal(await page.locator('#gc-points circle').count(), gcs.length);
      const snapshots = gcs.filter(g => g.trigger && g.trigger !== 'none').length;
      assert.ok(snapshots >= 2, `only ${snapshots} snapshots in the run recording`);
      assert.equal(await page.locator('#gc-points circle.snapshot').count(), snapshots);
      const numbers = await page.locator('#gc-points circle').evaluateAll(cs => cs.map(c => Number(c.dataset.gc)));
      assert.deepEqual(numbers, gcs.map(g => g.gc));
      await page.locator('#gc-points circle.snapshot').last().hover();
      assert.match(await page.locator('#tooltip').textContent(), /^GC \d+: gen\d.*snapshot/);
    });

    await check('types: the table equals gcsnap types --format json', async () => {
      const expected = new Map(cliJson('types', runSnap).map(t => [t.type, t]));
      const rows = await page.locator('#types-table tbody tr').evaluateAll(trs => trs.map(tr => ({
        type: tr.dataset.type, count: Number(tr.querySelector('.count').dataset.value),
        bytes: Number(tr.querySelector('.bytes').dataset.value),
        retained: Number(tr.querySelector('.retained').dataset.value),
        unreachable: Number(tr.querySelector('.unreachable').dataset.value),
        shown: tr.querySelector('.count').textContent})));
      assert.ok(rows.length >= 20, `only ${rows.length} type rows`);
      for (const r of rows) {
        const t = expected.get(r.type);
        assert.ok(t, `the page shows ${r.type}, gcsnap types does not`);
        assert.deepEqual([r.count, r.bytes, r.retained, r.unreachable], [t.count, t.bytes, t.retained_bytes, t.unreachable],
                         r.type);
        assert.equal(r.shown, String(t.count));
      }
      // Sorted by retained bytes; the largest by retained of gcsnap types first.
      const byRetained = [...expected.values()].sort((a, b) => b.retained_bytes - a.retained_bytes);
      assert.equal(rows[0].retained, byRetained[0].retained_bytes);
      await page.fill('#types-filter', 'LeakyItem');
      const filtered = await page.locator('#types-table tbody tr').evaluateAll(trs => trs.map(tr => tr.dataset.type));
      assert.deepEqual(filtered.sort(), cliJson('types', runSnap, '--filter', 'LeakyItem').map(t => t.type).sort());
      assert.equal(await page.locator('#types-table tbody tr[data-type="Gcsnap.Sample.LeakyItem"] .count').textContent(),
                   String(fact('leaky_items')));
      await page.fill('#types-filter', '');
      await page.click('#types-table th[data-key="count"]');
      const counts = await page.locator('#types-table tbody tr .count').evaluateAll(cs => cs.map(c => Number(c.dataset.value)));
      assert.deepEqual(counts, [...counts].sort((a, b) => b - a), 'not sorted by count after a click on Count');
    });

    await check('dominators: a click shows the object and its path from a root', async () => {
      await page.locator('#treemap rect.dom-node').first().click();
      const node = await page.locator('#object-detail').getAttribute('data-node');
      assert.ok(node !== null, 'no object selected');
      const hops = await page.locator('#object-detail ol.path li').allTextContents();
      assert.ok(hops.length >= 1, 'no path shown');
      assert.match(hops[0], /^\[(stack|handle|finalizer|other)[^\]]* root\]/);
      const address = (hops[hops.length - 1].match(/0x[0-9a-f]+/) || [])[0];
      assert.ok(address, `no address in ${hops[hops.length - 1]}`);
      const expected = cliJson('path', runSnap, address);
      const cliHops = (expected.hops || []).map(h => `${h.type} ${h.address}`);
      assert.equal(hops.length, cliHops.length, 'path length differs from gcsnap path');
      hops.forEach((h, k) => assert.ok(h.includes(cliHops[k]), `hop ${k}: '${h}' is not '${cliHops[k]}'`));
    });

    await check('dominators: the objects not carried one by one are blocks per type, not one grey block', async () => {
      await page.locator('#dominators-crumbs a').first().click();  // back to all roots
      const rest = page.locator('#treemap rect.rest');
      const typed = page.locator('#treemap rect.rest-type');
      const data = await page.evaluate(() => JSON.parse(document.getElementById('gcsnap-data').textContent));
      const dom = (data.recordings ? data.recordings[0] : data).dom;
      const rootRest = dom && dom.rest && dom.rest['-1'];
      if (rootRest && rootRest.length) {
        assert.ok(await typed.count() >= 1, 'no per-type block for the objects not carried');
        const names = await typed.evaluateAll(rs => rs.map(r => r.dataset.type));
        assert.ok(names.every(n => n && n.length > 0), `a per-type block has no type: ${names}`);
      }
      assert.ok(await rest.count() - await typed.count() <= 2, 'more than the own-size and other-objects blocks are grey');
    });

    await check('diff: the two GCs of the app give the Survivor2 growth', async () => {
      const snaps = gcs.filter(g => g.trigger && g.trigger !== 'none').map(g => g.gc);
      await page.selectOption('#diff-a', String(snaps.indexOf(fact('diff_from_gc'))));
      await page.selectOption('#diff-b', String(snaps.indexOf(fact('diff_to_gc'))));
      const delta = await page.locator('#diff-table tr[data-type="Gcsnap.Sample.Survivor2"] td').nth(3).getAttribute('data-value');
      assert.equal(Number(delta), fact('survivor2'));
    });

    await page.locator('#timeline').scrollIntoViewIfNeeded();
    await page.screenshot({path: path.join(work, 'report-run.png'), fullPage: true});
    await page.screenshot({path: path.join(work, 'report-run-top.png')});

    await check('a second recording: the picker shows the churn recording', async () => {
      await page.selectOption('#recording', '1');
      const churn = cliJson('info', churnSnap).gcs;
      assert.equal(await page.locator('#gc-points circle').count(), churn.length);
      assert.ok(churn.length > 10, `only ${churn.length} GCs in the churn recording`);
      const spark = await page.locator('#types-table tbody tr svg.spark polyline').count();
      assert.ok(spark > 0, 'no series drawn');
    });
    await page.screenshot({path: path.join(work, 'report-churn.png'), fullPage: true});

    await check('leak suspects: the list of gcsnap leaks, a click shows the path shape', async () => {
      await page.selectOption('#recording', '2');
      const leaks = cliJson('leaks', leaksSnap, '--top', '20');
      assert.ok(leaks.suspects.length >= 1, 'gcsnap leaks finds no suspect in the leaks recording');
      const shown = await page.locator('#suspects-body .suspect').evaluateAll(ds => ds.map(d => d.dataset.type));
      assert.deepEqual(shown, leaks.suspects.map(s => s.type));
      const first = page.locator('#suspects-body .suspect').first();
      await first.click();
      const hops = await first.locator('ol.shape').first().locator('li').allTextContents();
      const shape = leaks.shapes.find(s => s.rank === 1).shape;  // "[handle] -> A -> B"
      const [root, ...types] = shape.split(' -> ');
      assert.equal(hops.length, types.length);
      assert.equal(hops[0], `${root} ${types[0]}`);
      types.slice(1).forEach((t, k) => assert.equal(hops[k + 1], `\u2192 ${t}`));
      assert.match(await first.locator('.holder').textContent(),
                   new RegExp(`^held by .* ${leaks.suspects[0].accumulation_address} `));
      await page.locator('#suspects').scrollIntoViewIfNeeded();
      await page.screenshot({path: path.join(work, 'report-leaks.png')});
    });

    await check('leak suspects come first, with their holder, what accumulates with them and a folded path', async () => {
      const leaks = cliJson('leaks', leaksSnap, '--top', '20');
      const sections = await page.locator('main > section').evaluateAll(ss => ss.map(x => x.id));
      assert.equal(sections[0], 'suspects', `the suspects are not first: ${sections}`);
      assert.equal(await page.locator('nav a').first().getAttribute('href'), '#suspects');
      // The page at the suspects' section, not only at the top.
      await page.locator('#suspects').scrollIntoViewIfNeeded();
      const first = page.locator('#suspects-body .suspect').first();
      const s0 = leaks.suspects[0];
      if (s0.accumulation_address)
        assert.match(await first.locator('.holder').textContent(),
                     new RegExp(`^held by .* ${s0.accumulation_address} `));
      const held = s0.holds ? s0.holds.split(', ') : [];
      if (held.length) {
        const holds = await first.locator('.holds').textContent();
        for (const h of held) assert.ok(holds.includes(h.replace(/ x(\d+)$/, ' \u00d7$1')), `'${holds}' lacks ${h}`);
      }
      const link = first.locator('a.example-link');
      assert.equal(await link.textContent(), s0.example);
      assert.ok(await first.locator('.example-box').isHidden(), 'the path shows before the click');
      await link.click();
      const items = await first.locator('ol.example-path li').allTextContents();
      assert.ok(items.length >= 1, 'no path after a click on the example');
      assert.ok(items[items.length - 1].includes(s0.example), `the path does not end at ${s0.example}`);
      // Folded: the runs' counts add up to the hops gcsnap path lists.
      const counts = items.map(t => Number((t.match(/\u00d7(\d+)/) || [0, 1])[1]));
      const cliHops = cliJson('path', leaksSnap, s0.example).hops;
      assert.equal(counts.reduce((a, b) => a + b, 0), cliHops.length, `folded path ${items} vs ${cliHops.length} hops`);
      assert.ok(items.length <= cliHops.length);
      await page.screenshot({path: path.join(work, 'report-suspects.png')});
    });

    await check('without suspects the section goes back after the timeline; Types comes last', async () => {
      await page.selectOption('#recording', '0');
      const sections = await page.locator('main > section').evaluateAll(ss => ss.map(x => x.id));
      if (!(cliJson('leaks', runSnap).suspects || []).length)
        assert.equal(sections.indexOf('suspects'), sections.indexOf('timeline') + 1, `${sections}`);
      assert.equal(sections[sections.length - 1], 'types', `${sections}`);
    });

    await check('types shows its first 30 rows, a button all; diff starts first against last', async () => {
      const total = cliJson('types', runSnap).length;
      const shown = await page.locator('#types-table tbody tr').count();
      assert.equal(shown, Math.min(30, total));
      if (total > 30) {
        assert.match(await page.locator('#types-more').textContent(), new RegExp(`^Show all ${total} types$`));
        await page.click('#types-more');
        assert.equal(await page.locator('#types-table tbody tr').count(), total);
        await page.click('#types-more');
        assert.equal(await page.locator('#types-table tbody tr').count(), 30);
      }
      const snapCount = await page.locator('#diff-b option').count();
      assert.equal(await page.locator('#diff-a').inputValue(), '0');
      assert.equal(await page.locator('#diff-b').inputValue(), String(snapCount - 1));
    });
  } finally {
    await browser.close();
  }
  assert.deepEqual(problems, [], 'the page reported problems');
}

main().then(() => console.log(`${passed} passed, 0 failed`), e => {
  console.error(e && e.stack || e);
  console.log(`${passed} passed, 1 failed`);
  process.exit(1);
});
