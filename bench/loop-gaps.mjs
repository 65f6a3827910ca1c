/**
 * Loaded with `--import` into a profiled node (bench:http-thread --cpu-prof):
 * every thread of the process (workers inherit the flag) times a 1 ms timer
 * and, at exit, writes the stretches its event loop took no turn for longer
 * than 15 ms to LOOP_GAPS_DIR/gaps.<pid>.<threadId>.json, on the clock of
 * the .cpuprofile files (µs, monotonic). bench/long-stretches.ts reads them
 * to tell a step that held the thread from many short steps back to back.
 */
import { threadId } from 'node:worker_threads';
import { writeFile, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.LOOP_GAPS_DIR;
if (dir) {
  const gaps = [];
  const now = () => Number(process.hrtime.bigint() / 1000n);
  let last = now();
  const tick = () => {
    const t = now();
    if (t - last > 15_000) gaps.push([last, t]);
    last = t;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();
  // Written every second as well as at exit: a worker that is terminated may run no exit handler.
  let saved = 0;
  const file = join(dir, `gaps.${process.pid}.${threadId}.json`);
  // Off the thread while it runs (a synchronous write would be a gap of its own); at exit at once.
  setInterval(() => {
    if (gaps.length === saved) return;
    saved = gaps.length;
    writeFile(file, JSON.stringify(gaps), () => undefined);
  }, 1000).unref();
  process.on('exit', () => writeFileSync(file, JSON.stringify(gaps)));
}
