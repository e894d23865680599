// Open a gcsnap report in headless Chromium (the system's, via playwright-core) and print how
// long it takes to render: from navigation start to the page's data-ready mark, and to the
// load event. Used by bench/report.sh; prints figures, asserts nothing.
//   NODE_PATH=.../node_modules node report_render.js REPORT.html [RUNS]
'use strict';
const {chromium} = require('playwright-core');
(async () => {
  const [file, runs = '3'] = process.argv.slice(2);
  const browser = await chromium.launch({executablePath: process.env.GCSNAP_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run']});
  const errors = [];
  for (let i = 0; i < Number(runs); ++i) {
    const page = await browser.newPage({viewport: {width: 1280, height: 900}});
    page.on('pageerror', e => errors.push(e.message));
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto('file://' + file, {waitUntil: 'load'});
    await page.waitForSelector('body[data-ready="1"]');
    const t = await page.evaluate(() => ({ready: Number(document.body.dataset.readyMs),
                                           load: performance.getEntriesByType('navigation')[0].loadEventEnd}));
    console.log(`render run ${i + 1}: data-ready at ${t.ready.toFixed(0)} ms, load event at ${t.load.toFixed(0)} ms`);
    await page.close();
  }
  await browser.close();
  if (errors.length) console.log(`page errors: ${errors.join('; ')}`);
})().catch(e => { console.error(e); process.exit(1); });
