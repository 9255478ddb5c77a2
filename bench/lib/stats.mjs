// Small statistics shared by the bench's scripts.

/** The median of the numbers (the mean of the middle two for an even count); the array is not changed. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
