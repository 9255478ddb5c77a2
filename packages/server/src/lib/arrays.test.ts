import { describe, expect, it } from 'vitest';
import { flatMap, flatten } from './arrays.js';

describe('array helpers', () => {
  it('flatMap answers what Array.prototype.flatMap answers', () => {
    const cases: Array<[unknown[], (item: unknown, index: number) => unknown]> = [
      [[], (x) => [x]],
      [[1, 2, 3], (x) => (x === 2 ? [] : [x, x])],
      // A value that is not an array is taken as it is; an array inside the answer stays an array (one level).
      [['a', 'b'], (x, i) => (i === 0 ? x : [[x], i])],
      [[{ n: 1 }], (x) => x],
    ];
    for (const [items, fn] of cases) expect(flatMap(items, fn)).toEqual(items.flatMap(fn));
  });

  it('flatten takes one level only: PostgreSQL column parameters are arrays and stay arrays', () => {
    expect(flatten<unknown>([[1, [2, 3]], [], ['a']])).toEqual([1, [2, 3], 'a']);
    expect(flatten([])).toEqual([]);
  });
});
