/**
 * Point values (segment `points`) in segment files: the tuples of the kept
 * docs, renumbered, as one i32 (geo points) or f64 (range ends) column in `.dvd`, and the per-doc starts as a
 * u32 column beside it. Geo points add their index (point-tree.ts): the
 * nodes' boxes, and the points' docs and coordinates in tree order, as i32
 * columns, built again from the kept points at every commit and merge. Read
 * back as views of the mapped file.
 */
import type { FileOutput } from '../codec/file-output.ts';
import { viewColumn, writeColumn, type ColumnLayout } from '../codec/typed-columns.ts';
import { buildPointTree, type PointTree } from './point-tree.ts';
import type { PointValues, Segment } from './types.ts';

export interface PointTreeInfo {
  readonly leafCount: number;
  readonly boxes: ColumnLayout;
  readonly docs: ColumnLayout;
  readonly coords: ColumnLayout;
}

export interface PointsInfo {
  readonly dims: number;
  readonly values: ColumnLayout;
  readonly starts: ColumnLayout;
  /** Geo points' index; absent in segments written before it (their filters scan). */
  readonly tree?: PointTreeInfo;
}

interface Part {
  readonly segment: Segment;
  readonly docMap: Int32Array;
}

/** Writes field `path`'s points of the kept docs; null when no kept doc has one. */
export function writePoints(path: string, parts: readonly Part[], maxDoc: number, dvd: FileOutput): PointsInfo | null {
  const sources = parts.map((p) => p.segment.points?.get(path) ?? null);
  let dims = 0;
  let doubles = false;
  const counts = new Uint32Array(maxDoc + 1);
  let total = 0;
  sources.forEach((pv, i) => {
    if (pv === null) return;
    dims = pv.dims;
    doubles ||= pv.values instanceof Float64Array;
    const docMap = parts[i]!.docMap;
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d]!;
      if (nd < 0) continue;
      const c = pv.starts[d + 1]! - pv.starts[d]!;
      counts[nd + 1] = c;
      total += c;
    }
  });
  if (total === 0) return null;
  for (let d = 0; d < maxDoc; d++) counts[d + 1]! += counts[d]!;
  const values = doubles ? new Float64Array(total * dims) : new Int32Array(total * dims);
  sources.forEach((pv, i) => {
    if (pv === null) return;
    const docMap = parts[i]!.docMap;
    for (let d = 0; d < docMap.length; d++) {
      const nd = docMap[d]!;
      if (nd < 0) continue;
      values.set(pv.values.subarray(pv.starts[d]! * dims, pv.starts[d + 1]! * dims), counts[nd]! * dims);
    }
  });
  const info: PointsInfo = {
    dims,
    values: writeColumn(dvd, values, values.length, doubles ? 'f64' : 'i32'),
    starts: writeColumn(dvd, counts, maxDoc + 1, 'u32'),
  };
  if (doubles || dims !== 2) return info;
  return { ...info, tree: writeTree(treeOf(values as Int32Array, counts, total, maxDoc), dvd) };
}

/** The index of the renumbered points (their doc of each point from the starts). */
function treeOf(values: Int32Array, starts: Uint32Array, total: number, maxDoc: number): PointTree {
  const docs = new Int32Array(total);
  for (let d = 0; d < maxDoc; d++) docs.fill(d, starts[d]!, starts[d + 1]!);
  return buildPointTree(docs, values.slice());
}

function writeTree(tree: PointTree, dvd: FileOutput): PointTreeInfo {
  return {
    leafCount: tree.leafCount,
    boxes: writeColumn(dvd, tree.boxes, tree.boxes.length, 'i32'),
    docs: writeColumn(dvd, tree.docs, tree.docs.length, 'i32'),
    coords: writeColumn(dvd, tree.coords, tree.coords.length, 'i32'),
  };
}

export function viewPoints(dvd: Uint8Array, info: PointsInfo): PointValues {
  const pv = { dims: info.dims, values: viewColumn(dvd, info.values) as Int32Array | Float64Array, starts: viewColumn(dvd, info.starts) as Uint32Array };
  const t = info.tree;
  if (t === undefined) return pv;
  const tree: PointTree = {
    leafCount: t.leafCount,
    boxes: viewColumn(dvd, t.boxes) as Int32Array,
    docs: viewColumn(dvd, t.docs) as Int32Array,
    coords: viewColumn(dvd, t.coords) as Int32Array,
  };
  return { ...pv, tree };
}
