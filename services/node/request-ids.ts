/**
 * Request ids that are unique across nodes and restarts: node id + a random
 * per-process prefix + a counter. They name the coordinator's request inside
 * log records so the node can recognise the outcome of its own appends.
 */
import { randomBytes } from 'node:crypto';

export class RequestIds {
  private readonly prefix: string;
  private counter = 0;

  constructor(nodeId: string) {
    this.prefix = `${nodeId}:${randomBytes(6).toString('base64url')}:`;
  }

  next(): string {
    return this.prefix + (this.counter++).toString(36);
  }
}
