/**
 * A large document indexed as its JSON is read (issue 11, a document of
 * 90,000 nested objects): the JSON reader hands the mapping's parser one
 * root field, or one element of a root array, at a time, and each nested
 * document goes into the indexing buffer as soon as it is parsed, the
 * document's root last. Neither the document's objects nor its parsed
 * nested documents are ever held whole: on a shard worker they kept
 * 100-230 MB alive while the document was indexed, and the collector's
 * pauses held the shard's searches.
 *
 * The document is all or nothing: until its root is added its block is
 * open, and when the parse or the indexing fails half way, the nested
 * documents added go with a root born deleted (ShardIndex.abandonNested),
 * so no refresh shows any of them. Nothing else may index into or refresh
 * the index until the generator is done.
 */
import { strictJsonSteps } from '../../json/json-steps.ts';
import type { Mapping } from '../mapping/mapping.ts';
import type { BufferedDoc } from './segment-builder.ts';
import type { ShardIndex } from './shard-index.ts';

export type StreamedOutcome =
  | { readonly ok: true }
  /** Nothing of the document was indexed; `indexing`: the index refused it (else its JSON or the mapping did). */
  | { readonly ok: false; readonly indexing: boolean; readonly error: unknown };

/** Indexes `doc` from its source, as index() of its parse would, in steps of the JSON reader (shared/steps/run-steps.ts). */
export function* indexStreamedSteps(
  index: ShardIndex,
  mapping: Mapping,
  nestedObjectsLimit: number,
  doc: Omit<BufferedDoc, 'parsed'>,
  mayReplace: boolean,
): Generator<void, StreamedOutcome> {
  let indexing = false;
  const parse = mapping.parseStreaming(nestedObjectsLimit, (nested) => {
    indexing = true;
    index.addNested(nested, doc.version, doc.seqNo);
    indexing = false;
  });
  try {
    yield* strictJsonSteps(doc.source, parse);
    const parsed = parse.finish();
    indexing = true;
    index.index({ ...doc, parsed }, mayReplace);
    return { ok: true };
  } catch (error) {
    index.abandonNested(doc.id, doc.version, doc.seqNo, doc.routing);
    return { ok: false, indexing, error };
  }
}
