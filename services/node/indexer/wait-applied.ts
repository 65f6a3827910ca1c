/**
 * Waiting on a copy of this node: until it applied the ops below an offset
 * of a log partition, and then (as a write asked) refreshed or flushed. The
 * coordinator's copy access and the transport's shard service (a copy of this
 * node serving another node) both wait through these.
 */
import { OWN_PARTITION, type ShardCopy } from './shard-copy.ts';
import { orNullAfter } from '../timeouts.ts';

/**
 * What a write's copy does once it applied the write: nothing more, make it
 * searchable now (`refresh=true`, `_refresh`), or answer once its own next
 * refresh made it searchable (`refresh=wait_for`, on any node).
 */
export type AfterApplied = 'none' | 'refresh' | 'wait_for' | 'flush';

/** True once the copy applied every op below `offset` of `partition` (the shard's own by default), false if `timeoutMs` passed first. */
export function appliedWithin(copy: ShardCopy, offset: number, timeoutMs: number, partition = OWN_PARTITION): Promise<boolean> {
  if (copy.appliedOffsetOf(partition) >= offset) return Promise.resolve(true);
  return within(copy.waitForApplied(offset, partition), timeoutMs);
}

/** True once the copy applied the ops below `offset` of `partition` and did what `then` asks, false if `timeoutMs` passed first. */
export async function settledWithin(copy: ShardCopy, offset: number, timeoutMs: number, then: AfterApplied, partition = OWN_PARTITION): Promise<boolean> {
  if (then === 'wait_for') {
    const refreshed = copy.refreshedOffsetOf(partition) >= offset || (await within(copy.waitForRefresh(offset, partition), timeoutMs));
    if (refreshed) await copy.segmentsSettled();
    return refreshed;
  }
  const applied = await appliedWithin(copy, offset, timeoutMs, partition);
  if (applied && then === 'flush') {
    await copy.flush();
    await copy.segmentsSettled();
  } else if (applied && then === 'refresh') {
    copy.refresh();
    // Answer once the worker refreshed: doc counts (`_cat/indices`, stats) then include the write, as in Elasticsearch.
    await copy.segmentsSettled();
  }
  return applied;
}

async function within(done: Promise<void>, timeoutMs: number): Promise<boolean> {
  return (await orNullAfter(done.then(() => true), timeoutMs)) ?? false;
}
