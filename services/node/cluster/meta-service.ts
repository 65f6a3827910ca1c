/**
 * Appends MetaEvents to the meta topic and applies the topic, in order, to
 * the node's ClusterState. The node that appended an event answers only once
 * its own state machine applied it, with the outcome the apply produced.
 */
import type { CommitLog, Subscription } from '../../../shared/log/commit-log.ts';
import { metaEventCodec, type MetaEvent, type MetaEventBody } from '../../../shared/records/meta-event.ts';
import type { EsError } from '../../../shared/errors/es-errors.ts';
import { ClusterState, type MetaOutcome } from './cluster-state.ts';
import { RequestIds } from '../request-ids.ts';

export class MetaService {
  readonly state = new ClusterState();
  private readonly waiters = new Map<string, (o: MetaOutcome) => void>();
  private subscription: Subscription | null = null;
  private readonly topic: string;

  constructor(
    private readonly log: CommitLog,
    clusterName: string,
    private readonly ids: RequestIds,
  ) {
    this.topic = `${clusterName}.meta`;
  }

  /** Replays the meta topic from the start and keeps following it. */
  async start(): Promise<void> {
    await this.log.ensureTopic(this.topic, 1);
    const caughtUpTo = await this.log.highWatermark(this.topic, 0);
    let ready!: () => void;
    const replayed = new Promise<void>((r) => (ready = r));
    if (caughtUpTo === 0) ready();
    this.subscription = this.log.follow(this.topic, 0, 0, async (records) => {
      for (const r of records) {
        const event = metaEventCodec.decode(r.value);
        const outcome = this.state.apply(event, r.offset);
        const w = this.waiters.get(event.request_id);
        if (w) {
          this.waiters.delete(event.request_id);
          w(outcome);
        }
        if (r.offset + 1 >= caughtUpTo) ready();
      }
    });
    await replayed;
  }

  /** Appends one change and resolves with its applied outcome; rejects with the EsError apply produced. */
  async submit(body: MetaEventBody, timestamp = Date.now()): Promise<MetaOutcome & { ok: true }> {
    const requestId = this.ids.next();
    const event: MetaEvent = { request_id: requestId, timestamp, event: body };
    const outcome = new Promise<MetaOutcome>((resolve) => this.waiters.set(requestId, resolve));
    try {
      await this.log.append(this.topic, 0, [{ value: metaEventCodec.encode(event) }]);
    } catch (err) {
      this.waiters.delete(requestId);
      throw err;
    }
    const o = await outcome;
    if (!o.ok) throw (o as { error: EsError }).error;
    return o;
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
  }
}
