/**
 * [start, end) pairs in one flat array that grows by doubling: a tuple per element of a big list cost more than the
 * elements. Float64, so byte offsets past 4 GiB (a list read from a file) fit.
 */
export class Ranges {
  a = new Float64Array(2048);
  length = 0;
  /** max: the most pairs kept; past it, push throws what `overflow` makes. */
  constructor(
    private readonly max = Infinity,
    private readonly overflow: () => Error = () => new RangeError('too many ranges'),
  ) {}

  push(start: number, end: number): void {
    if (this.length * 2 + 2 > this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.length * 2] = start;
    this.a[this.length * 2 + 1] = end;
    if (++this.length > this.max) throw this.overflow();
  }

  start(k: number): number {
    return this.a[k * 2]!;
  }

  end(k: number): number {
    return this.a[k * 2 + 1]!;
  }

  clear(): void {
    this.length = 0;
  }
}
