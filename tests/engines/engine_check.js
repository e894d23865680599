// What the engine tests share: gcsnap's own answers as JSON, named checks counted and printed one
// line each ("ok - NAME" / "not ok - NAME" and why), and the exit status that sums them up.
//   const {gcsnapJsonOf, Checks} = require('./engine_check.js');
'use strict';
const {execFileSync} = require('node:child_process');

// A function that runs `GCSNAP ARGS... --format json` and returns the parsed answer.
const gcsnapJsonOf = gcsnap => (...args) =>
  JSON.parse(execFileSync(gcsnap, [...args, '--format', 'json'], {encoding: 'utf8'}));

class Checks {
  constructor() {
    this.passed = 0;
    this.failed = 0;
  }

  // Run FN as the check NAME. A synchronous FN is counted before check returns; an async one
  // when the returned promise settles (await it).
  check(name, fn) {
    const pass = () => {
      ++this.passed;
      console.log(`ok - ${name}`);
    };
    const fail = e => {
      ++this.failed;
      console.log(`not ok - ${name}\n${(e && e.stack) || e}`);
    };
    let result;
    try {
      result = fn();
    } catch (e) {
      fail(e);
      return Promise.resolve();
    }
    if (result && typeof result.then === 'function') return result.then(pass, fail);
    pass();
    return Promise.resolve();
  }

  // Print the counts and exit: 1 when a check failed or none ran (a test that checked nothing
  // proves nothing).
  finish() {
    console.log(`${this.passed} passed, ${this.failed} failed`);
    process.exit(this.failed || !this.passed ? 1 : 0);
  }
}

module.exports = {gcsnapJsonOf, Checks};
