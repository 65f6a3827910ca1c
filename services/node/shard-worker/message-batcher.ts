/**
 * Posts the messages of one turn of the event loop as one: a search sends a
 * query to each of its shards in the same turn, and a worker answers several
 * in one turn too. A postMessage costs tens of microseconds whatever it
 * carries (serialising, waking the other thread), so a search over five
 * shards on two workers makes two instead of five.
 */
export interface Port<M> {
  postMessage(message: M | { t: 'batch'; messages: M[] }, transfer: ArrayBuffer[]): void;
}

export class MessageBatcher<M> {
  private messages: M[] = [];
  private transfer: ArrayBuffer[] = [];
  private scheduled = false;

  constructor(private readonly port: Port<M>) {}

  post(message: M, transfer: readonly ArrayBuffer[] = []): void {
    this.messages.push(message);
    for (const t of transfer) this.transfer.push(t);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Posts what is queued now. */
  flush(): void {
    this.scheduled = false;
    const messages = this.messages;
    const transfer = this.transfer;
    if (messages.length === 0) return;
    this.messages = [];
    this.transfer = [];
    if (messages.length === 1) this.port.postMessage(messages[0]!, transfer);
    else this.port.postMessage({ t: 'batch', messages }, transfer);
  }
}
