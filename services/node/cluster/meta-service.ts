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

/** A change this node appended and has not applied yet (`_cluster/pending_tasks`, `_cat/pending_tasks`). */
export interface PendingTask {
  readonly insertOrder: number;
  readonly priority: 'URGENT' | 'HIGH';
  readonly source: string;
  /** When it was submitted (epoch ms). */
  readonly since: number;
}

/** The change as Elasticsearch names its cluster state update tasks. */
function describe(body: MetaEventBody): { source: string; priority: PendingTask['priority'] } {
  if ('logsearch.CreateIndex' in body) return { source: `create-index [${body['logsearch.CreateIndex'].index}], cause [api]`, priority: 'URGENT' };
  if ('logsearch.DeleteIndex' in body) return { source: 'delete-index', priority: 'URGENT' };
  if ('logsearch.PutMapping' in body) return { source: 'put-mapping', priority: 'HIGH' };
  if ('logsearch.UpdateSettings' in body) return { source: 'update-settings', priority: 'URGENT' };
  if ('logsearch.UpdateAliases' in body) return { source: 'index-aliases', priority: 'URGENT' };
  if ('logsearch.SetIndexState' in body) return { source: body['logsearch.SetIndexState'].closed ? 'close-indices' : 'open-indices', priority: 'URGENT' };
  if ('logsearch.UpdateClusterSettings' in body) return { source: 'cluster_update_settings', priority: 'URGENT' };
  if ('logsearch.PutTemplate' in body) return { source: `create-index-template [${body['logsearch.PutTemplate'].name}], cause [api]`, priority: 'URGENT' };
  if ('logsearch.DeleteTemplate' in body) return { source: `remove-index-template [${body['logsearch.DeleteTemplate'].names.join(',')}]`, priority: 'URGENT' };
  return { source: 'cluster-change', priority: 'URGENT' };
}

export class MetaService {
  readonly state = new ClusterState();
  private readonly waiters = new Map<string, (o: MetaOutcome) => void>();
  private readonly pending = new Map<string, PendingTask>();
  private nextInsertOrder = 0;
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
        this.pending.delete(event.request_id);
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
    this.pending.set(requestId, { insertOrder: this.nextInsertOrder++, since: Date.now(), ...describe(body) });
    try {
      await this.log.append(this.topic, 0, [{ value: metaEventCodec.encode(event) }]);
    } catch (err) {
      this.waiters.delete(requestId);
      this.pending.delete(requestId);
      throw err;
    }
    const o = await outcome;
    if (!o.ok) throw (o as { error: EsError }).error;
    return o;
  }

  /** Changes this node submitted that the meta log has not given back yet, oldest first. */
  pendingTasks(): PendingTask[] {
    return [...this.pending.values()].sort((a, b) => a.insertOrder - b.insertOrder);
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
  }
}
