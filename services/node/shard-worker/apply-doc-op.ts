/**
 * Applying one DocOp to the current state of its document: a pure function
 * of (state, record, offset), so every copy that applies the same log reaches
 * the same documents and the same outcomes (DESIGN.md 2, Writes 3 and 6).
 *
 * Version rules are Elasticsearch 6.8's (VersionType INTERNAL, EXTERNAL,
 * EXTERNAL_GTE, FORCE; create = "must not exist"); a delete leaves a
 * tombstone that keeps its version, so re-indexing continues from it.
 */
import {
  type DocCoordinates,
  type EsError,
  isEsError,
  documentAlreadyExists,
  documentMissing,
  mapperParsing,
  versionConflictExternal,
  versionConflictInternal,
  versionConflictSeqNo,
} from '../../../shared/errors/es-errors.ts';
import type { DocOp } from '../../../shared/records/doc-op.ts';
import type { DocState } from '../../../shared/engine/store/doc-state.ts';
import { mergePartialDoc } from './partial-update.ts';
import { runUpdateScript, type UpdateScriptDoc } from '../../../shared/script/update-script.ts';

export type WriteResult = 'created' | 'updated' | 'deleted' | 'not_found' | 'noop';

export type DocOutcome =
  | {
      readonly ok: true;
      readonly result: WriteResult;
      readonly version: number;
      readonly seqNo: number;
      /** The state to store, or null when nothing changes (noop). */
      readonly next: DocState | null;
      /** The document's source after the op (the unchanged one for a noop); null after a delete. */
      readonly source: Buffer | null;
    }
  | { readonly ok: false; readonly error: EsError };

/** Elasticsearch's Versions.NOT_FOUND. */
const NOT_FOUND = -1;

export function applyDocOp(current: DocState | undefined, op: DocOp, offset: number, coords: DocCoordinates): DocOutcome {
  try {
    switch (op.op) {
      case 'INDEX':
      case 'CREATE':
        return applyIndex(current, op, offset, coords);
      case 'DELETE':
        return applyDelete(current, op, offset, coords);
      case 'UPDATE':
        return applyUpdate(current, op, offset, coords);
    }
  } catch (err) {
    if (isEsError(err)) return { ok: false, error: err };
    throw err;
  }
}

function currentVersion(s: DocState | undefined): number {
  return s === undefined ? NOT_FOUND : s.version;
}

function live(s: DocState | undefined): s is DocState {
  return s !== undefined && !s.deleted;
}

/** Returns the conflict error, or null when the op may proceed. */
function checkVersion(current: DocState | undefined, op: DocOp, coords: DocCoordinates): EsError | null {
  const cur = currentVersion(current);
  if (op.if_seq_no !== null) {
    if (!live(current) || current.seqNo !== op.if_seq_no) {
      return versionConflictSeqNo(coords, op.if_seq_no, op.if_primary_term ?? 1, live(current) ? current.seqNo : null);
    }
    return null;
  }
  if (op.version === null) return null;
  switch (op.version_type) {
    case 'INTERNAL':
      // A deleted document has no version to match (ES: deleted counts as not found).
      if (!live(current)) return versionConflictInternal(coords, NOT_FOUND, op.version);
      return cur !== op.version ? versionConflictInternal(coords, cur, op.version) : null;
    case 'EXTERNAL':
      return cur !== NOT_FOUND && cur >= op.version ? versionConflictExternal(coords, cur, op.version, false) : null;
    case 'EXTERNAL_GTE':
      return cur !== NOT_FOUND && cur > op.version ? versionConflictExternal(coords, cur, op.version, true) : null;
    case 'FORCE':
      return null;
  }
}

function nextVersion(current: DocState | undefined, op: DocOp): number {
  if (op.version !== null && op.version_type !== 'INTERNAL') return op.version;
  const cur = currentVersion(current);
  return cur === NOT_FOUND ? 1 : cur + 1;
}

function applyIndex(current: DocState | undefined, op: DocOp, offset: number, coords: DocCoordinates): DocOutcome {
  if (op.op === 'CREATE' && live(current)) return { ok: false, error: documentAlreadyExists(coords, current.version) };
  const conflict = checkVersion(current, op, coords);
  if (conflict) return { ok: false, error: conflict };
  if (op.source === null) return { ok: false, error: mapperParsing('failed to parse, document is empty') };
  const version = nextVersion(current, op);
  return {
    ok: true,
    result: live(current) ? 'updated' : 'created',
    version,
    seqNo: offset,
    next: { version, seqNo: offset, deleted: false, routing: op.routing, source: op.source },
    source: op.source,
  };
}

function applyDelete(current: DocState | undefined, op: DocOp, offset: number, coords: DocCoordinates): DocOutcome {
  const conflict = checkVersion(current, op, coords);
  if (conflict) return { ok: false, error: conflict };
  const version = nextVersion(current, op);
  return {
    ok: true,
    result: live(current) ? 'deleted' : 'not_found',
    version,
    seqNo: offset,
    next: { version, seqNo: offset, deleted: true, routing: op.routing, source: null },
    source: null,
  };
}

function applyUpdate(current: DocState | undefined, op: DocOp, offset: number, coords: DocCoordinates): DocOutcome {
  const u = op.update;
  if (u === null) return { ok: false, error: mapperParsing('update without a body') };
  if (!live(current)) {
    // A by-query update found the document when it searched; gone now, it is a version conflict.
    if (u.by_query) return { ok: false, error: checkVersion(current, op, coords) ?? versionConflictInternal(coords, NOT_FOUND, op.version ?? NOT_FOUND) };
    const upsert = u.doc_as_upsert ? u.doc : u.upsert;
    if (upsert === null) return { ok: false, error: documentMissing(coords) };
    const conflict = checkVersion(current, op, coords);
    if (conflict) return { ok: false, error: conflict };
    const version = nextVersion(current, op);
    let source = upsert;
    if (u.script !== null && u.scripted_upsert) {
      const run = runUpdateScript(u.script, scriptDoc(coords, op, NOT_FOUND, upsert, 'create'), false);
      if (run.op === 'noop') return { ok: true, result: 'noop', version: NOT_FOUND, seqNo: offset, next: null, source: null };
      if (run.op === 'delete') return { ok: true, result: 'noop', version: NOT_FOUND, seqNo: offset, next: null, source: null };
      source = run.source;
    }
    return {
      ok: true,
      result: 'created',
      version,
      seqNo: offset,
      next: { version, seqNo: offset, deleted: false, routing: op.routing, source },
      source,
    };
  }
  const conflict = checkVersion(current, op, coords);
  if (conflict) return { ok: false, error: conflict };
  const before = current.source ?? Buffer.from('{}');
  let source: Buffer;
  if (u.script !== null) {
    const run = runUpdateScript(u.script, scriptDoc(coords, op, current.version, before, 'index', current.routing), u.by_query);
    if (run.op === 'noop') return { ok: true, result: 'noop', version: current.version, seqNo: current.seqNo, next: null, source: before };
    if (run.op === 'delete') {
      const version = nextVersion(current, op);
      return { ok: true, result: 'deleted', version, seqNo: offset, next: { version, seqNo: offset, deleted: true, routing: current.routing, source: null }, source: null };
    }
    source = run.source;
  } else if (u.doc === null) {
    // _update_by_query without a script: the document is indexed again as it is (a new mapping applies to it).
    if (!u.by_query) return { ok: false, error: mapperParsing('update requires [doc] or [script]') };
    source = before;
  } else {
    const merged = mergePartialDoc(before, u.doc);
    if (merged === null && u.detect_noop) {
      return { ok: true, result: 'noop', version: current.version, seqNo: current.seqNo, next: null, source: current.source };
    }
    source = merged ?? before;
  }
  const version = nextVersion(current, op);
  return {
    ok: true,
    result: 'updated',
    version,
    seqNo: offset,
    next: { version, seqNo: offset, deleted: false, routing: op.routing ?? current.routing, source },
    source,
  };
}

/** What an update script sees of the document. */
function scriptDoc(coords: DocCoordinates, op: DocOp, version: number, source: Buffer, ctxOp: 'index' | 'create', routing: string | null = op.routing): UpdateScriptDoc {
  return { index: coords.index, type: coords.type, id: coords.id, version, routing, now: op.timestamp, source, op: ctxOp };
}
