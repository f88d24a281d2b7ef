/**
 * `edges[l][r]`: whether left vertex `l` may be matched with right vertex `r`; the size of a
 * largest set of such pairs sharing no vertex. Used to pair subschemas one to one.
 */
export function maximumMatching(edges: readonly (readonly boolean[])[], right: number): number {
  const matchOf: number[] = new Array(right).fill(-1);
  const augment = (left: number, seen: boolean[]): boolean => {
    for (let r = 0; r < right; r++) {
      if (!edges[left]?.[r] || seen[r]) continue;
      seen[r] = true;
      if (matchOf[r] === -1 || augment(matchOf[r] as number, seen)) {
        matchOf[r] = left;
        return true;
      }
    }
    return false;
  };
  let size = 0;
  for (let l = 0; l < edges.length; l++) if (augment(l, new Array(right).fill(false))) size++;
  return size;
}
