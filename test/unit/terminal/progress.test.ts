import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Progress } from '../../../shared/terminal/progress.ts';

/** The terminal code that clears the rest of the line. */
const CLEAR_LINE = '\x1b[K';

/** A stream that records what is written to it. */
function sink(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let out = '';
  const stream = { isTTY, write: (s: string) => ((out += s), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => out };
}

test('on a terminal: one bar redrawn in place, ending on its own line', () => {
  const s = sink(true);
  const p = new Progress({ label: 'imported', total: 1000, stream: s.stream });
  p.update(250);
  p.finish(1000, 'rejected 0');
  const out = s.text();
  assert.match(out, /^\r\[#{6}-{18}\] +25% {2}imported 250 of 1,000 /);
  assert.match(out, /\r\[#{24}\] {2}100% {2}imported 1,000 of 1,000 .* done {2}\(rejected 0\)/);
  assert.ok(out.endsWith(`${CLEAR_LINE}\n`));
  assert.equal(out.split('\n').length, 2, 'one line, redrawn');
});

test('off a terminal: plain lines, no carriage returns, at most one every few seconds', () => {
  const s = sink(false);
  const p = new Progress({ label: 'produced', total: 10, stream: s.stream });
  for (let i = 1; i <= 10; i++) p.update(i);
  p.finish();
  const lines = s.text().trim().split('\n');
  assert.equal(lines.length, 2, 'the first update and the end');
  assert.ok(!s.text().includes('\r') && !s.text().includes(CLEAR_LINE));
  assert.match(lines[1]!, /^100% {2}produced 10 of 10 {2}[\d,]+\/s {2}\d+s {2}done$/);
});

test('without a total: a count and a rate', () => {
  const s = sink(false);
  const p = new Progress({ label: 'consumed', stream: s.stream });
  p.finish(12345);
  assert.match(s.text(), /^consumed 12,345 {2}[\d,]+\/s {2}\d+s {2}done\n$/);
});

test('byte counts read as megabytes', () => {
  const s = sink(false);
  new Progress({ label: 'read', total: 4 * 2 ** 20, bytes: true, stream: s.stream }).finish(2 ** 20);
  assert.match(s.text(), /^ 25% {2}read 1\.0 MB of 4\.0 MB /);
});
