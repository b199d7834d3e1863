/** How a check ends early: the server broke the rule (CheckFailure), or what it builds on is missing (Blocked). */

/** Thrown by ctx.fail: the server broke the rule. */
export class CheckFailure extends Error {
  constructor(
    message: string,
    readonly fingerprints: readonly string[] = [],
  ) {
    super(message);
  }
}

/** A check could not run because something it builds on is missing (that failure is reported by its own check). */
export class Blocked extends Error {}
