import fs from 'node:fs';

/** How long a write waits before trying a full pipe again (sonic-boom's value). */
const RETRY_MS = 100;
/** How long a line may wait for others to share its write: unnoticeable to whoever reads the log. */
const FLUSH_MS = 20;

/**
 * Where the service's log lines go when the app is given no stream (`emporium serve`): a file
 * descriptor, standard output by default, written asynchronously.
 *
 * pino's default destination (sonic-boom) takes each line as a string and appends it to the text
 * waiting for the next write, measuring that whole text again (Buffer.byteLength of a string
 * just concatenated, so flattened) at every line; at 20k requests a second that was about 4 µs
 * of every request (bench/README.md, "Get by id"). Here a line is pushed on a list, and the
 * lines of up to FLUSH_MS go out together in one write once the write before it has finished, in
 * the order logged: a write, its hand-over to libuv's threads and its callback cost more than the
 * line itself, so under load each is shared by hundreds of lines rather than a few. As with
 * sonic-boom: a partial write goes on where it stopped, a full pipe (EAGAIN) is tried again, a
 * closed one (EPIPE) ends logging quietly, any other error is thrown, and the lines still
 * waiting are written synchronously when the process exits.
 */
export class LogDestination {
  private pending: string[] = [];
  private writing = false;
  private scheduled = false;
  private closed = false;

  constructor(private readonly fd = 1) {
    process.on('exit', () => this.flushSync());
  }

  /** pino's stream interface: one serialized line, newline included. */
  write(line: string): boolean {
    if (this.closed) return true;
    this.pending.push(line);
    if (!this.writing) this.schedule();
    return true;
  }

  /** Writes what is waiting, synchronously (at exit); a write in flight is left to finish. */
  flushSync(): void {
    if (this.closed || this.pending.length === 0) return;
    let buffer = this.take();
    while (buffer.length > 0) {
      try {
        buffer = buffer.subarray(fs.writeSync(this.fd, buffer));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
      }
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Unref'd: a line waiting does not keep the process alive; the exit handler writes it.
    setTimeout(this.flush, FLUSH_MS).unref();
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.writing || this.closed || this.pending.length === 0) return;
    this.send(this.take());
  };

  private take(): Buffer {
    const text = this.pending.join('');
    this.pending = [];
    return Buffer.from(text);
  }

  private send(buffer: Buffer): void {
    this.writing = true;
    fs.write(this.fd, buffer, 0, buffer.length, null, (error, written) => {
      if (error?.code === 'EAGAIN') {
        setTimeout(() => this.send(buffer), RETRY_MS);
        return;
      }
      if (error) {
        this.writing = false;
        this.closed = true;
        this.pending = [];
        if (error.code === 'EPIPE') return;
        throw error;
      }
      if (written < buffer.length) {
        this.send(buffer.subarray(written));
        return;
      }
      this.writing = false;
      if (this.pending.length > 0) this.schedule();
    });
  }
}
