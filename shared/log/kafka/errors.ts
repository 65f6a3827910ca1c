/**
 * Error context for the Kafka log: every error names its topic and partition,
 * as the embedded log's do, and keeps kafkajs's error as its cause.
 */

export function where(topic: string, partition?: number): string {
  return partition === undefined ? `topic [${topic}]` : `topic [${topic}] partition [${partition}]`;
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

export function withContext(err: unknown, context: string): Error {
  const e = asError(err);
  return new Error(`${context}: ${e.message}`, { cause: e });
}

/** The error and its causes, outermost first (kafkajs wraps the broker's error in retry errors). */
export function causeChain(err: unknown): Error[] {
  const chain: Error[] = [];
  let e: unknown = err;
  while (e instanceof Error && chain.length < 10 && !chain.includes(e)) {
    chain.push(e);
    e = e.cause;
  }
  return chain;
}

/** kafkajs's protocol errors carry the broker's error name in `type` (`UNKNOWN_TOPIC_OR_PARTITION`, ...). */
export function kafkaErrorType(err: Error): string | undefined {
  const type: unknown = (err as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

/** Whether the error, or one of its causes, has one of these kafkajs names or broker error types. */
export function hasCause(err: unknown, kinds: readonly string[]): boolean {
  return causeChain(err).some((e) => kinds.includes(e.name) || kinds.includes(kafkaErrorType(e) ?? ''));
}

export function checkOffset(offset: number, context: string): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new Error(`${context}: offset must be a non-negative integer, got ${offset}`);
  }
}
