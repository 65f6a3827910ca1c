/**
 * Progress of a long command (import, produce, ingest, generate, a
 * benchmark's load) on stderr: a bar redrawn in place on a terminal, plain
 * lines every few seconds otherwise (a log file, CI, `2>file`), so neither
 * a pipe fills with carriage returns nor a terminal with lines.
 */

export interface ProgressOptions {
  /** What is counted: `imported`, `produced`, ... */
  readonly label: string;
  /** How many there are, when known: a bar and a percentage; otherwise a count and a rate. */
  readonly total?: number | null;
  readonly stream?: NodeJS.WriteStream;
  /** Forces the terminal form on or off (default: whether the stream is a TTY). */
  readonly tty?: boolean;
  /** The counts are bytes: shown in MB. */
  readonly bytes?: boolean;
  /** Seconds between plain lines (default 5). */
  readonly lineEverySeconds?: number;
}

const BAR_WIDTH = 24;
/** A terminal is redrawn at most this often. */
const REDRAW_MS = 100;

const count = (n: number): string => Math.round(n).toLocaleString('en-US');
const megabytes = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MB`;

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export class Progress {
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly started = performance.now();
  private lastDraw = -Infinity;
  private done = 0;
  private detail = '';
  private finished = false;

  constructor(private readonly options: ProgressOptions) {
    this.stream = options.stream ?? process.stderr;
    this.tty = options.tty ?? this.stream.isTTY === true;
  }

  /** `done` so far; `detail` is shown after the figures (`duplicates 3, rejected 0`). */
  update(done: number, detail = ''): void {
    this.done = done;
    this.detail = detail;
    const now = performance.now();
    const every = this.tty ? REDRAW_MS : (this.options.lineEverySeconds ?? 5) * 1000;
    if (now - this.lastDraw < every) return;
    this.lastDraw = now;
    this.draw(false);
  }

  /** The last figures, on their own line. */
  finish(done = this.done, detail = this.detail): void {
    if (this.finished) return;
    this.finished = true;
    this.done = done;
    this.detail = detail;
    this.draw(true);
  }

  /** The text of the current state (without the bar's terminal codes). */
  line(final: boolean): string {
    const seconds = (performance.now() - this.started) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const total = this.options.total ?? null;
    const parts: string[] = [];
    const grouped = this.options.bytes ? megabytes : count;
    if (total !== null && total > 0) {
      const fraction = Math.min(1, this.done / total);
      if (this.tty) parts.push(`[${'#'.repeat(Math.round(fraction * BAR_WIDTH)).padEnd(BAR_WIDTH, '-')}]`);
      parts.push(`${(fraction * 100).toFixed(0).padStart(3)}%`, `${this.options.label} ${grouped(this.done)} of ${grouped(total)}`);
    } else {
      parts.push(`${this.options.label} ${grouped(this.done)}`);
    }
    parts.push(`${grouped(rate)}/s`, clock(seconds));
    if (!final && total !== null && total > 0 && rate > 0 && this.done < total) parts.push(`ETA ${clock((total - this.done) / rate)}`);
    if (final) parts.push('done');
    const text = parts.join('  ');
    return this.detail ? `${text}  (${this.detail})` : text;
  }

  private draw(final: boolean): void {
    const text = this.line(final);
    // \x1b[K clears what a longer previous line left.
    this.stream.write(this.tty ? `\r${text}\x1b[K${final ? '\n' : ''}` : `${text}\n`);
  }
}
