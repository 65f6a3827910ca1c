/**
 * What the members of `<cluster>.members` tell each other through Kafka's
 * group protocol (docs/cluster-membership.md): each member's JoinGroup
 * metadata carries its node and the last table it knows; the leader's
 * SyncGroup assignment carries the whole view (master, members, table) to
 * every member. Both travel as JSON in kafkajs's `userData`, behind a magic
 * prefix so that nothing else is mistaken for them.
 *
 * kafkajs decodes a member's assignment and keeps only the partitions: the
 * `userData` is dropped before any event or API shows it (and the mock
 * cluster has no DescribeGroups to read it back). So the assignment decoder
 * is wrapped once per process: it still returns what it did, and in passing
 * files our payloads by (group, member id) for the member's GROUP_JOIN
 * handler to pick up. kafkajs decodes the assignment just before it emits
 * GROUP_JOIN for the same join, and the payload names its recipient, so
 * interleaved joins of several members in one process cannot mix up.
 */
import { AssignerProtocol } from 'kafkajs';
import type { AllocationTable, ShardCopy } from './allocation.ts';

/** A node as the cluster knows it (`_cat/nodes`, `GET /_nodes`). */
export interface NodeInfo {
  /** Stable across restarts (kept in `path.data`). */
  readonly id: string;
  readonly name: string;
  /** `host:port` of the REST API. */
  readonly httpAddress: string;
  /** `host:port` of the internal transport. */
  readonly transportAddress: string;
  /** `node.data`: false for a coordinating-only node, which hosts no copy. */
  readonly data: boolean;
  /** `node.attr.*`. */
  readonly attributes?: Readonly<Record<string, string>>;
}

/** What every member learns at the end of a rebalance. */
export interface MembershipView {
  /** Grows by one with every table the masters compute; the newest view wins. */
  readonly epoch: number;
  readonly master: NodeInfo | null;
  /** Every member node, data or not, by id. */
  readonly members: readonly NodeInfo[];
  readonly table: AllocationTable;
}

/** A member's JoinGroup metadata. */
export interface MemberPayload {
  readonly node: NodeInfo;
  /** A short-lived member that only makes the group rebalance (Membership.requestRebalance); it is no node. */
  readonly poke: boolean;
  /** The newest view this member has seen: a new master carries the table on from it. */
  readonly last: MembershipView | null;
}

/** The leader's SyncGroup assignment for one member. */
export interface AssignmentPayload {
  readonly group: string;
  /** The Kafka member id of the recipient. */
  readonly to: string;
  readonly view: MembershipView;
}

const MAGIC = Buffer.from('logsearch.members.1\n');

function encode(value: unknown): Buffer {
  return Buffer.concat([MAGIC, Buffer.from(JSON.stringify(value))]);
}

function decode(data: Buffer | null | undefined): unknown {
  if (data == null || data.length < MAGIC.length || !data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  try {
    return JSON.parse(data.subarray(MAGIC.length).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isString = (x: unknown): x is string => typeof x === 'string';

function asNode(x: unknown): NodeInfo | null {
  if (!isRecord(x) || !isString(x.id) || x.id === '' || !isString(x.name)) return null;
  if (!isString(x.httpAddress) || !isString(x.transportAddress) || typeof x.data !== 'boolean') return null;
  const attributes: Record<string, string> = {};
  if (isRecord(x.attributes)) for (const [k, v] of Object.entries(x.attributes)) if (isString(v)) attributes[k] = v;
  return { id: x.id, name: x.name, httpAddress: x.httpAddress, transportAddress: x.transportAddress, data: x.data, attributes };
}

function asTable(x: unknown): AllocationTable | null {
  if (!isRecord(x) || !isRecord(x.indices)) return null;
  const indices: Record<string, ShardCopy[][]> = {};
  for (const [uuid, shards] of Object.entries(x.indices)) {
    if (!Array.isArray(shards)) return null;
    indices[uuid] = shards.map((copies: unknown) =>
      Array.isArray(copies)
        ? copies.flatMap((c: unknown) => (isRecord(c) && isString(c.nodeId) && typeof c.primary === 'boolean' ? [{ nodeId: c.nodeId, primary: c.primary }] : []))
        : [],
    );
  }
  if (!isRecord(x.fresh)) return { indices };
  const fresh: Record<string, number[]> = {};
  for (const [uuid, shards] of Object.entries(x.fresh)) {
    if (Array.isArray(shards)) fresh[uuid] = shards.filter((s: unknown): s is number => Number.isSafeInteger(s));
  }
  return { indices, fresh };
}

function asView(x: unknown): MembershipView | null {
  if (!isRecord(x) || !Number.isSafeInteger(x.epoch) || !Array.isArray(x.members)) return null;
  const members = x.members.map(asNode);
  const table = asTable(x.table);
  if (members.some((m) => m === null) || table === null) return null;
  const master = x.master === null ? null : asNode(x.master);
  if (x.master !== null && master === null) return null;
  return { epoch: x.epoch as number, master, members: members as NodeInfo[], table };
}

export function encodeMember(payload: MemberPayload): Buffer {
  return encode(payload);
}

/** A member's metadata, or null for one that is not ours (another protocol, another version). */
export function decodeMember(data: Buffer | null | undefined): MemberPayload | null {
  const x = decode(data);
  if (!isRecord(x)) return null;
  const node = asNode(x.node);
  if (node === null) return null;
  return { node, poke: x.poke === true, last: x.last == null ? null : asView(x.last) };
}

export function encodeAssignment(payload: AssignmentPayload): Buffer {
  return encode(payload);
}

export function decodeAssignment(data: Buffer | null | undefined): AssignmentPayload | null {
  const x = decode(data);
  if (!isRecord(x) || !isString(x.group) || !isString(x.to)) return null;
  const view = asView(x.view);
  return view === null ? null : { group: x.group, to: x.to, view };
}

/** Assignments decoded by kafkajs, by `${group}\0${member id}`, waiting for their member's GROUP_JOIN. */
const inbox = new Map<string, MembershipView>();
const inboxKey = (group: string, memberId: string): string => `${group}\u0000${memberId}`;
let tapped = false;

/** Wraps kafkajs's assignment decoder (once per process); see the module comment. */
export function tapAssignments(): void {
  if (tapped) return;
  tapped = true;
  const codec = AssignerProtocol.MemberAssignment;
  const original = codec.decode.bind(codec);
  codec.decode = (buffer: Buffer) => {
    const decoded = original(buffer);
    const ours = decodeAssignment(decoded?.userData);
    if (ours !== null) inbox.set(inboxKey(ours.group, ours.to), ours.view);
    return decoded;
  };
}

/** The view the leader sent this member in its last SyncGroup, once. */
export function takeAssignment(group: string, memberId: string): MembershipView | null {
  const key = inboxKey(group, memberId);
  const view = inbox.get(key) ?? null;
  inbox.delete(key);
  return view;
}

/** Forgets what a stopped member never picked up. */
export function dropAssignments(group: string, memberIds: Iterable<string>): void {
  for (const id of memberIds) inbox.delete(inboxKey(group, id));
}
