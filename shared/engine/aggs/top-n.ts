/**
 * The best `n` of a set of ids under a comparator, without sorting them all:
 * a bounded binary heap whose root is the worst kept id.
 */
export function topN(ids: Int32Array, n: number, cmp: (a: number, b: number) => number): Int32Array {
  if (ids.length <= n) return Int32Array.from(ids).sort(cmp);
  const heap = new Int32Array(n);
  let size = 0;
  // root = worst (largest under cmp)
  const worse = (a: number, b: number): boolean => cmp(a, b) > 0;
  const siftUp = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (worse(heap[i]!, heap[p]!)) {
        const t = heap[i]!;
        heap[i] = heap[p]!;
        heap[p] = t;
        i = p;
      } else break;
    }
  };
  const siftDown = (i: number): void => {
    while (true) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && worse(heap[l]!, heap[m]!)) m = l;
      if (r < size && worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      const t = heap[i]!;
      heap[i] = heap[m]!;
      heap[m] = t;
      i = m;
    }
  };
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (size < n) {
      heap[size++] = id;
      siftUp(size - 1);
    } else if (cmp(id, heap[0]!) < 0) {
      heap[0] = id;
      siftDown(0);
    }
  }
  return heap.sort(cmp);
}
